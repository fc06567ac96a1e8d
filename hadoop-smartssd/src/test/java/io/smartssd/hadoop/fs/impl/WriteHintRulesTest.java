package io.smartssd.hadoop.fs.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.hadoop.fs.Constants;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.PathMatcher;
import java.nio.file.Paths;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

/**
 * The hint a write to each path resolves to: rule order, each glob operator, the fallback, and bad keys
 * failing with the key, the rule and the reason. Globs without braces are checked against the JDK's own
 * glob matcher (same meaning of **, * and ? on '/'-separated paths).
 */
class WriteHintRulesTest {
    static final String RULES = "/tmp/**=1, **/_temporary/**=1, **/.spark-staging-*/**=1, **/*.{ckpt,chk}=2,"
            + " /warehouse/*/part-?????=5";

    static Configuration conf(String rules, String fallback) {
        Configuration c = new Configuration(false);
        if (rules != null) {
            c.set(Constants.WRITE_HINT_RULES, rules);
        }
        if (fallback != null) {
            c.set(Constants.WRITE_HINT, fallback);
        }
        return c;
    }

    @Test
    void eachRuleGivesItsHintAndTheRestTheFallback() throws IOException {
        WriteHintRules r = WriteHintRules.from(conf(RULES, "4"));
        assertEquals(5, r.rules().size());
        assertEquals(1, r.hintFor("/tmp/stage1/part-0"));
        assertEquals(1, r.hintFor(new Path("smartssd://d0/out/_temporary/0/_temporary/attempt_1/part-r-00000")));
        assertEquals(1, r.hintFor("/_temporary/x"));                                 // ** matches no directory too
        assertEquals(1, r.hintFor("/t/.spark-staging-3f2a/p=1/part-0"));
        assertEquals(2, r.hintFor("/state/run.ckpt"));
        assertEquals(2, r.hintFor("/state/deep/a.chk"));
        assertEquals(5, r.hintFor("/warehouse/sales/part-00007"));
        assertEquals(4, r.hintFor("/warehouse/sales/part-0007"));                   // ? is exactly one character
        assertEquals(4, r.hintFor("/warehouse/a/b/part-00007"));                    // * stays within a segment
        assertEquals(4, r.hintFor("/out/part-r-00000"));
        assertEquals(4, r.hintFor("/tmpfile"));                                      // /tmp/** needs the slash
        assertEquals(4, r.hintFor("/state/run.ckpt.bak"));
        // the first matching rule wins: /tmp/x.ckpt matches both rule 1 and rule 4
        assertEquals(1, r.hintFor("/tmp/x.ckpt"));
        assertEquals(2, WriteHintRules.parse("**/*.ckpt=2,/tmp/**=1", 0).hintFor("/tmp/x.ckpt"));
    }

    @Test
    void globsMeanWhatTheJdkGlobMeans() throws IOException {
        List<String> globs = List.of("/tmp/**", "**/_temporary/**", "/a/*/b", "/a/?x/*", "**/*.ckpt", "/x/**/y");
        List<String> paths = List.of("/tmp/a", "/tmp/a/b/c", "/tmp", "/a/_temporary/b", "/a/b/_temporary/c/d",
                "/a/q/b", "/a/q/r/b", "/a/qx/z", "/a/qqx/z", "/a/b.ckpt", "/b.ckpt", "/x/y", "/x/m/n/y", "/x/my");
        for (String g : globs) {
            PathMatcher jdk = FileSystems.getDefault().getPathMatcher("glob:" + g);
            WriteHintRules ours = WriteHintRules.parse(g + "=9", 0);
            for (String p : paths) {
                assertEquals(jdk.matches(Paths.get(p)) ? 9 : 0, ours.hintFor(p), g + " on " + p);
            }
        }
    }

    @Test
    void defaultsAreNoRulesAndNoHint() throws IOException {
        WriteHintRules r = WriteHintRules.from(new Configuration(false));
        assertEquals(0, r.rules().size());
        assertEquals(Constants.DEFAULT_WRITE_HINT, r.fallback());
        assertEquals(0, r.hintFor("/anything"));
        assertEquals(3, WriteHintRules.from(conf(null, "3")).hintFor("/anything"));
        assertEquals(0, WriteHintRules.from(conf(" , ,", null)).rules().size());   // empty entries are skipped
    }

    @Test
    void literalCharactersOfRegularExpressionsAreLiteral() throws IOException {
        WriteHintRules r = WriteHintRules.parse("/a+b/(c)/x.y=3", 0);
        assertEquals(3, r.hintFor("/a+b/(c)/x.y"));
        assertEquals(0, r.hintFor("/aab/(c)/x.y"));
        assertEquals(0, r.hintFor("/a+b/(c)/xzy"));
    }

    @Test
    void badKeysFailNamingTheKeyTheRuleAndTheReason() {
        assertBad(conf("/tmp/**", null), Constants.WRITE_HINT_RULES, "'/tmp/**'", "not glob=hint");
        assertBad(conf("=1", null), Constants.WRITE_HINT_RULES, "'=1'", "not glob=hint");
        assertBad(conf("/tmp/**=", null), Constants.WRITE_HINT_RULES, "'/tmp/**='", "not glob=hint");
        assertBad(conf("/tmp/**=hot", null), Constants.WRITE_HINT_RULES, "'/tmp/**=hot'", "integer 0..255");
        assertBad(conf("/tmp/**=-2", null), Constants.WRITE_HINT_RULES, "-2", "integer 0..255");
        assertBad(conf("/tmp/**=99999999999", null), Constants.WRITE_HINT_RULES, "99999999999", "integer 0..255");
        assertBad(conf("/tmp/**=256", null), Constants.WRITE_HINT_RULES, "256", "integer 0..255");
        assertBad(conf("/a/{b,{c}}=1", null), Constants.WRITE_HINT_RULES, "{b,{c}}", "nested braces");
        assertBad(conf("/a/{b=1", null), Constants.WRITE_HINT_RULES, "/a/{b=1", "'{' without '}'");
        assertBad(conf("/a/b}=1", null), Constants.WRITE_HINT_RULES, "/a/b}=1", "'}' without '{'");
        assertBad(conf(null, "-1"), Constants.WRITE_HINT, "-1", "integer 0..255");
        assertBad(conf(null, "level2"), Constants.WRITE_HINT, "level2", "integer 0..255");
    }

    private static void assertBad(Configuration c, String... parts) {
        IOException e = assertThrows(IOException.class, () -> WriteHintRules.from(c));
        for (String p : parts) {
            assertTrue(e.getMessage().contains(p), "'" + p + "' in: " + e.getMessage());
        }
    }
}
