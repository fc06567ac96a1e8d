package io.smartssd.hadoop.fs.impl;

import static io.smartssd.hadoop.fs.Constants.DEFAULT_WRITE_HINT;
import static io.smartssd.hadoop.fs.Constants.DEFAULT_WRITE_HINT_RULES;
import static io.smartssd.hadoop.fs.Constants.WRITE_HINT;
import static io.smartssd.hadoop.fs.Constants.WRITE_HINT_RULES;

import io.smartssd.device.WriteHints;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * The placement hint of a file's writes, from its path: {@code fs.smartssd.write.hint.rules} ({@code glob=hint,...},
 * the first matching glob wins) over {@code fs.smartssd.write.hint} (the rest). Globs match the path part
 * of the file's URI ({@code /out/_temporary/0/part-0}): {@code **} anything, {@code *} and {@code ?} within
 * one segment, {@code {a,b}} alternatives (commas inside braces do not separate rules).
 */
public final class WriteHintRules {
    /** One rule as written and its compiled glob. */
    public record Rule(String glob, int hint, Pattern pattern) {
    }

    private final List<Rule> rules;
    private final int fallback;

    private WriteHintRules(List<Rule> rules, int fallback) {
        this.rules = List.copyOf(rules);
        this.fallback = fallback;
    }

    /** The rules a configuration states; a malformed key fails naming the key, the rule and what is wrong. */
    public static WriteHintRules from(Configuration conf) throws IOException {
        String fb = conf.getTrimmed(WRITE_HINT, String.valueOf(DEFAULT_WRITE_HINT));
        int fallback = hint(fb, WRITE_HINT + " = " + fb);
        return parse(conf.getTrimmed(WRITE_HINT_RULES, DEFAULT_WRITE_HINT_RULES), fallback);
    }

    /** Rules from the text of {@code fs.smartssd.write.hint.rules}, fallback for paths matching none. */
    public static WriteHintRules parse(String text, int fallback) throws IOException {
        List<Rule> rules = new ArrayList<>();
        for (String part : splitTopLevel(text)) {
            String r = part.trim();
            if (r.isEmpty()) {
                continue;
            }
            int eq = r.lastIndexOf('=');
            String where = WRITE_HINT_RULES + ": rule '" + r + "'";
            if (eq <= 0 || eq == r.length() - 1) {
                throw new IOException(where + " is not glob=hint (e.g. /tmp/**=1)");
            }
            String glob = r.substring(0, eq).trim();
            rules.add(new Rule(glob, hint(r.substring(eq + 1).trim(), where), compile(glob, where)));
        }
        return new WriteHintRules(rules, fallback);
    }

    /** The hint of writes to path (qualified or not: only its path part is matched). */
    public int hintFor(Path path) {
        return hintFor(path.toUri().getPath());
    }

    /** The hint of writes to a path given as its path part, e.g. {@code /out/part-0}. */
    public int hintFor(String path) {
        for (Rule r : rules) {
            if (r.pattern().matcher(path).matches()) {
                return r.hint();
            }
        }
        return fallback;
    }

    public List<Rule> rules() {
        return rules;
    }

    public int fallback() {
        return fallback;
    }

    private static int hint(String s, String where) throws IOException {
        try {
            int h = Integer.parseInt(s);
            if (h >= 0 && h <= WriteHints.MAX) {
                return h;
            }
        } catch (NumberFormatException e) {
            // the message below says what a hint is
        }
        throw new IOException(where + ": a hint is an integer 0.." + WriteHints.MAX + " (0 = none), got '" + s + "'");
    }

    private static List<String> splitTopLevel(String text) throws IOException {
        List<String> out = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '{') {
                depth++;
            } else if (c == '}') {
                depth--;
            } else if (c == ',' && depth == 0) {
                out.add(text.substring(start, i));
                start = i + 1;
            }
        }
        out.add(text.substring(start));
        return out;
    }

    /** glob to a regular expression; everything but the glob operators is literal. */
    static Pattern compile(String glob, String where) throws IOException {
        StringBuilder re = new StringBuilder();
        boolean inBraces = false;
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            switch (c) {
                case '*':
                    if (i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                        re.append(".*");
                        i++;
                    } else {
                        re.append("[^/]*");
                    }
                    break;
                case '?':
                    re.append("[^/]");
                    break;
                case '{':
                    if (inBraces) {
                        throw new IOException(where + ": nested braces are not supported");
                    }
                    inBraces = true;
                    re.append("(?:");
                    break;
                case '}':
                    if (!inBraces) {
                        throw new IOException(where + ": '}' without '{'");
                    }
                    inBraces = false;
                    re.append(')');
                    break;
                case ',':
                    re.append(inBraces ? "|" : Pattern.quote(","));
                    break;
                default:
                    re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        if (inBraces) {
            throw new IOException(where + ": '{' without '}'");
        }
        return Pattern.compile(re.toString());
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (Rule r : rules) {
            b.append(r.glob()).append('=').append(r.hint()).append(',');
        }
        return b.append("*=").append(fallback).toString();
    }
}
