package io.smartssd.examples.weblog;

import java.util.Locale;

/** The paper's two web-log queries (V-C). */
public enum WeblogQuery {
    /** Accesses per region: one field per entry, then a reduce that sums. */
    Q1("weblog-q1"),
    /** Per region, accesses per file type and the top-N types: two fields, merged and sorted. */
    Q2("weblog-q2");

    private final String tasklet;

    WeblogQuery(String tasklet) {
        this.tasklet = tasklet;
    }

    /** The device tasklet that answers it. */
    public String tasklet() {
        return tasklet;
    }

    public static WeblogQuery parse(String s) {
        switch (s.toLowerCase(Locale.ROOT)) {
            case "q1":
            case "weblog-q1":
                return Q1;
            case "q2":
            case "weblog-q2":
                return Q2;
            default:
                throw new IllegalArgumentException("unknown query '" + s + "': q1 (accesses per region) or q2"
                        + " (top file types per region)");
        }
    }

    public String shortName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
