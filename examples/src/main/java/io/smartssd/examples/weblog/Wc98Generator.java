package io.smartssd.examples.weblog;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;

/**
 * WorldCup98-format access-log records with the archive's published shape, deterministic for a seed.
 *
 * <p>Shares (taken from the Internet Traffic Archive's
 * per-dataset statistics for all 88 days, and its 1,000-request sample; native/tests/wc98.py uses the
 * same): requests per region Santa Clara 16.60%, Plano 44.50%, Herndon 25.91%, Paris 12.99%, over the
 * servers in use (6, 11, 10, 6); types IMAGE 86.3%, HTML 11.2%, DIRECTORY 1.2%, JAVA 1.1%, DYNAMIC 0.2%;
 * status 200 84.4%, 304 15.2%, 206 0.4%; GET only; HTTP/1.0 89.5%, HTTP/1.1 10.5%; 2.4% without a size,
 * the rest log-normal around the published mean transfer size (3,962.68 bytes, max 64,219,310);
 * clients skewed over ids 0..2,770,107, objects over 0..89,996 (a few very popular objects, as in the
 * logs); timestamps non-decreasing from 1998-05-01 at about 178 requests/s (1.35 G requests / 88 days).
 * The {@link Mix#UNIFORM} mix instead spreads regions over 0-7 and type bytes over 0-15, so tests
 * reach region-4..7 and OTHER.
 *
 * <p>Writing is streamed through one buffer: memory does not grow with the size generated.
 */
public final class Wc98Generator {
    public enum Mix { REALISTIC, UNIFORM }

    private static final double[] REGION_SHARES = {16.60, 44.50, 25.91, 12.99};
    private static final int[] REGION_SERVERS = {6, 11, 10, 6};
    private static final int[] TYPE_VALUES = {1, 0, 10, 4, 6};
    private static final double[] TYPE_SHARES = {86.3, 11.2, 1.2, 1.1, 0.2};
    private static final int[] STATUS_VALUES = {2, 13, 8};        // code index of 200, 304, 206
    private static final double[] STATUS_SHARES = {84.4, 15.2, 0.4};
    private static final double HTTP11_SHARE = 0.105;
    private static final double NO_SIZE_SHARE = 0.024;
    private static final long T0 = 893_980_800L;                   // 1998-05-01 00:00:00 GMT
    private static final double REQUESTS_PER_S = 178.0;
    private static final int MAX_CLIENT = 2_770_107;
    private static final int MAX_OBJECT = 89_996;
    private static final long MAX_SIZE = 64_219_310L;
    private static final double SIZE_MU = Math.log(3962.68) - 1.0;
    private static final double SIZE_SIGMA = 1.4;

    private static final int BUFFER_BYTES = 1 << 20;

    private final SplittableRandom rng;
    private final Mix mix;
    private final double[] regionCdf = cdf(REGION_SHARES);
    private final double[] typeCdf = cdf(TYPE_SHARES);
    private final double[] statusCdf = cdf(STATUS_SHARES);
    private double clock;

    public Wc98Generator(long seed, Mix mix) {
        this.rng = new SplittableRandom(seed);
        this.mix = mix;
    }

    private static double[] cdf(double[] shares) {
        double sum = 0;
        for (double s : shares) {
            sum += s;
        }
        double[] c = new double[shares.length];
        double acc = 0;
        for (int i = 0; i < shares.length; i++) {
            acc += shares[i] / sum;
            c[i] = acc;
        }
        c[c.length - 1] = 1.0;
        return c;
    }

    private int pick(double[] cdf) {
        double x = rng.nextDouble();
        for (int i = 0; i < cdf.length; i++) {
            if (x < cdf[i]) {
                return i;
            }
        }
        return cdf.length - 1;
    }

    /** Writes the next 20-byte record at {@code buf[off..off+20)}. */
    public void next(byte[] buf, int off) {
        clock += -Math.log(1.0 - rng.nextDouble()) / REQUESTS_PER_S;
        int region;
        int server;
        int type;
        if (mix == Mix.UNIFORM) {
            region = rng.nextInt(8);
            server = rng.nextInt(32);
            type = rng.nextInt(16);
        } else {
            region = pick(regionCdf);
            server = rng.nextInt(REGION_SERVERS[region]);
            type = TYPE_VALUES[pick(typeCdf)];
        }
        double u = rng.nextDouble();
        int client = (int) Math.min(MAX_CLIENT, MAX_CLIENT * u * u * u);
        u = rng.nextDouble();
        int object = (int) Math.min(MAX_OBJECT, MAX_OBJECT * u * u * u * u);
        long size = rng.nextDouble() < NO_SIZE_SHARE ? Wc98.NO_SIZE
                : Math.min(MAX_SIZE, (long) Math.exp(SIZE_MU + SIZE_SIGMA * rng.nextGaussian()));
        int version = rng.nextDouble() < HTTP11_SHARE ? 2 : 1;
        int status = version << 6 | STATUS_VALUES[pick(statusCdf)];
        putInt(buf, off, T0 + (long) clock);
        putInt(buf, off + 4, client);
        putInt(buf, off + 8, object);
        putInt(buf, off + 12, size);
        buf[off + 16] = 0;                       // GET
        buf[off + 17] = (byte) status;
        buf[off + 18] = (byte) type;
        buf[off + 19] = (byte) (region << 5 | server);
    }

    private static void putInt(byte[] b, int off, long v) {
        b[off] = (byte) (v >>> 24);
        b[off + 1] = (byte) (v >>> 16);
        b[off + 2] = (byte) (v >>> 8);
        b[off + 3] = (byte) v;
    }

    /**
     * Writes {@code records} records, each padded with zeros to {@code entryBytes}; {@code progress}
     * (may be null) gets the bytes written so far after every buffer.
     */
    public long writeBinary(OutputStream out, long records, int entryBytes, LongConsumer progress)
            throws IOException {
        Wc98.checkEntryBytes(entryBytes);
        int perBuffer = Math.max(1, BUFFER_BYTES / entryBytes);
        byte[] buf = new byte[perBuffer * entryBytes];     // padding stays zero: records overwrite 20 bytes
        long written = 0;
        long left = records;
        while (left > 0) {
            int n = (int) Math.min(left, perBuffer);
            for (int i = 0; i < n; i++) {
                next(buf, i * entryBytes);
            }
            out.write(buf, 0, n * entryBytes);
            left -= n;
            written += (long) n * entryBytes;
            if (progress != null) {
                progress.accept(written);
            }
        }
        return written;
    }

    /**
     * Writes {@code records} records as Common Log Format lines ({@code host ident user [date]
     * "request" status bytes}), the way the archive's {@code recreate} tool renders them, with a
     * URL made from the object id and file type. Returns the bytes written.
     */
    public long writeClf(OutputStream out, long records, LongConsumer progress) throws IOException {
        byte[] rec = new byte[Wc98.RECORD_BYTES];
        StringBuilder sb = new StringBuilder(BUFFER_BYTES + 512);
        ClfRenderer clf = new ClfRenderer();
        long written = 0;
        for (long i = 0; i < records; i++) {
            next(rec, 0);
            clf.render(rec, sb);
            if (sb.length() >= BUFFER_BYTES || i == records - 1) {
                byte[] b = sb.toString().getBytes(StandardCharsets.US_ASCII);
                out.write(b);
                written += b.length;
                sb.setLength(0);
                if (progress != null) {
                    progress.accept(written);
                }
            }
        }
        return written;
    }

    /** Renders records as CLF lines; caches the date of the last second (timestamps rarely change). */
    public static final class ClfRenderer {
        private static final DateTimeFormatter DATE =
                DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT).withZone(ZoneOffset.UTC);
        /** URL = prefix + objectID + suffix, by type index. */
        private static final String[] URL_PREFIX = {"/english/", "/images/", "/audio/", "/video/", "/applets/",
            "/docs/", "/cgi-bin/", "/text/", "/files/", "/files/", "/english/", "/icl/", "/misc/"};
        private static final String[] URL_SUFFIX = {".html", ".gif", ".wav", ".mov", ".class", ".pdf", ".cgi",
            ".txt", ".zip", ".exe", "/", ".icl", ".dat"};
        private long lastSecond = -1;
        private String lastDate;

        public void render(byte[] r, StringBuilder sb) {
            long ts = u32(r, 0);
            if (ts != lastSecond) {
                lastSecond = ts;
                lastDate = DATE.format(Instant.ofEpochSecond(ts));
            }
            int method = r[Wc98.OFF_METHOD] & 0xFF;
            int status = r[Wc98.OFF_STATUS] & 0xFF;
            int code = status & 0x3F;
            long size = u32(r, Wc98.OFF_SIZE);
            int type = Wc98.type(r[Wc98.OFF_TYPE]);
            sb.append(u32(r, Wc98.OFF_CLIENT)).append(" - - [").append(lastDate).append("] \"")
                    .append(Wc98.METHODS.get(Math.min(method, Wc98.METHODS.size() - 1))).append(' ')
                    .append(URL_PREFIX[type]).append(u32(r, Wc98.OFF_OBJECT)).append(URL_SUFFIX[type]).append(' ')
                    .append(Wc98.VERSIONS.get(status >>> 6)).append("\" ")
                    .append(code < Wc98.STATUS_CODES.length ? Wc98.STATUS_CODES[code] : 0).append(' ');
            if (size == Wc98.NO_SIZE) {
                sb.append('-');
            } else {
                sb.append(size);
            }
            sb.append('\n');
        }

        private static long u32(byte[] b, int off) {
            return (b[off] & 0xFFL) << 24 | (b[off + 1] & 0xFFL) << 16 | (b[off + 2] & 0xFFL) << 8 | (b[off + 3] & 0xFFL);
        }
    }
}
