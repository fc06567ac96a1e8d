package io.smartssd.examples.weblog;

import java.util.List;

/**
 * The 1998 World Cup access-log record (Internet Traffic Archive, the format of the archive's
 * {@code recreate}/{@code checklog} tools), as docs/TASKLETS.md states it: 20 bytes, big-endian,
 * {@code timestamp u32, clientID u32, objectID u32, size u32 (0xFFFFFFFF = none), method u8,
 * status u8 (bits 7-6 HTTP version, 5-0 code index), type u8, server u8 (bits 7-5 region, 4-0 server)},
 * padded with zero bytes to the entry size.
 */
public final class Wc98 {
    private Wc98() {
    }

    public static final int RECORD_BYTES = 20;
    /** The entry sizes of the paper's experiment (V-C) plus the bare record. */
    public static final List<Integer> ENTRY_SIZES = List.of(20, 32, 64, 128, 256);

    public static final int OFF_TIMESTAMP = 0;
    public static final int OFF_CLIENT = 4;
    public static final int OFF_OBJECT = 8;
    public static final int OFF_SIZE = 12;
    public static final int OFF_METHOD = 16;
    public static final int OFF_STATUS = 17;
    public static final int OFF_TYPE = 18;
    public static final int OFF_SERVER = 19;
    public static final long NO_SIZE = 0xFFFFFFFFL;

    /** Region names by region index (server byte >> 5), as the weblog tasklets name them. */
    public static final List<String> REGIONS = List.of("Santa Clara", "Plano", "Herndon", "Paris",
            "region-4", "region-5", "region-6", "region-7");
    /** Type names by type index; every byte from 12 up is OTHER (the tasklets' rule). */
    public static final List<String> TYPES = List.of("HTML", "IMAGE", "AUDIO", "VIDEO", "JAVA", "FORMATTED",
            "DYNAMIC", "TEXT", "COMPRESSED", "PROGRAMS", "DIRECTORY", "ICL", "OTHER");
    public static final int NUM_REGIONS = 8;
    public static final int NUM_TYPES = 13;

    /** HTTP methods by method byte (the archive's order). */
    public static final List<String> METHODS = List.of("GET", "HEAD", "POST", "PUT", "DELETE", "TRACE",
            "OPTIONS", "CONNECT", "OTHER");
    /** HTTP status codes by code index (the archive's table). */
    public static final int[] STATUS_CODES = {100, 101, 200, 201, 202, 203, 204, 205, 206, 300, 301, 302, 303,
        304, 305, 400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 500, 501,
        502, 503, 504, 505};
    /** HTTP versions by bits 7-6 of the status byte. */
    public static final List<String> VERSIONS = List.of("HTTP/0.9", "HTTP/1.0", "HTTP/1.1", "HTTP/X.X");

    public static int region(byte serverByte) {
        return (serverByte & 0xFF) >>> 5;
    }

    public static int type(byte typeByte) {
        return Math.min(typeByte & 0xFF, NUM_TYPES - 1);
    }

    /** Checks an entry size as the tasklets do (20..65536). */
    public static int checkEntryBytes(int entryBytes) {
        if (entryBytes < RECORD_BYTES || entryBytes > 65536) {
            throw new IllegalArgumentException("entry bytes " + entryBytes + " is out of range [20, 65536]"
                    + " (a WorldCup98 record is 20 bytes; the paper pads to 32, 64, 128, 256)");
        }
        return entryBytes;
    }
}
