package io.smartssd.hadoop.mapreduce;

import io.smartssd.hadoop.fs.TestImages;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;

/** LocalJobRunner settings and reading a job's text output back. */
final class JobRunner {
    private JobRunner() {
    }

    /** A local-mode configuration with device id naming image. */
    static Configuration localConf(String id, Path image) {
        Configuration conf = TestImages.conf(id, image);
        conf.set("mapreduce.framework.name", "local");
        conf.set("fs.defaultFS", "file:///");
        conf.setInt("mapreduce.local.map.tasks.maximum", 2);
        conf.setInt("mapreduce.client.completion.pollinterval", 50); // default 5 s per waitForCompletion
        conf.set("hadoop.tmp.dir", TestImages.dir().resolve("hadoop-tmp").toString());
        return conf;
    }

    /** key -> value of the tab-separated lines of every part file of a job output directory. */
    static Map<String, Long> output(Path dir) throws IOException {
        Map<String, Long> m = new TreeMap<>();
        try (DirectoryStream<Path> parts = Files.newDirectoryStream(dir, "part-*")) {
            for (Path p : parts) {
                for (String line : Files.readAllLines(p, StandardCharsets.UTF_8)) {
                    int tab = line.lastIndexOf('\t');
                    m.put(line.substring(0, tab), Long.parseLong(line.substring(tab + 1)));
                }
            }
        }
        return m;
    }

    static void put(FileSystem fs, String path, byte[] data) throws IOException {
        try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(path), true)) {
            out.write(data);
        }
    }
}
