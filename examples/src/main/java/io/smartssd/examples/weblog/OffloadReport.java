package io.smartssd.examples.weblog;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a device-version run's splits ran under {@code smartssd.offload} host or auto: the plan's line, the
 * offload counters, and the job's per-split report (one JSON line per split, in the order they finished).
 *
 * @param summary     the plan at submission (splits per lane, predicted makespan and energy)
 * @param deviceSplits splits that ran on the device
 * @param hostSplits  splits that ran on the host
 * @param replanned   splits that left their planned lane at their start
 * @param splits      the per-split report lines (JSON)
 */
public record OffloadReport(String summary, long deviceSplits, long hostSplits, long replanned, List<String> splits) {
    private static final Pattern FIELD = Pattern.compile("\"(\\w+)\":(\"((?:[^\"\\\\]|\\\\.)*)\"|-?\\d+)");

    public OffloadReport {
        splits = List.copyOf(splits);
    }

    /** One human line per split: index, device, planned and actual lane, predicted and actual ms, why. */
    public List<String> lines() {
        return splits.stream().map(OffloadReport::line).toList();
    }

    static String line(String json) {
        java.util.Map<String, String> f = new java.util.HashMap<>();
        Matcher m = FIELD.matcher(json);
        while (m.find()) {
            f.put(m.group(1), m.group(3) != null ? m.group(3) : m.group(2));
        }
        return String.format(Locale.ROOT, "split %s (%s, %s B): planned %s, ran %s; predicted %.1f ms, took %.1f ms; %s",
                f.get("split"), f.get("device"), f.get("bytes"), f.get("planned"), f.get("lane"),
                num(f.get("predicted_ns")) / 1e6, num(f.get("actual_ns")) / 1e6, f.getOrDefault("why", ""));
    }

    private static double num(String s) {
        return s == null ? Double.NaN : Double.parseDouble(s);
    }

    String toJson() {
        StringBuilder sb = new StringBuilder("{\"summary\":\"").append(summary.replace("\"", "\\\""))
                .append("\",\"device_splits\":").append(deviceSplits).append(",\"host_splits\":").append(hostSplits)
                .append(",\"replanned\":").append(replanned).append(",\"splits\":[");
        for (int i = 0; i < splits.size(); i++) {
            sb.append(i > 0 ? "," : "").append(splits.get(i).strip());
        }
        return sb.append("]}").toString();
    }
}
