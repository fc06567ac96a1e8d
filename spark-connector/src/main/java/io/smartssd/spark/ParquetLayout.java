package io.smartssd.spark;

import io.smartssd.proto.ColumnType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Parquet objects on the device: their schema from a footer (read with parquet-mr, Spark's own Parquet
 * library, through the smartssd:// FileSystem) and the table layout that maps each Spark column to a
 * leaf of the files' schema. The device reads flat schemas of BOOLEAN, INT32 (int, smallint, tinyint),
 * INT64 (bigint), FLOAT, DOUBLE and UTF-8 BYTE_ARRAY (string) columns.
 */
final class ParquetLayout {
    private ParquetLayout() {
    }

    /** The Parquet schema in the footer of one object. */
    static MessageType fileSchema(DeviceObject o, Map<String, String> fsConf) {
        return footer(o, fsConf).getFileMetaData().getSchema();
    }

    /** The footer of one object, as parquet-mr reads it. */
    static org.apache.parquet.hadoop.metadata.ParquetMetadata footer(DeviceObject o, Map<String, String> fsConf) {
        Configuration conf = new Configuration();
        fsConf.forEach(conf::set);
        try (ParquetFileReader r = ParquetFileReader.open(HadoopInputFile.fromPath(new Path(o.uri()), conf))) {
            return r.getFooter();
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("format parquet: cannot read the Parquet footer of " + o.uri() + ": "
                    + e.getMessage(), e);
        }
    }

    /** The Spark type of a Parquet column, or null when the device cannot read it (why: into why[0]). */
    static DataType sparkType(Type t, String[] why) {
        if (!t.isPrimitive()) {
            why[0] = "a nested (group) column";
            return null;
        }
        if (t.isRepetition(Type.Repetition.REPEATED)) {
            why[0] = "a repeated column";
            return null;
        }
        PrimitiveType p = t.asPrimitiveType();
        LogicalTypeAnnotation a = p.getLogicalTypeAnnotation();
        switch (p.getPrimitiveTypeName()) {
            case BOOLEAN:
                return DataTypes.BooleanType;
            case INT32:
                if (a == null) {
                    return DataTypes.IntegerType;
                }
                if (a instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i && i.isSigned()) {
                    return i.getBitWidth() == 8 ? DataTypes.ByteType
                            : i.getBitWidth() == 16 ? DataTypes.ShortType : DataTypes.IntegerType;
                }
                break;
            case INT64:
                if (a == null || (a instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i && i.isSigned())) {
                    return DataTypes.LongType;
                }
                break;
            case FLOAT:
                return DataTypes.FloatType;
            case DOUBLE:
                return DataTypes.DoubleType;
            case BINARY:
                if (a instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation) {
                    return DataTypes.StringType;
                }
                break;
            default:
                break;
        }
        why[0] = p.getPrimitiveTypeName() + (a == null ? "" : " (" + a + ")");
        return null;
    }

    /** Every column of a file schema as Spark reads it, or an error naming the columns the device cannot read. */
    static StructType schema(MessageType file) {
        List<StructField> fields = new ArrayList<>();
        List<String> bad = new ArrayList<>();
        for (Type t : file.getFields()) {
            String[] why = new String[1];
            DataType d = sparkType(t, why);
            if (d == null) {
                bad.add(t.getName() + ": " + why[0]);
            } else {
                fields.add(new StructField(t.getName(), d, true, org.apache.spark.sql.types.Metadata.empty()));
            }
        }
        if (!bad.isEmpty()) {
            throw new IllegalArgumentException("format parquet: the device cannot read column(s) " + String.join(", ", bad)
                    + " (it reads boolean, int, smallint, tinyint, bigint, float, double and string columns of flat"
                    + " schemas); name the columns to read with spark.read.schema(...)");
        }
        return new StructType(fields.toArray(new StructField[0]));
    }

    /**
     * The layout of a schema (the inferred one or the user's, a subset of the files' columns by name) over
     * objects whose footers all hold those columns at the same leaf positions with the same types.
     */
    static TableLayout layout(StructType schema, List<DeviceObject> objects, Map<String, String> fsConf) {
        return layout(schema, objects, fsConf, new java.util.HashMap<>(), new java.util.HashMap<>());
    }

    /**
     * The same; rowGroupBytes gets each object's row groups' compressed sizes (footer order) and footers
     * its footer bytes, by object id: the partitions carry them, so a query reads no footer before its
     * plans go to the device, and the device checks each object still ends with the footer its row
     * groups were counted from.
     */
    static TableLayout layout(StructType schema, List<DeviceObject> objects, Map<String, String> fsConf,
                              Map<Long, long[]> rowGroupBytes, Map<Long, byte[]> footers) {
        if (objects.isEmpty()) {
            throw new IllegalArgumentException("format parquet: no Parquet objects to read");
        }
        if (schema == null || schema.fields().length == 0) {
            throw new IllegalArgumentException("format parquet: the schema has no columns");
        }
        if (schema.fields().length > TableLayout.MAX_COLUMNS) {
            throw new IllegalArgumentException("schema has " + schema.fields().length + " columns; the device plan"
                    + " holds at most " + TableLayout.MAX_COLUMNS);
        }
        StructField[] f = schema.fields();
        int[] leaves = new int[f.length];
        ColumnType[] types = new ColumnType[f.length];
        MessageType first = null;
        for (DeviceObject o : objects) {
            org.apache.parquet.hadoop.metadata.ParquetMetadata footer = footer(o, fsConf);
            MessageType m = footer.getFileMetaData().getSchema();
            rowGroupBytes.put(o.id(), footer.getBlocks().stream()
                    .mapToLong(org.apache.parquet.hadoop.metadata.BlockMetaData::getCompressedSize).toArray());
            footers.put(o.id(), DeviceRun.footer(DeviceObject.fileSystem(o.uri(), fsConf).device(), o.id(), o.size()));
            List<Type> cols = m.getFields();
            for (Type t : cols) {
                // the device numbers columns by leaf: a group column would shift every leaf after it
                if (!t.isPrimitive() || t.isRepetition(Type.Repetition.REPEATED)) {
                    throw new IllegalArgumentException("format parquet: " + o.uri() + " has the "
                            + (t.isPrimitive() ? "repeated" : "nested (group)") + " column '" + t.getName()
                            + "': the device reads flat Parquet schemas only");
                }
            }
            for (int i = 0; i < f.length; i++) {
                int leaf = -1;
                for (int k = 0; k < cols.size(); k++) {
                    if (cols.get(k).getName().equalsIgnoreCase(f[i].name())) {
                        leaf = k;
                        break;
                    }
                }
                if (leaf < 0) {
                    throw new IllegalArgumentException("format parquet: column '" + f[i].name() + "' is not in "
                            + o.uri() + " (its columns: " + names(cols) + ")");
                }
                String[] why = new String[1];
                DataType d = sparkType(cols.get(leaf), why);
                if (d == null) {
                    throw new IllegalArgumentException("format parquet: column '" + f[i].name() + "' of " + o.uri()
                            + " is " + why[0] + ", which the device cannot read");
                }
                if (!d.equals(f[i].dataType())) {
                    throw new IllegalArgumentException("format parquet: column '" + f[i].name() + "' is "
                            + d.simpleString() + " in " + o.uri() + ", not " + f[i].dataType().simpleString());
                }
                if (first != null && leaves[i] != leaf) {
                    throw new IllegalArgumentException("format parquet: column '" + f[i].name() + "' lies at position "
                            + leaf + " in " + o.uri() + " but " + leaves[i] + " in the first object: read them apart");
                }
                leaves[i] = leaf;
                types[i] = d.equals(DataTypes.DoubleType) || d.equals(DataTypes.FloatType) ? ColumnType.DOUBLE
                        : d.equals(DataTypes.StringType) ? ColumnType.STRING
                        : d.equals(DataTypes.BooleanType) ? ColumnType.BOOL : ColumnType.INT64;
            }
            if (first == null) {
                first = m;
            }
        }
        return TableLayout.parquet(schema, leaves, types, "parquet");
    }

    private static String names(List<Type> cols) {
        List<String> n = new ArrayList<>();
        for (Type t : cols) {
            n.add(t.getName());
        }
        return String.join(", ", n);
    }
}
