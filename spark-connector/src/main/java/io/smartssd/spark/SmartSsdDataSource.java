package io.smartssd.spark;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The {@code smartssd} format (DataSource V2):
 * {@code spark.read.format("smartssd").option("format", "wc98").load("smartssd://dev0/logs/wc98.bin")} or
 * {@code CREATE TABLE t (...) USING smartssd OPTIONS (path 'smartssd://...', format 'csv')}, or Parquet
 * objects: {@code option("format", "parquet")}, the schema read from the first object's footer.
 * Options, schema and path are checked here, at analysis time; docs/SPARK.md lists the options.
 */
public final class SmartSsdDataSource implements TableProvider, DataSourceRegister {

    @Override
    public String shortName() {
        return "smartssd";
    }

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        SmartSsdOptions o = SmartSsdOptions.parse(lower(options.asCaseSensitiveMap()), sessionConf());
        String tasklet = lower(options.asCaseSensitiveMap()).get(UserTaskletTable.TASKLET);
        if (tasklet != null) {
            throw new IllegalArgumentException("schema: option tasklet = '" + tasklet + "' needs a declared schema, the"
                    + " columns of the tasklet's rows in order: spark.read.schema(\"region STRING, count BIGINT\")");
        }
        if (o.isWc98()) {
            return Wc98Layout.schema();
        }
        if (o.isText()) {
            return TextTable.SCHEMA;
        }
        if (o.isParquet()) {
            Map<String, String> fsc = fsConf(options.asCaseSensitiveMap(), sessionConf());
            List<DeviceObject> objects = DeviceObject.resolve(o.path, fsc);
            if (objects.isEmpty()) {
                throw new IllegalArgumentException("option path = '" + o.path + "': no Parquet objects to read");
            }
            return ParquetLayout.schema(ParquetLayout.fileSchema(objects.get(0), fsc));
        }
        throw new IllegalArgumentException("schema: format csv needs a schema: spark.read.schema(\"a INT, b STRING\")"
                + " or CREATE TABLE t (a INT, b STRING) USING smartssd");
    }

    @Override
    public boolean supportsExternalMetadata() {
        return true;
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        Map<String, String> conf = sessionConf();
        SmartSsdOptions o = SmartSsdOptions.parse(lower(properties), conf);
        if (partitioning.length > 0) {
            throw new IllegalArgumentException("smartssd tables are not partitioned (got " + partitioning.length
                    + " partition transforms)");
        }
        String tasklet = lower(properties).get(UserTaskletTable.TASKLET);
        if (tasklet != null && tasklet.isBlank()) {
            throw new IllegalArgumentException("option tasklet is empty: name an installed user tasklet");
        }
        Map<String, String> fsConf = fsConf(properties, conf);
        List<DeviceObject> objects = DeviceObject.resolve(o.path, fsConf);
        if (tasklet != null) {
            /* a user tasklet's rows, by the declared schema (docs/USER-TASKLETS.md) */
            return new UserTaskletTable(tasklet, lower(properties), schema, fsConf, objects, o.splitSize, o.path);
        }
        if (o.isText()) {
            return new TextTable(o, TextTable.schema(schema), fsConf, objects);
        }
        if (o.isParquet()) {
            Map<Long, long[]> rowGroups = new HashMap<>();
            Map<Long, byte[]> footers = new HashMap<>();
            TableLayout layout = ParquetLayout.layout(schema, objects, fsConf, rowGroups, footers);
            return new SmartSsdTable(o, layout, fsConf, objects, rowGroups, footers);
        }
        TableLayout layout = o.isWc98() ? Wc98Layout.layout(schema, o.entryBytes)
                : TableLayout.text(schema, o.delimiter, o.quote, o.escape, o.header);
        if (o.isWc98()) {
            for (DeviceObject obj : objects) {
                if (obj.size() % o.entryBytes != 0) {
                    throw new IllegalArgumentException("option " + SmartSsdOptions.ENTRY_BYTES + " = " + o.entryBytes
                            + ": object " + obj.uri() + " has " + obj.size() + " bytes, not a multiple of it");
                }
            }
        }
        return new SmartSsdTable(o, layout, fsConf, objects);
    }

    private static Map<String, String> lower(Map<String, String> m) {
        Map<String, String> out = new HashMap<>();
        m.forEach((k, v) -> out.put(k.toLowerCase(Locale.ROOT), v));
        return out;
    }

    private static Map<String, String> sessionConf() {
        scala.Option<SparkSession> s = SparkSession.getActiveSession();
        if (s.isEmpty()) {
            s = SparkSession.getDefaultSession();
        }
        Map<String, String> out = new HashMap<>();
        if (s.isDefined()) {
            // by the iterator, which Scala 2.12 and 2.13 both have (their converters differ)
            scala.collection.Iterator<scala.Tuple2<String, String>> it = s.get().conf().getAll().iterator();
            while (it.hasNext()) {
                scala.Tuple2<String, String> e = it.next();
                out.put(e._1(), e._2());
            }
        }
        return out;
    }

    /**
     * The device keys ({@code fs.smartssd.*}) from the Hadoop configuration, the session's
     * {@code spark.hadoop.fs.smartssd.*} entries and the read options, in rising precedence. They travel to
     * executors inside the reader factory.
     */
    private static Map<String, String> fsConf(Map<String, String> options, Map<String, String> session) {
        Map<String, String> out = new HashMap<>();
        scala.Option<SparkSession> s = SparkSession.getActiveSession();
        if (s.isDefined()) {
            Configuration hc = s.get().sparkContext().hadoopConfiguration();
            // Spark's own readers and writers (df.write.parquet("smartssd://...")) find the scheme too
            SmartSsdFileSystem.register(hc);
            out.putAll(hc.getPropsWithPrefix("fs.smartssd.").entrySet().stream().collect(
                    java.util.stream.Collectors.toMap(e -> "fs.smartssd." + e.getKey(), Map.Entry::getValue)));
        }
        session.forEach((k, v) -> {
            if (k.startsWith("spark.hadoop.fs.smartssd.")) {
                out.put(k.substring("spark.hadoop.".length()), v);
            }
        });
        options.forEach((k, v) -> {
            if (k.startsWith("fs.smartssd.")) {
                out.put(k, v);
            }
        });
        return out;
    }
}
