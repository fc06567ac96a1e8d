package io.smartssd.spark;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** A smartssd table: checked options, the column layout, and the device objects it reads. */
final class SmartSsdTable implements SupportsRead {
    private final SmartSsdOptions options;
    private final TableLayout layout;
    private final Map<String, String> fsConf;
    private final List<DeviceObject> objects;

    private final Map<Long, long[]> rowGroupBytes;   // Parquet: per object id, its row groups' compressed bytes
    private final Map<Long, byte[]> footers;         // Parquet: per object id, its footer bytes

    SmartSsdTable(SmartSsdOptions options, TableLayout layout, Map<String, String> fsConf, List<DeviceObject> objects) {
        this(options, layout, fsConf, objects, Map.of(), Map.of());
    }

    SmartSsdTable(SmartSsdOptions options, TableLayout layout, Map<String, String> fsConf, List<DeviceObject> objects,
                  Map<Long, long[]> rowGroupBytes, Map<Long, byte[]> footers) {
        this.options = options;
        this.layout = layout;
        this.fsConf = fsConf;
        this.objects = objects;
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
    public String name() {
        return "smartssd " + options.path;
    }

    @Override
    @SuppressWarnings("deprecation")
    public StructType schema() {
        return layout.schema();
    }

    @Override
    public Set<TableCapability> capabilities() {
        return EnumSet.of(TableCapability.BATCH_READ);
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

    Map<String, String> fsConf() {
        return fsConf;
    }

    List<DeviceObject> objects() {
        return objects;
    }
}
