package io.smartssd.examples.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Wall and process CPU time of one SparkBench query on the {@code smartssd} table of a dataset
 * {@code bin/smartssd bench spark} left behind, in one warm JVM: for paired runs of two builds or two
 * device settings, one JVM each in turn (the JVM's start and Spark's session are not in the figures).
 * With table options B, the same query alternates between a table with options A and one with B in
 * this JVM, pair by pair (answers checked equal).
 *
 * <pre>SparkQueryTimes DIR QUERY RUNS [A_OPTS [B_OPTS]]   (OPTS: k=v,k=v; QUERY: a SparkBench query name)</pre>
 *
 * Prints one line per run: {@code run i wall_s cpu_s [b_wall_s b_cpu_s]}, then the medians.
 * {@code -Dsmartssd.times.table=csv|parquet|spark_parquet} picks the table: the smartssd table over the
 * CSV object (default), over the Parquet objects, or Spark's own reader over the local Parquet copy (for
 * the same figures on Spark's path; options are ignored there). {@code -Dsmartssd.times.phases=true}
 * also prints, per run, when the job and its tasks started and ended (Spark's own stamps, ms after the
 * query's start) and the tasks' summed deserialization and run times.
 */
public final class SparkQueryTimes {
    private SparkQueryTimes() {
    }

    public static void main(String[] args) {
        Path dir = Paths.get(args[0]).toAbsolutePath();
        String query = null;
        for (String[] q : SparkBench.QUERIES) {
            if (q[0].equals(args[1])) {
                query = q[1];
            }
        }
        if (query == null) {
            throw new IllegalArgumentException("no query " + args[1]);
        }
        int runs = Integer.parseInt(args[2]);
        Map<String, String> a = opts(args.length > 3 ? args[3] : "");
        Map<String, String> b = args.length > 4 ? opts(args[4]) : null;
        SparkSession spark = SparkSession.builder().master("local[2]").appName("smartssd-times")
                .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1").config("spark.sql.shuffle.partitions", "4")
                .config("spark.hadoop.fs.smartssd.device.b0.image", dir.resolve("dev.img").toString()).getOrCreate();
        // smartssd.times.table: csv (the smartssd table over the CSV object), parquet (over the Parquet
        // objects), spark_parquet (Spark's own reader over the local Parquet copy, options ignored)
        String table = System.getProperty("smartssd.times.table", "csv");
        view(spark, dir, table, a, "ta");
        if (b != null) {
            view(spark, dir, table, b, "tb");
        }
        if (Boolean.getBoolean("smartssd.times.phases")) {
            spark.sparkContext().addSparkListener(PHASES);
        }
        String qa = query.replace("{t}", "ta");
        String qb = query.replace("{t}", "tb");
        String expect = canonical(spark.sql(qa).collectAsList());
        String planOut = System.getProperty("smartssd.times.plan_out");
        if (planOut != null) { // the device plan of table A's scan, for `csd run IMAGE plan --plan FILE`
            writePlan(spark.sql(qa), Paths.get(planOut));
        }
        if (b != null && !canonical(spark.sql(qb).collectAsList()).equals(expect)) {
            throw new IllegalStateException("answers differ between " + args[3] + " and " + args[4]);
        }
        for (int i = 0; i < 2; i++) { // warm-up
            spark.sql(qa).collectAsList();
            if (b != null) {
                spark.sql(qb).collectAsList();
            }
        }
        List<double[]> rs = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            double[] ta = timed(spark, qa, expect);
            double[] tb = b != null ? timed(spark, qb, expect) : null;
            rs.add(tb == null ? ta : new double[] {ta[0], ta[1], tb[0], tb[1]});
            System.out.printf(Locale.ROOT, "run %d %.4f %.4f%s%n", i, ta[0], ta[1],
                    tb == null ? "" : String.format(Locale.ROOT, " %.4f %.4f %.3f", tb[0], tb[1], tb[0] / ta[0]));
        }
        StringBuilder sb = new StringBuilder("median");
        for (int k = 0; k < rs.get(0).length; k++) {
            final int kk = k;
            sb.append(String.format(Locale.ROOT, " %.4f", median(rs.stream().mapToDouble(r -> r[kk]).toArray())));
        }
        if (b != null) {
            sb.append(String.format(Locale.ROOT, " wall-ratio %.3f cpu-ratio %.3f",
                    median(rs.stream().mapToDouble(r -> r[2] / r[0]).toArray()),
                    median(rs.stream().mapToDouble(r -> r[3] / r[1]).toArray())));
        }
        System.out.println(sb);
        spark.stop();
    }

    private static void view(SparkSession spark, Path dir, String table, Map<String, String> o, String name) {
        switch (table) {
            case "csv" -> spark.read().format("smartssd").schema(SparkBench.SCHEMA).options(o)
                    .load("smartssd://b0/weblog.csv").createOrReplaceTempView(name);
            case "parquet" -> spark.read().format("smartssd").option("format", "parquet").options(o)
                    .load("smartssd://b0/weblog.parquet").createOrReplaceTempView(name);
            case "spark_parquet" -> spark.read().parquet(dir.resolve("weblog.parquet").toString())
                    .createOrReplaceTempView(name);
            default -> throw new IllegalArgumentException("smartssd.times.table: no table " + table);
        }
    }

    /** Job and task times (epoch ms, Spark's own stamps) of the last query (smartssd.times.phases). */
    static final class Phases extends org.apache.spark.scheduler.SparkListener {
        volatile long jobStart;
        volatile long jobEnd;
        volatile long firstTask = Long.MAX_VALUE;
        volatile long lastTaskEnd;
        volatile int jobs;
        volatile int tasks;
        volatile long deser;
        volatile long run;

        synchronized void reset() {
            jobStart = 0;
            jobEnd = 0;
            firstTask = Long.MAX_VALUE;
            lastTaskEnd = 0;
            jobs = 0;
            tasks = 0;
            deser = 0;
            run = 0;
        }

        @Override
        public synchronized void onJobStart(org.apache.spark.scheduler.SparkListenerJobStart e) {
            if (jobs++ == 0) {
                jobStart = e.time();
            }
        }

        @Override
        public synchronized void onJobEnd(org.apache.spark.scheduler.SparkListenerJobEnd e) {
            jobEnd = e.time();
        }

        @Override
        public synchronized void onTaskStart(org.apache.spark.scheduler.SparkListenerTaskStart e) {
            tasks++;
            firstTask = Math.min(firstTask, e.taskInfo().launchTime());
        }

        @Override
        public synchronized void onTaskEnd(org.apache.spark.scheduler.SparkListenerTaskEnd e) {
            lastTaskEnd = Math.max(lastTaskEnd, e.taskInfo().finishTime());
            if (e.taskMetrics() != null) {
                deser += e.taskMetrics().executorDeserializeTime();
                run += e.taskMetrics().executorRunTime();
            }
        }
    }

    static final Phases PHASES = new Phases();

    private static double[] timed(SparkSession spark, String sql, String expect) {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long c0 = os.getProcessCpuTime();
        long e0 = System.currentTimeMillis();
        long t0 = System.nanoTime();
        org.apache.spark.sql.Dataset<Row> df = spark.sql(sql);
        if (Boolean.getBoolean("smartssd.times.planning")) {
            df.queryExecution().executedPlan(); // planned before the clock's second half
            System.out.printf(Locale.ROOT, "planning %.4f s wall, %.4f s cpu%n", (System.nanoTime() - t0) / 1e9,
                    (os.getProcessCpuTime() - c0) / 1e9);
        }
        PHASES.reset();
        List<Row> rows = df.collectAsList();
        long t1 = System.nanoTime();
        double wall = (t1 - t0) / 1e9;
        if (Boolean.getBoolean("smartssd.times.phases")) {
            // the listener bus is asynchronous: its events land a little after the calls
            try {
                spark.sparkContext().listenerBus().waitUntilEmpty(1000);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            System.out.printf(Locale.ROOT, "phases ms: job start %.1f, first task %.1f, last task end %.1f,"
                    + " job end %.1f, collect returns %.1f; %d jobs %d tasks (deserialize %d, run %d)%n", (double) (PHASES.jobStart - e0),
                    (double) (PHASES.firstTask - e0), (double) (PHASES.lastTaskEnd - e0), (double) (PHASES.jobEnd - e0),
                    ms(t1, t0), PHASES.jobs, PHASES.tasks, PHASES.deser, PHASES.run);
        }
        double cpu = (os.getProcessCpuTime() - c0) / 1e9;
        if (!canonical(rows).equals(expect)) {
            throw new IllegalStateException("answer changed: " + sql);
        }
        return new double[] {wall, cpu};
    }

    private static double ms(long t, long t0) {
        return (t - t0) / 1e6;
    }

    private static void writePlan(org.apache.spark.sql.Dataset<Row> df, Path out) {
        df.collectAsList();
        var found = df.queryExecution().executedPlan().collect(new scala.runtime.AbstractPartialFunction<
                org.apache.spark.sql.execution.SparkPlan, Object>() {
            @Override
            public boolean isDefinedAt(org.apache.spark.sql.execution.SparkPlan p) {
                return p instanceof org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
            }

            @Override
            public Object apply(org.apache.spark.sql.execution.SparkPlan p) {
                return ((org.apache.spark.sql.execution.datasources.v2.BatchScanExec) p).scan();
            }
        });
        try {
            Object scan = found.head();
            var m = scan.getClass().getDeclaredMethod("plan");
            m.setAccessible(true);
            java.nio.file.Files.write(out, ((com.google.protobuf.MessageLite) m.invoke(scan)).toByteArray());
        } catch (ReflectiveOperationException | java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, String> opts(String s) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String kv : s.split(",")) {
            if (!kv.isEmpty()) {
                int eq = kv.indexOf('=');
                m.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        return m;
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        java.util.Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static String canonical(List<Row> rows) {
        return rows.stream().map(Row::toString).sorted().reduce("", (x, y) -> x + y + ";");
    }
}
