package io.smartssd.spark;

import io.smartssd.device.ObjectInfo;
import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** A data object a table reads, found through the smartssd:// FileSystem (hadoop-smartssd). */
record DeviceObject(String uri, long id, long size, String host) implements Serializable {

    /** The objects of path: the object itself, or the files directly under a directory. */
    static List<DeviceObject> resolve(String path, Map<String, String> fsConf) {
        try {
            SmartSsdFileSystem fs = fileSystem(path, fsConf);
            Path p = new Path(path);
            FileStatus st = fs.getFileStatus(p);
            List<FileStatus> files = new ArrayList<>();
            if (st.isDirectory()) {
                for (FileStatus f : fs.listStatus(p)) {
                    String n = f.getPath().getName();
                    if (f.isFile() && !n.startsWith("_") && !n.startsWith(".")) {
                        files.add(f);
                    }
                }
            } else {
                files.add(st);
            }
            List<DeviceObject> out = new ArrayList<>();
            String host = fs.deviceSpec().host();
            for (FileStatus f : files) {
                ObjectInfo o = fs.objectOf(f.getPath());
                out.add(new DeviceObject(f.getPath().toString(), o.id(), o.size(), host));
            }
            return out;
        } catch (IOException | UncheckedIOException e) {
            throw new IllegalArgumentException("option path = '" + path + "': " + e.getMessage(), e);
        }
    }

    /** Hadoop Configurations by their entries; at most CONF_CACHE_MAX, then started over. */
    private static final java.util.concurrent.ConcurrentHashMap<Map<String, String>, Configuration> CONFS =
            new java.util.concurrent.ConcurrentHashMap<>();
    private static final int CONF_CACHE_MAX = 64;

    /**
     * A Configuration holding fsConf, shared by the partitions of a table: a new one parses Hadoop's default
     * resources (XML) on first use, about 4 ms of CPU, once per device request otherwise. Only read
     * (FileSystem.get looks keys up), so sharing it between task threads is safe. The smartssd://
     * FileSystem is named in it unless fsConf names one ({@link SmartSsdFileSystem#register}), so the
     * scheme resolves however the jar arrived.
     */
    static Configuration configuration(Map<String, String> fsConf) {
        if (CONFS.size() >= CONF_CACHE_MAX) {
            CONFS.clear();
        }
        return CONFS.computeIfAbsent(Map.copyOf(fsConf), m -> {
            Configuration conf = new Configuration();
            m.forEach(conf::set);
            // through this jar's own class loader: the jar may have come with spark.jars or --jars
            conf.setClassLoader(SmartSsdFileSystem.class.getClassLoader());
            return SmartSsdFileSystem.register(conf);
        });
    }

    /**
     * The FileSystem of a smartssd:// path; Hadoop caches it per device, and it holds the JVM's shared
     * device handle (hadoop-smartssd's DeviceRegistry), so drivers and executors of one JVM share it.
     */
    static SmartSsdFileSystem fileSystem(String path, Map<String, String> fsConf) {
        Configuration conf = configuration(fsConf);
        try {
            FileSystem fs = FileSystem.get(URI.create(path), conf);
            if (!(fs instanceof SmartSsdFileSystem s)) {
                throw new IllegalArgumentException(path + " is not on a smartssd device (" + fs.getClass().getName() + ")");
            }
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e.getMessage(), e);
        }
    }

    /**
     * A Parquet object's partitions: each covers the whole object (its footer, at the end, says where
     * the chunks lie) and reads consecutive row groups of at most splitSize compressed bytes together
     * (at least one); an object of one row group (or none known) is one partition over all of it. The
     * footer (null: each reader reads it) goes with each: row groups are indexes into that footer.
     */
    List<SmartSsdPartition> parquetPartitions(long[] rowGroupBytes, byte[] footer, long splitSize) {
        List<SmartSsdPartition> out = new ArrayList<>();
        long len = Math.max(size, 1);
        if (rowGroupBytes == null || rowGroupBytes.length < 2) {
            out.add(new SmartSsdPartition(uri, id, 0, len, host, null, footer));
            return out;
        }
        int first = 0;
        long bytes = 0;
        for (int g = 0; g < rowGroupBytes.length; g++) {
            if (g > first && bytes + rowGroupBytes[g] > splitSize) {
                out.add(new SmartSsdPartition(uri, id, 0, len, host, range(first, g), footer));
                first = g;
                bytes = 0;
            }
            bytes += rowGroupBytes[g];
        }
        out.add(new SmartSsdPartition(uri, id, 0, len, host, range(first, rowGroupBytes.length), footer));
        if (out.size() == 1) {
            out.set(0, new SmartSsdPartition(uri, id, 0, len, host, null, footer));   // every row group: no list
        }
        return out;
    }

    private static int[] range(int from, int to) {
        int[] r = new int[to - from];
        for (int k = 0; k < r.length; k++) {
            r[k] = from + k;
        }
        return r;
    }

    /** Extents of at most splitSize bytes covering the object; none for an empty object. */
    List<SmartSsdPartition> partitions(long splitSize) {
        List<SmartSsdPartition> out = new ArrayList<>();
        for (long off = 0; off < size; off += splitSize) {
            out.add(new SmartSsdPartition(uri, id, off, Math.min(splitSize, size - off), host));
        }
        return out;
    }
}
