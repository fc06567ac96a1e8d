package io.smartssd.device;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.proto.Row;
import io.smartssd.proto.Value;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Java API and the device CLI ({@code csd ... --json}, native/target/build/csd) agree on the same
 * image, in both modes: the image is formatted and filled by the CLI, the CLI's answers are recorded,
 * then the same questions are asked through SmartSsd (embedded, or via a csdd on the image); and what
 * Java writes, the CLI reads back afterwards.
 */
@ParameterizedClass
@EnumSource(Mode.class)
class CliAgreementTest {
    /** JSON integers as Long, objects in document order: how the assertions below compare them. */
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_LONG_FOR_INTS);

    @Parameter
    Mode mode;
    @TempDir
    Path dir;

    /** Runs csd with args; returns its stdout (exit status 0 required). */
    private static String csd(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Daemon.binary("csd").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "csd " + String.join(" ", args) + " did not finish");
        assertEquals(0, p.exitValue(), "csd " + String.join(" ", args) + ":\n" + out);
        return out;
    }

    private static Map<String, Object> json(String... args) throws IOException, InterruptedException {
        String[] all = new String[args.length + 1];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--json";
        return JSON.readValue(csd(all).trim(), new TypeReference<LinkedHashMap<String, Object>>() { });
    }

    /** One tasklet run, as `csd run` takes it. */
    private record RunSpec(String tasklet, String input, Map<String, String> params, List<String> keywords,
                           long offset, long length) {
        List<String> cliArgs(Path image) {
            List<String> a = new ArrayList<>(List.of("run", image.toString(), tasklet, "--input", input));
            params.forEach((k, v) -> a.addAll(List.of("--param", k + "=" + v)));
            keywords.forEach(k -> a.addAll(List.of("--keyword", k)));
            if (length > 0) {
                a.addAll(List.of("--offset", Long.toString(offset), "--length", Long.toString(length)));
            }
            a.add("--json");
            return a;
        }
    }

    /** A row as the CLI prints it: strings, integers, doubles, booleans, null. */
    private static List<Object> plain(Row r) {
        List<Object> out = new ArrayList<>();
        for (Value v : r.getValuesList()) {
            switch (v.getVCase()) {
                case I: out.add(v.getI()); break;
                case D: out.add(v.getD()); break;
                case S: out.add(v.getS().toStringUtf8()); break;
                case B: out.add(v.getB()); break;
                default: out.add(null);
            }
        }
        return out;
    }

    /** The same run through SmartSsd, in the CLI's JSON shape (the fields both report). */
    private static Map<String, Object> javaRun(SmartSsd ssd, RunSpec s) {
        long data = ssd.stat(s.input()).info().id();
        long t = ssd.createTasklet(s.tasklet(), s.params()).id();
        long out = ssd.createOutput(Map.of(), s.keywords(), 0).id();
        try {
            Executed ex = ssd.execute(t, out, s.length() > 0 ? Extent.of(data, s.offset(), s.length()) : Extent.whole(data));
            ResultStream rs = ssd.results(out);
            List<Object> rows = new ArrayList<>();
            rs.forEachRemaining(r -> rows.add(plain(r)));
            TaskProgress p = rs.progress();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("rows", rows);
            m.put("row_count", p.rows());
            m.put("truncated", p.truncated());
            m.put("pages", ex.pagesTotal());
            m.put("flash_bytes_read", p.flashBytesRead());
            m.put("bytes_to_host", p.bytesToHost());
            return m;
        } finally {
            ssd.delete(out);
            ssd.delete(t);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cliRun(Path image, RunSpec s) throws IOException, InterruptedException {
        Map<String, Object> j = json(s.cliArgs(image).subList(0, s.cliArgs(image).size() - 1).toArray(new String[0]));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rows", ((Map<String, Object>) j.get("results")).get("rows"));
        for (String k : List.of("row_count", "truncated", "pages", "flash_bytes_read", "bytes_to_host")) {
            m.put(k, j.get(k));
        }
        return m;
    }

    @Test
    @SuppressWarnings("unchecked")
    void javaAndTheCliAgreeOnTheSameImage() throws Exception {
        Path image = dir.resolve("cli.img");
        csd("format", image.toString(), "--capacity", "32M", "--preset", "tiny");
        byte[] wc98 = Wc98.generate(60_000, 20, 21);
        byte[] text = ("GET /english/index.html\nGET /images/logo.gif\nPOST /french/form\r\n"
                + "GET /english/teams/index.html\n").repeat(700).getBytes(StandardCharsets.US_ASCII);
        byte[] rnd = new byte[123_457];
        new Random(22).nextBytes(rnd);
        Map<String, byte[]> files = new LinkedHashMap<>();
        files.put("logs/wc98.bin", wc98);
        files.put("logs/access.txt", text);
        files.put("random.bin", rnd);
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            Path p = dir.resolve(f.getKey().replace('/', '_'));
            Files.write(p, f.getValue());
            csd("put", image.toString(), f.getKey(), p.toString());
        }
        List<RunSpec> runs = List.of(
                new RunSpec("weblog-q1", "logs/wc98.bin", Map.of("entry_bytes", "20"), List.of(), 0, 0),
                new RunSpec("weblog-q1", "logs/wc98.bin", Map.of("entry_bytes", "20"), List.of(), 4097, 500_003),
                new RunSpec("weblog-q2", "logs/wc98.bin", Map.of("top_n", "3"), List.of(), 0, 0),
                new RunSpec("filter", "logs/wc98.bin", Map.of("field_offset", "12", "op", "gt", "value", "59900",
                        "mode", "lbas"), List.of(), 0, 0),
                new RunSpec("grep", "logs/access.txt", Map.of(), List.of("english"), 0, 0),
                new RunSpec("grep", "logs/access.txt", Map.of("mode", "lines", "pattern", "POST"), List.of(), 100, 20_000));

        // What the CLI says, each command a fresh device session on the image.
        Map<String, Object> cliIdentify = json("identify", image.toString());
        List<Object> cliLs = (List<Object>) json("ls", image.toString()).get("objects");
        List<Map<String, Object>> cliRuns = new ArrayList<>();
        for (RunSpec s : runs) {
            Map<String, Object> r = cliRun(image, s);
            assertTrue(!((List<Object>) r.get("rows")).isEmpty(), "a run with rows to compare: " + s);
            cliRuns.add(r);
        }
        assertEquals(Wc98.q1(wc98, 20, 0, wc98.length).size(), ((List<Object>) cliRuns.get(0).get("rows")).size(),
                "the CLI's q1 has a row per region");

        byte[] fromJava = new byte[200_000];
        new Random(23).nextBytes(fromJava);
        try (TestDevice dev = TestDevice.open(mode, image)) {
            SmartSsd ssd = dev.ssd();
            // identify
            DeviceIdentity id = ssd.identify();
            Map<String, Object> g = (Map<String, Object>) cliIdentify.get("geometry");
            assertEquals(cliIdentify.get("model"), id.model());
            assertEquals(cliIdentify.get("preset"), id.preset());
            assertEquals(cliIdentify.get("capacity_bytes"), id.capacityBytes());
            assertEquals(cliIdentify.get("physical_bytes"), id.physicalBytes());
            assertEquals(cliIdentify.get("cores"), (long) id.cores());
            assertEquals(cliIdentify.get("request_scheduler"), id.requestScheduler());
            assertEquals(cliIdentify.get("chip_scheduler"), id.chipScheduler());
            assertEquals(cliIdentify.get("ftl"), id.ftl());
            assertEquals(cliIdentify.get("protocol_version"), (long) id.protocolVersion());
            assertEquals(cliIdentify.get("tasklets"), id.tasklets());
            assertEquals(cliIdentify.get("params"), new LinkedHashMap<String, Object>(id.params()));
            DeviceIdentity.Geometry jg = id.geometry();
            assertEquals(List.of(g.get("channels"), g.get("chips_per_channel"), g.get("dies_per_chip"),
                            g.get("planes_per_die"), g.get("blocks_per_plane"), g.get("pages_per_block"), g.get("page_bytes")),
                    List.of((long) jg.channels(), (long) jg.chipsPerChannel(), (long) jg.diesPerChip(),
                            (long) jg.planesPerDie(), (long) jg.blocksPerPlane(), (long) jg.pagesPerBlock(),
                            (long) jg.pageBytes()));
            // ls
            List<Object> javaLs = new ArrayList<>();
            for (ObjectInfo o : ssd.list("").objects()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", o.name());
                m.put("object_id", o.id());
                m.put("size", o.size());
                m.put("pages", o.pages());
                m.put("mtime_ms", o.mtimeMillis());
                m.put("atime_ms", o.atimeMillis());
                m.put("ctime_ms", o.ctimeMillis());
                javaLs.add(m);
            }
            assertEquals(cliLs, javaLs);
            // the bytes the CLI put
            for (Map.Entry<String, byte[]> f : files.entrySet()) {
                long oid = ssd.stat(f.getKey()).info().id();
                assertArrayEquals(f.getValue(), TestDevices.get(ssd, oid, 0, f.getValue().length + 1), f.getKey());
            }
            // every tasklet run: rows in order, counts, pages, bytes read and sent
            for (int i = 0; i < runs.size(); i++) {
                assertEquals(cliRuns.get(i), javaRun(ssd, runs.get(i)), "run " + runs.get(i));
            }
            // and the other way: Java writes, renames, deletes; the CLI sees it after close
            TestDevices.put(ssd, "from-java.bin", fromJava);
            ssd.rename(ssd.stat("random.bin").info().id(), "renamed.bin", false);
            ssd.delete(ssd.stat("logs/access.txt").info().id());
        }
        List<Object> after = (List<Object>) json("ls", image.toString()).get("objects");
        List<String> names = new ArrayList<>();
        after.forEach(o -> names.add((String) ((Map<String, Object>) o).get("name")));
        assertEquals(List.of("from-java.bin", "logs/wc98.bin", "renamed.bin"), names);
        Path got = dir.resolve("got.bin");
        csd("get", image.toString(), "from-java.bin", got.toString());
        assertArrayEquals(fromJava, Files.readAllBytes(got));
        csd("get", image.toString(), "renamed.bin", got.toString());
        assertArrayEquals(rnd, Files.readAllBytes(got));
    }
}
