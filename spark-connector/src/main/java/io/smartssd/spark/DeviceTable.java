package io.smartssd.spark;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.types.StructType;

/**
 * What every smartssd table shares, whatever answers it on the device (the declarative plan, grep2 for
 * text, a user tasklet): the path it was given, its schema, the device objects under that path, the
 * {@code fs.smartssd.*} keys that reach the device from the executors, and the extent size of an input
 * partition. A kind of table adds only its scan builder and scan ({@link DeviceScan}).
 */
abstract class DeviceTable implements SupportsRead {
    private final String path;
    private final StructType schema;
    private final Map<String, String> fsConf;
    private final List<DeviceObject> objects;
    private final long splitSize;

    DeviceTable(String path, StructType schema, Map<String, String> fsConf, List<DeviceObject> objects,
                long splitSize) {
        this.path = path;
        this.schema = schema;
        this.fsConf = fsConf;
        this.objects = objects;
        this.splitSize = splitSize;
    }

    @Override
    public String name() {
        return "smartssd " + path;
    }

    @Override
    @SuppressWarnings("deprecation")
    public StructType schema() {
        return schema;
    }

    @Override
    public Set<TableCapability> capabilities() {
        return EnumSet.of(TableCapability.BATCH_READ);
    }

    String path() {
        return path;
    }

    Map<String, String> fsConf() {
        return fsConf;
    }

    List<DeviceObject> objects() {
        return objects;
    }

    long splitSize() {
        return splitSize;
    }
}
