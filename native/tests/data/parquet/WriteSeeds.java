import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Writes the Parquet files the C tests and the fuzz target start from, with Spark itself, and the same
 * rows as CSV (Spark's CSV writer) for the tests' reference answers. Run from the repository root:
 *   java -cp SPARK_CLASSPATH native/tests/data/parquet/WriteSeeds.java native/tests/data/parquet
 * Files: snappy.parquet (Spark's defaults: snappy, dictionary pages, several row groups), zstd_plain.parquet
 * (zstd, dictionary off: PLAIN pages), gzip_v2.parquet (data pages v2, gzip), small_pages.parquet (one
 * row group of many small pages, dictionaries that overflow into PLAIN pages), and rows.csv.
 * Doubles and floats are multiples of 1/4 so the CSV round trip is exact.
 */
public final class WriteSeeds {
    public static void main(String[] args) throws Exception {
        Path out = Paths.get(args[0]).toAbsolutePath();
        SparkSession spark = SparkSession.builder().master("local[1]").appName("seeds")
                .config("spark.ui.enabled", "false").config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.driver.host", "127.0.0.1").getOrCreate();
        StructType schema = new StructType().add("id", DataTypes.LongType, false).add("i", DataTypes.IntegerType)
                .add("d", DataTypes.DoubleType).add("name", DataTypes.StringType).add("flag", DataTypes.BooleanType)
                .add("f", DataTypes.FloatType);
        String[] words = {"alpha", "beta", "gamma", "delta", "abacus", "zulu", "midnight", "amid", "x", "yz"};
        Random r = new Random(11);
        List<Row> rows = new ArrayList<>();
        for (int k = 0; k < 3000; k++) {
            rows.add(RowFactory.create((long) k * 7 - 5000,
                    r.nextInt(10) == 0 ? null : r.nextInt(2001) - 1000,
                    r.nextInt(10) == 0 ? null : (r.nextInt(1601) - 800) / 4.0,
                    r.nextInt(10) == 0 ? null : words[r.nextInt(words.length)] + (r.nextInt(3) == 0 ? "-" + r.nextInt(300) : ""),
                    r.nextInt(10) == 0 ? null : r.nextBoolean(),
                    r.nextInt(10) == 0 ? null : (float) ((r.nextInt(401) - 200) / 4.0)));
        }
        Dataset<Row> df = spark.createDataFrame(rows, schema).coalesce(1);
        write(df.write().option("parquet.block.size", "16384"), out, "snappy");
        write(df.write().option("compression", "zstd").option("parquet.enable.dictionary", "false")
                .option("parquet.block.size", "32768"), out, "zstd_plain");
        write(df.write().option("compression", "gzip").option("parquet.writer.version", "v2")
                .option("parquet.block.size", "32768"), out, "gzip_v2");
        write(df.write().option("parquet.page.size", "1024").option("parquet.dictionary.page.size", "512")
                .option("parquet.page.row.count.limit", "400"), out, "small_pages");
        Path tmp = Files.createTempDirectory("seeds-csv");
        df.write().mode("overwrite").csv(tmp.resolve("csv").toString());
        Files.copy(part(tmp.resolve("csv"), ".csv"), out.resolve("rows.csv"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        spark.stop();
    }

    private static void write(org.apache.spark.sql.DataFrameWriter<Row> w, Path out, String name) throws Exception {
        Path tmp = Files.createTempDirectory("seeds-" + name);
        w.mode("overwrite").parquet(tmp.resolve("p").toString());
        Files.copy(part(tmp.resolve("p"), ".parquet"), out.resolve(name + ".parquet"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private static Path part(Path dir, String ext) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith("part-") && p.toString().endsWith(ext))
                    .findFirst().orElseThrow();
        }
    }
}
