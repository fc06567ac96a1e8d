package io.smartssd.spark;

import io.smartssd.proto.Column;
import io.smartssd.proto.ColumnType;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The 1998 World Cup access-log record (docs/TASKLETS.md): 20 big-endian bytes, {@code timestamp u32,
 * clientID u32, objectID u32, size u32 (0xFFFFFFFF = no size), method u8, status u8 (bits 7-6 HTTP
 * version, bits 5-0 code index), type u8, server u8 (bits 7-5 region, bits 4-0 server)}, padded to
 * {@code entry_bytes}. Unsigned 32-bit fields are bigint; the byte fields int.
 */
final class Wc98Layout {
    static final int RECORD_BYTES = 20;

    private Wc98Layout() {
    }

    private record Field(String name, DataType type, int offset, int width, int shift, long mask, boolean nullable) {
    }

    private static final Field[] FIELDS = {
        new Field("timestamp", DataTypes.LongType, 0, 4, 0, 0, false),
        new Field("client_id", DataTypes.LongType, 4, 4, 0, 0, false),
        new Field("object_id", DataTypes.LongType, 8, 4, 0, 0, false),
        new Field("size", DataTypes.LongType, 12, 4, 0, 0, true),
        new Field("method", DataTypes.IntegerType, 16, 1, 0, 0, false),
        new Field("http_version", DataTypes.IntegerType, 17, 1, 6, 0x3, false),
        new Field("status_code", DataTypes.IntegerType, 17, 1, 0, 0x3F, false),
        new Field("type", DataTypes.IntegerType, 18, 1, 0, 0, false),
        new Field("region", DataTypes.IntegerType, 19, 1, 5, 0x7, false),
        new Field("server", DataTypes.IntegerType, 19, 1, 0, 0x1F, false),
    };

    /** The full schema of a WorldCup98 table. */
    static StructType schema() {
        StructField[] f = new StructField[FIELDS.length];
        for (int i = 0; i < f.length; i++) {
            f[i] = DataTypes.createStructField(FIELDS[i].name, FIELDS[i].type, true);
        }
        return new StructType(f);
    }

    /**
     * The layout for a user schema (a subset of the record's columns in any order, types as in
     * {@link #schema()}), or the whole record when userSchema is null.
     */
    static TableLayout layout(StructType userSchema, int entryBytes) {
        StructType s = userSchema == null ? schema() : TableLayout.nullable(userSchema);
        List<Column> cols = new ArrayList<>();
        for (StructField sf : s.fields()) {
            Field f = find(sf.name());
            if (f == null) {
                throw new IllegalArgumentException("schema: column '" + sf.name() + "' is not a WorldCup98 field"
                        + " (fields: " + String.join(", ", schema().fieldNames()) + ")");
            }
            if (!f.type.equals(sf.dataType())) {
                throw new IllegalArgumentException("schema: WorldCup98 column '" + sf.name() + "' is "
                        + f.type.simpleString() + ", not " + sf.dataType().simpleString());
            }
            Column.Builder c = Column.newBuilder().setName(sf.name()).setType(ColumnType.INT64)
                    .setOffset(f.offset).setWidth(f.width).setBigEndian(true).setSigned(false)
                    .setShift(f.shift).setMask(f.mask);
            if (f.nullable) {
                c.setHasNullRaw(true).setNullRaw(0xFFFFFFFFL);
            }
            cols.add(c.build());
        }
        return TableLayout.fixed(s, cols, entryBytes, "wc98 entry_bytes=" + entryBytes);
    }

    private static Field find(String name) {
        for (Field f : FIELDS) {
            if (f.name.equalsIgnoreCase(name)) {
                return f;
            }
        }
        return null;
    }
}
