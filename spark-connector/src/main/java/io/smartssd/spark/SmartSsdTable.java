package io.smartssd.spark;

import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** A table the device's declarative plan answers (csv, wc98, parquet): checked options and the column layout. */
final class SmartSsdTable extends DeviceTable {
    private final SmartSsdOptions options;
    private final TableLayout layout;

    private final Map<Long, long[]> rowGroupBytes;   // Parquet: per object id, its row groups' compressed bytes
    private final Map<Long, byte[]> footers;         // Parquet: per object id, its footer bytes

    SmartSsdTable(SmartSsdOptions options, TableLayout layout, Map<String, String> fsConf, List<DeviceObject> objects) {
        this(options, layout, fsConf, objects, Map.of(), Map.of());
    }

    SmartSsdTable(SmartSsdOptions options, TableLayout layout, Map<String, String> fsConf, List<DeviceObject> objects,
                  Map<Long, long[]> rowGroupBytes, Map<Long, byte[]> footers) {
        super(options.path, layout.schema(), fsConf, objects, options.splitSize);
        this.options = options;
        this.layout = layout;
        this.rowGroupBytes = rowGroupBytes;
        this.footers = footers;
    }

    /** A Parquet object's footer bytes as read when the table was created, or null. */
    byte[] footer(long objectId) {
        return footers.get(objectId);
    }

    /** A Parquet object's row groups' compressed bytes (footer order), or null when not known. */
    long[] rowGroupBytes(long objectId) {
        return rowGroupBytes.get(objectId);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap ignored) {
        return new SmartSsdScanBuilder(this);
    }

    SmartSsdOptions options() {
        return options;
    }

    TableLayout layout() {
        return layout;
    }
}
