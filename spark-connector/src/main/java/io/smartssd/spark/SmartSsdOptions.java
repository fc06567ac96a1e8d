package io.smartssd.spark;

import java.io.Serializable;
import java.util.Locale;
import java.util.Map;

/**
 * Every option of the {@code smartssd} format, parsed and checked once, at analysis time. A value is
 * taken from the read option {@code KEY}, else the session conf {@code spark.smartssd.KEY}, else the
 * default below (docs/SPARK.md lists them). A malformed value throws {@link IllegalArgumentException}
 * naming the option.
 */
final class SmartSsdOptions implements Serializable {
    private static final long serialVersionUID = 1L;

    static final String SESSION_PREFIX = "spark.smartssd.";

    static final String PATH = "path";
    static final String FORMAT = "format";
    static final String ENTRY_BYTES = "entry_bytes";
    static final String DELIMITER = "delimiter";
    static final String HEADER = "header";
    static final String QUOTE = "quote";
    static final String ESCAPE = "escape";
    static final String SPLIT_SIZE = "split_size";
    static final String PUSHDOWN = "pushdown";
    static final String COLUMNAR = "columnar";
    static final String BATCH_ROWS = "batch_rows";
    static final String AGGREGATE_COMPLETE = "pushdown.aggregate.complete";
    static final String TOPN_ONE_PARTITION = "pushdown.topn.one_partition";
    static final String REQUESTS_IN_FLIGHT = "requests_in_flight";

    static final String FORMAT_WC98 = "wc98";
    static final String FORMAT_CSV = "csv";
    static final String FORMAT_TEXT = "text";
    static final String FORMAT_PARQUET = "parquet";

    static final int DEFAULT_ENTRY_BYTES = Wc98Layout.RECORD_BYTES;
    static final int MAX_ENTRY_BYTES = 1 << 20;
    /**
     * 128 MiB, as Spark's spark.sql.files.maxPartitionBytes: each partition is a device request whose setup
     * and ramp cost about 13 ms of host CPU, so 32 MiB splits of a 1 GiB object cost 0.25-0.35 s per query
     * (docs/PERFORMANCE.md, "Spark: smartssd vs CSV vs Parquet").
     */
    static final long DEFAULT_SPLIT_SIZE = 128L << 20;
    static final int DEFAULT_BATCH_ROWS = 4096;

    final String path;
    final String format;
    final int entryBytes;
    final String delimiter;
    final String quote;   // "" = no quoting
    final String escape;  // "" = none
    final boolean header;
    final long splitSize;
    final boolean pushdown;
    final boolean columnar;
    final int batchRows;
    /** Pushed aggregates: every extent's partial groups merged in one partition (no exchange in Spark). */
    final boolean aggregateComplete;
    /** A pushed top-N: every extent's request from one partition, Spark's take over their rows. */
    final boolean topNOnePartition;
    /** A one-partition scan: extents' requests running on the device at once. */
    final int requestsInFlight;
    /** Option offload (device, host, auto) and its offload.* settings (docs/OFFLOAD.md). */
    final io.smartssd.device.offload.OffloadSettings offload;

    private SmartSsdOptions(Lookup in) {
        this.path = in.get(PATH, "");
        if (path.isEmpty()) {
            throw new IllegalArgumentException("option " + PATH + " is required: load(\"smartssd://<device>/<object>\")"
                    + " or OPTIONS (path 'smartssd://...')");
        }
        if (!path.startsWith("smartssd://")) {
            throw new IllegalArgumentException("option " + PATH + " = '" + path
                    + "': the smartssd format reads smartssd://<device>/<object> paths only");
        }
        this.format = in.get(FORMAT, FORMAT_CSV).toLowerCase(Locale.ROOT);
        if (!format.equals(FORMAT_WC98) && !format.equals(FORMAT_CSV) && !format.equals(FORMAT_TEXT)
                && !format.equals(FORMAT_PARQUET)) {
            throw new IllegalArgumentException("option " + FORMAT + " = '" + format
                    + "' is not one of wc98|csv|text|parquet");
        }
        long eb = bytes(ENTRY_BYTES, in.get(ENTRY_BYTES, String.valueOf(DEFAULT_ENTRY_BYTES)));
        if (eb < Wc98Layout.RECORD_BYTES || eb > MAX_ENTRY_BYTES) {
            throw new IllegalArgumentException("option " + ENTRY_BYTES + " = " + eb + " is out of range ["
                    + Wc98Layout.RECORD_BYTES + ", " + MAX_ENTRY_BYTES + "] (a WorldCup98 record is 20 bytes,"
                    + " padded records are longer)");
        }
        this.entryBytes = (int) eb;
        // As Spark's CSV reader (CSVOptions): `sep` before `delimiter`, the value as given (a space or a tab
        // delimits), Spark's own parser for its escapes (\t, \\, \u0000, ...) and its errors.
        String rawDelimiter = in.raw("sep", in.raw(DELIMITER, ","));
        String d;
        try {
            d = org.apache.spark.sql.catalyst.csv.CSVExprUtils.toDelimiterStr(rawDelimiter);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("option " + DELIMITER + " = '" + rawDelimiter + "': " + e.getMessage(), e);
        }
        if (d.getBytes(java.nio.charset.StandardCharsets.UTF_8).length != 1 || d.equals("\n") || d.equals("\r")) {
            throw new IllegalArgumentException("option " + DELIMITER + " = '" + rawDelimiter
                    + "' must be one single-byte character other than CR/LF (the device splits lines on one byte;"
                    + " Spark's CSV reader also takes longer delimiters)");
        }
        this.delimiter = d;
        // Spark's CSV defaults and rules (CSVOptions.getChar): one character taken as given, no escapes;
        // an empty value turns quoting (or escaping) off
        this.quote = quoteChar(QUOTE, sparkChar(QUOTE, in.raw(QUOTE, "\"")), d);
        this.escape = quoteChar(ESCAPE, sparkChar(ESCAPE, in.raw(ESCAPE, "\\")), d);
        this.header = bool(HEADER, in.get(HEADER, "false"));
        this.splitSize = bytes(SPLIT_SIZE, in.get(SPLIT_SIZE, String.valueOf(DEFAULT_SPLIT_SIZE)));
        if (splitSize <= 0) {
            throw new IllegalArgumentException("option " + SPLIT_SIZE + " = " + splitSize + " must be positive");
        }
        this.pushdown = bool(PUSHDOWN, in.get(PUSHDOWN, "true"));
        this.columnar = bool(COLUMNAR, in.get(COLUMNAR, "true"));
        long br = bytes(BATCH_ROWS, in.get(BATCH_ROWS, String.valueOf(DEFAULT_BATCH_ROWS)));
        if (br < 1 || br > (1 << 20)) {
            throw new IllegalArgumentException("option " + BATCH_ROWS + " = " + br + " is out of range [1, 1048576]");
        }
        this.batchRows = (int) br;
        this.aggregateComplete = bool(AGGREGATE_COMPLETE, in.get(AGGREGATE_COMPLETE, "true"));
        this.topNOnePartition = bool(TOPN_ONE_PARTITION, in.get(TOPN_ONE_PARTITION, "false"));
        long rif = bytes(REQUESTS_IN_FLIGHT, in.get(REQUESTS_IN_FLIGHT, "2"));
        if (rif < 1 || rif > 1024) {
            throw new IllegalArgumentException("option " + REQUESTS_IN_FLIGHT + " = " + rif + " is out of range [1, 1024]");
        }
        this.requestsInFlight = (int) rif;
        this.offload = io.smartssd.device.offload.OffloadSettings.read("offload", k -> in.raw(k, null),
                Runtime.getRuntime().availableProcessors());
    }

    private static String quoteChar(String name, String v, String delimiter) {
        if (v.isEmpty()) {
            return v;
        }
        if (v.getBytes(java.nio.charset.StandardCharsets.UTF_8).length != 1 || v.equals("\n") || v.equals("\r")
                || v.equals(delimiter)) {
            throw new IllegalArgumentException("option " + name + " = '" + v
                    + "' must be empty or one single-byte character other than CR/LF and the delimiter");
        }
        return v;
    }

    /** Spark's CSVOptions.getChar: empty (off) or exactly one character. */
    private static String sparkChar(String key, String v) {
        if (v.length() > 1) {
            throw new IllegalArgumentException("option " + key + " = '" + v
                    + "' must be one character or empty (as for Spark's CSV reader)");
        }
        return v;
    }

    /** Options from the read options (case-insensitive keys) over the session conf entries. */
    static SmartSsdOptions parse(Map<String, String> readOptions, Map<String, String> sessionConf) {
        return new SmartSsdOptions(new Lookup() {
            @Override
            public String raw(String key, String dflt) {
                String v = readOptions.get(key);
                if (v == null) {
                    v = sessionConf.get(SESSION_PREFIX + key);
                }
                return v == null ? dflt : v;
            }
        });
    }

    boolean isWc98() {
        return format.equals(FORMAT_WC98);
    }

    boolean isText() {
        return format.equals(FORMAT_TEXT);
    }

    boolean isParquet() {
        return format.equals(FORMAT_PARQUET);
    }

    private interface Lookup {
        /** The value as given: characters (delimiter, quote, escape) keep their spaces. */
        String raw(String key, String dflt);

        /** Names, numbers and flags: surrounding spaces do not count. */
        default String get(String key, String dflt) {
            return raw(key, dflt).trim();
        }
    }

    static boolean bool(String key, String v) {
        switch (v.toLowerCase(Locale.ROOT)) {
            case "true": case "1": case "yes": case "on":
                return true;
            case "false": case "0": case "no": case "off":
                return false;
            default:
                throw new IllegalArgumentException("option " + key + " = '" + v + "' is not a boolean (true/false)");
        }
    }

    /** A byte count: digits with an optional k/m/g suffix (powers of 1024). */
    static long bytes(String key, String v) {
        String s = v.toLowerCase(Locale.ROOT);
        long mult = 1;
        if (s.endsWith("b")) {
            s = s.substring(0, s.length() - 1);
        }
        if (!s.isEmpty()) {
            char c = s.charAt(s.length() - 1);
            int shift = c == 'k' ? 10 : c == 'm' ? 20 : c == 'g' ? 30 : 0;
            if (shift != 0) {
                mult = 1L << shift;
                s = s.substring(0, s.length() - 1);
            }
        }
        try {
            return Math.multiplyExact(Long.parseLong(s), mult);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("option " + key + " = '" + v + "' is not a number"
                    + (key.equals(SPLIT_SIZE) ? " of bytes (e.g. 64m)" : ""));
        }
    }
}
