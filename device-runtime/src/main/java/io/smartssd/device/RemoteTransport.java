package io.smartssd.device;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import io.smartssd.proto.ReadObject;
import io.smartssd.proto.ReadObjectReply;
import io.smartssd.proto.Request;
import io.smartssd.proto.Response;
import io.smartssd.proto.WriteObject;
import java.io.EOFException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A device daemon ({@code csdd IMAGE --socket PATH}) reached over its Unix domain socket. Each command is
 * one frame each way: a 4-byte little-endian length and the packed Request (Response), at most 64 MiB.
 * There is no side channel, so bulk data travels inside the packet: a write's direct buffer is sent as
 * the packet's data field straight from the buffer (a gathering write, no copy in Java), and a read's
 * bytes come back inline (SmartSsd copies them into the caller's buffer).
 *
 * <p>Connections: a pool of at most {@link RemoteOptions#maxConnections()}. A command borrows an idle
 * connection or opens a new one, so concurrent commands of one handle run side by side on the daemon
 * (one daemon thread per connection), and a single-threaded caller reuses one connection.
 *
 * <p>Failures: a connection that breaks while the frame is being sent never delivered the command; if
 * it was a pooled (possibly stale) connection the command is sent again on a fresh one, so after a
 * daemon restart the next command simply works. A connection that breaks after the frame went out
 * throws {@link DeviceUnavailableException} with {@code mayHaveRun() == true}; one that cannot be
 * opened throws it naming the socket. Interrupting a thread inside a command closes that connection
 * and throws {@link CancellationException} (interrupt flag kept); the daemon and other connections are
 * not disturbed.
 *
 * <p>Close: waits up to {@link RemoteOptions#closeTimeout()} for commands in flight (they hold the read
 * side of a lock, close takes the write side), then closes the connections under any that remain.
 */
public final class RemoteTransport implements Transport {
    /** The largest frame body, CSD_MAX_PACKET. */
    static final int MAX_PACKET = 64 << 20;
    /** The longest read_object over the socket: the device answers inline, within one packet. */
    static final long MAX_READ = MAX_PACKET - 4096;
    /** Responses up to this size are parsed from the connection's own buffer. */
    private static final int RX_BYTES = 64 << 10;
    /** Large bodies are read in chunks of this size (the JDK stages heap reads in a cached direct buffer). */
    private static final int READ_CHUNK = 1 << 20;
    /** Reads whose response is larger than this stream their data straight into the caller's buffer. */
    private static final int DIRECT_READ_MIN = 4096;
    /** locateData: the frame has no data field to stream (an error, an empty read, another reply). */
    static final long[] NOT_A_READ = new long[0];

    // The fields framed and walked by hand, by the generated classes' numbers (device.proto is the one source).
    private static final int REQUEST_WRITE = Request.WRITE_OBJECT_FIELD_NUMBER;
    private static final int WRITE_DATA = WriteObject.DATA_FIELD_NUMBER;
    private static final int RESPONSE_READ = Response.READ_OBJECT_FIELD_NUMBER;
    private static final int READ_REPLY_DATA = ReadObjectReply.DATA_FIELD_NUMBER;
    private static final int LEN = WireFormat.WIRETYPE_LENGTH_DELIMITED;

    private final Path socket;
    private final UnixDomainSocketAddress address;
    private final RemoteOptions options;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Semaphore permits;
    private final Object pool = new Object();
    private final ArrayDeque<Connection> idle = new ArrayDeque<>(); // guarded by pool
    private final Set<Connection> live = new HashSet<>();           // guarded by pool: idle + in use
    private final AtomicLong dials = new AtomicLong();
    private final AtomicInteger active = new AtomicInteger(); // commands in flight
    private volatile boolean closed;

    private RemoteTransport(Path socket, RemoteOptions options) {
        this.socket = socket;
        this.address = UnixDomainSocketAddress.of(socket);
        this.options = options;
        this.permits = new Semaphore(options.maxConnections());
    }

    /** Connects to the daemon at socket (once, now, so a missing daemon fails here naming the path). */
    public static RemoteTransport connect(Path socket, RemoteOptions options) {
        Objects.requireNonNull(socket, "socket");
        Objects.requireNonNull(options, "options");
        RemoteTransport t = new RemoteTransport(socket, options);
        t.giveBack(t.dial());
        return t;
    }

    @Override
    public Response call(Request request, ByteBuffer in, ByteBuffer out) {
        ByteBuffer[] frame = frame(capRead(Objects.requireNonNull(request, "request"), out), in);
        Lock r = lock.readLock();
        r.lock();
        try {
            if (closed) {
                throw new IllegalStateException(description() + " is closed");
            }
            try {
                permits.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CancellationException("interrupted while waiting for a connection to " + socket);
            }
            int inFlight = active.incrementAndGet();
            try {
                return exchange(frame, inFlight, out);
            } finally {
                active.decrementAndGet();
                permits.release();
            }
        } finally {
            r.unlock();
        }
    }

    @Override
    public boolean background() {
        return true; // csdd always runs the device thread: tasklets advance between commands
    }

    @Override
    public String description() {
        return "device daemon at " + socket;
    }

    /** The daemon's socket. */
    public Path socket() {
        return socket;
    }

    /** Connections opened so far (reconnects included). */
    public long connectionsOpened() {
        return dials.get();
    }

    /** Connections open now (idle or in use). */
    public int connectionsOpen() {
        synchronized (pool) {
            return live.size();
        }
    }

    /** True once closed. */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true; // new commands fail at once; waiting ones find it once they get the lock
        Lock w = lock.writeLock();
        boolean got;
        try {
            got = w.tryLock(options.closeTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            got = false;
        }
        if (!got) {
            closeConnections(); // the commands still in flight fail with IllegalStateException
            w.lock();
        }
        try {
            closeConnections();
        } finally {
            w.unlock();
        }
    }

    // ------------------------------------------------------------------------------------ one command

    private Response exchange(ByteBuffer[] frame, int inFlight, ByteBuffer out) {
        // Only a reused connection may be stale (the daemon restarted since); a failed send on one is
        // retried on a fresh connection, which happens at most once per pooled connection.
        for (int attempt = 0; ; attempt++) {
            Connection c = takeIdle();
            boolean reused = c != null;
            if (c == null) {
                c = dial();
            }
            try {
                ByteBuffer[] f = new ByteBuffer[frame.length]; // each attempt sends from the start
                for (int i = 0; i < f.length; i++) {
                    f[i] = frame[i].duplicate();
                }
                // Spin for the answer only when this is the handle's one command in flight: threads that
                // spin side by side would take the cores the daemon needs to answer them.
                c.send(f, inFlight == 1 ? options.spinNanos() : 0);
            } catch (IOException e) {
                discard(c, true);
                failIfClosedOrInterrupted(e, false);
                if (reused && attempt <= options.maxConnections()) {
                    continue;
                }
                throw new DeviceUnavailableException(socket, "lost the connection to the device daemon at " + socket
                        + " while sending a command (it did not run): " + reason(e), false, e);
            }
            try {
                Response resp = c.receive(out);
                giveBack(c);
                return resp;
            } catch (InvalidProtocolBufferException e) {
                discard(c, false);
                throw new DeviceException(DeviceException.Code.BAD_PACKET,
                        "the device daemon at " + socket + " sent a response that does not decode: " + e.getMessage());
            } catch (IOException e) {
                discard(c, true);
                failIfClosedOrInterrupted(e, true);
                throw new DeviceUnavailableException(socket, "lost the connection to the device daemon at " + socket
                        + " in the middle of a command (it may or may not have run): " + reason(e), true, e);
            }
        }
    }

    private void failIfClosedOrInterrupted(IOException e, boolean sent) {
        String maybe = sent ? "it may or may not have run" : "it did not run";
        if (closed) {
            throw new IllegalStateException(description() + " is closed; it was closed while this command was in"
                    + " flight (" + maybe + ")", e);
        }
        if (e instanceof ClosedByInterruptException || Thread.currentThread().isInterrupted()) {
            Thread.currentThread().interrupt();
            CancellationException ce = new CancellationException("interrupted during a command to " + socket
                    + "; its connection was closed (" + maybe + ")");
            ce.initCause(e);
            throw ce;
        }
    }

    private static String reason(IOException e) {
        if (e instanceof EOFException) {
            return "the daemon closed the connection";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** Reads come back inside the packet, which holds at most MAX_READ bytes: a longer read is a short read. */
    private static Request capRead(Request req, ByteBuffer out) {
        if (out != null && req.hasReadObject() && req.getReadObject().getLength() > MAX_READ) {
            ReadObject ro = req.getReadObject().toBuilder().setLength(MAX_READ).build();
            return req.toBuilder().setReadObject(ro).build();
        }
        return req;
    }

    /**
     * The frame for one request: length prefix and packed Request, and for a write with a payload buffer
     * the write's data field built around the caller's bytes so they go out straight from their buffer.
     */
    static ByteBuffer[] frame(Request req, ByteBuffer in) {
        if (in == null || !in.hasRemaining()) {
            int n = req.getSerializedSize();
            checkSize(n);
            byte[] b = new byte[4 + n];
            putLength(b, n);
            write(req, b, 4, n);
            return new ByteBuffer[] {ByteBuffer.wrap(b)};
        }
        if (!req.hasWriteObject() || !req.getWriteObject().getData().isEmpty()) {
            throw new IllegalArgumentException("a payload buffer goes only with a write_object without inline data");
        }
        // Request { <other fields>, write_object { object_id, offset, data = payload } }: protobuf
        // allows fields in any order, and the C side packs and parses by number, not position.
        Request head = req.toBuilder().clearWriteObject().build();
        byte[] w = req.getWriteObject().toByteArray();
        int d = in.remaining();
        long wLen = (long) w.length + CodedOutputStream.computeTagSize(WRITE_DATA)
                + CodedOutputStream.computeUInt32SizeNoTag(d) + d;
        long total = head.getSerializedSize() + CodedOutputStream.computeTagSize(REQUEST_WRITE)
                + CodedOutputStream.computeUInt64SizeNoTag(wLen) + wLen;
        if (total > MAX_PACKET) {
            throw new IllegalArgumentException("a write to a device daemon carries at most about "
                    + SmartSsd.MAX_INLINE_BYTES + " bytes (one " + MAX_PACKET + "-byte packet), got " + d
                    + "; write in chunks");
        }
        int headLen = (int) (total - d);
        byte[] b = new byte[4 + headLen];
        putLength(b, (int) total);
        try {
            CodedOutputStream o = CodedOutputStream.newInstance(b, 4, headLen);
            head.writeTo(o);
            o.writeTag(REQUEST_WRITE, LEN);
            o.writeUInt64NoTag(wLen);
            o.writeRawBytes(w);
            o.writeTag(WRITE_DATA, LEN);
            o.writeUInt32NoTag(d);
            o.checkNoSpaceLeft();
        } catch (IOException e) {
            throw new IllegalStateException("framing a write: " + e.getMessage(), e);
        }
        return new ByteBuffer[] {ByteBuffer.wrap(b), in.duplicate()};
    }

    private static void checkSize(long n) {
        if (n > MAX_PACKET) {
            throw new IllegalArgumentException("a command packet holds at most " + MAX_PACKET + " bytes, this one "
                    + n);
        }
    }

    private static void putLength(byte[] b, int n) {
        b[0] = (byte) n;
        b[1] = (byte) (n >>> 8);
        b[2] = (byte) (n >>> 16);
        b[3] = (byte) (n >>> 24);
    }

    private static void write(Request req, byte[] b, int off, int n) {
        try {
            CodedOutputStream o = CodedOutputStream.newInstance(b, off, n);
            req.writeTo(o);
            o.checkNoSpaceLeft();
        } catch (IOException e) {
            throw new IllegalStateException("packing a request: " + e.getMessage(), e);
        }
    }

    /**
     * Walks the fields of a Response in rx[4, end) up to read_object and its first field, data.
     * Returns {tag offset of read_object, its contents' offset, their length, data offset, data length},
     * null when more bytes are needed, NOT_A_READ when the frame has no data field to stream.
     */
    static long[] locateData(ByteBuffer rx, int end, int total) {
        int p = 4;
        while (p < end) {
            int tagAt = p;
            long[] tag = varint(rx, p, end);
            if (tag == null) {
                return null;
            }
            p = (int) tag[1];
            int field = WireFormat.getTagFieldNumber((int) tag[0]);
            int wire = WireFormat.getTagWireType((int) tag[0]);
            if (tag[0] >>> 32 == 0 && field == RESPONSE_READ && wire == LEN) {
                long[] len = varint(rx, p, end);
                long[] dt = len == null ? null : varint(rx, (int) len[1], end);
                long[] dl = dt == null ? null : varint(rx, (int) dt[1], end);
                if (dl == null) {
                    return null;
                }
                // a varint length may be anything up to 2^64 - 1: bound it before adding offsets to it
                if (dt[0] != ((READ_REPLY_DATA << 3) | LEN) || len[0] < 0 || len[0] > total || dl[0] < 0 || dl[0] > total
                        || len[1] + len[0] > total || dl[1] + dl[0] > len[1] + len[0]) {
                    return NOT_A_READ;
                }
                return new long[] {tagAt, len[1], len[0], dl[1], dl[0]};
            }
            if (wire == WireFormat.WIRETYPE_VARINT) {
                long[] v = varint(rx, p, end);
                if (v == null) {
                    return null;
                }
                p = (int) v[1];
            } else if (wire == LEN) {
                long[] len = varint(rx, p, end);
                if (len == null) {
                    return null;
                }
                if (len[0] < 0 || len[0] > total || len[1] + len[0] > total) {
                    return NOT_A_READ;
                }
                p = (int) (len[1] + len[0]);
            } else if (wire == WireFormat.WIRETYPE_FIXED64) {
                p += 8;
            } else if (wire == WireFormat.WIRETYPE_FIXED32) {
                p += 4;
            } else {
                return NOT_A_READ;
            }
        }
        return end >= total ? NOT_A_READ : null;
    }

    /** {value, offset after it}, or null if the varint does not end before end. */
    private static long[] varint(ByteBuffer b, int p, int end) {
        long v = 0;
        for (int shift = 0; shift < 64 && p < end; shift += 7) {
            int x = b.get(p++);
            v |= (long) (x & 0x7f) << shift;
            if (x >= 0) {
                return new long[] {v, p};
            }
        }
        return null;
    }

    // ------------------------------------------------------------------------------------ the pool

    private Connection takeIdle() {
        synchronized (pool) {
            if (closed) {
                throw new IllegalStateException(description() + " is closed");
            }
            return idle.pollFirst(); // most recently used first: it is the least likely to be stale
        }
    }

    private void giveBack(Connection c) {
        synchronized (pool) {
            if (!closed && live.contains(c)) {
                idle.addFirst(c);
                return;
            }
        }
        c.close();
    }

    /**
     * Drops a broken connection; with others, also the idle ones: a broken connection usually means the
     * daemon went away, and then every pooled connection is dead too.
     */
    private void discard(Connection c, boolean others) {
        List<Connection> drop = new ArrayList<>();
        synchronized (pool) {
            live.remove(c);
            if (others) {
                drop.addAll(idle);
                live.removeAll(idle);
                idle.clear();
            }
        }
        c.close();
        drop.forEach(Connection::close);
    }

    private void closeConnections() {
        List<Connection> all;
        synchronized (pool) {
            all = new ArrayList<>(live);
            live.clear();
            idle.clear();
        }
        all.forEach(Connection::close);
    }

    private Connection dial() {
        SocketChannel ch;
        try {
            ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        } catch (IOException e) {
            throw new DeviceUnavailableException(socket, "cannot create a Unix socket: " + e.getMessage(), false, e);
        }
        try {
            ch.connect(address);
        } catch (IOException e) {
            closeQuietly(ch);
            String why;
            if (socket.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 107) {
                why = "the path is longer than a Unix socket address takes (107 bytes)";
            } else if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
                why = "no such socket (is the daemon running? start it with: csdd IMAGE --socket " + socket + ")";
            } else {
                why = reason(e) + " (is the daemon running? a daemon that was killed leaves its socket behind)";
            }
            if (e instanceof ClosedByInterruptException) {
                Thread.currentThread().interrupt();
                throw new CancellationException("interrupted while connecting to " + socket);
            }
            throw new DeviceUnavailableException(socket, "cannot connect to the device daemon at " + socket + ": "
                    + why, false, e);
        }
        dials.incrementAndGet();
        Connection c;
        try {
            c = new Connection(ch);
        } catch (IOException e) {
            closeQuietly(ch);
            throw new DeviceUnavailableException(socket, "cannot set up the connection to " + socket + ": "
                    + e.getMessage(), false, e);
        }
        synchronized (pool) {
            if (!closed) {
                live.add(c);
                return c;
            }
        }
        c.close();
        throw new IllegalStateException(description() + " is closed");
    }

    private static void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing to do: the channel is gone either way
        }
    }

    /**
     * One socket to the daemon; used by one command at a time. Non-blocking, with its own selector: a
     * wait for the answer first spins for up to spinNanos (when spinning is allowed), because on a
     * small command the answer comes within tens of microseconds and a thread that blocks pays about as
     * much again to be woken; then it blocks in the selector.
     */
    private static final class Connection {
        private final SocketChannel ch;
        private final Selector sel;
        private final SelectionKey key;
        private final ByteBuffer rx = ByteBuffer.allocateDirect(RX_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        private long spinNanos;

        Connection(SocketChannel ch) throws IOException {
            this.ch = ch;
            ch.configureBlocking(false);
            this.sel = Selector.open();
            this.key = ch.register(sel, 0);
        }

        void send(ByteBuffer[] frame, long spin) throws IOException {
            spinNanos = spin;
            ByteBuffer last = frame[frame.length - 1];
            while (last.hasRemaining()) {
                if (ch.write(frame) == 0 && last.hasRemaining()) {
                    await(SelectionKey.OP_WRITE); // the socket buffer is full: the daemon is reading
                }
            }
        }

        /** The response; a read's data goes straight into out (when given) instead of into the packet. */
        Response receive(ByteBuffer out) throws IOException {
            rx.clear();
            while (rx.position() < 4) {
                fill(rx);
            }
            int n = rx.getInt(0);
            if (n < 0 || n > MAX_PACKET) {
                throw new InvalidProtocolBufferException("frame length " + Integer.toUnsignedString(n)
                        + " exceeds the " + MAX_PACKET + "-byte limit");
            }
            int total = 4 + n;
            if (out != null && total > DIRECT_READ_MIN) {
                while (true) {
                    long[] at = locateData(rx, Math.min(rx.position(), total), total);
                    if (at == NOT_A_READ) {
                        break;
                    }
                    if (at != null) {
                        if (at[4] <= out.remaining()) {
                            return receiveInto(out, at, total);
                        }
                        break;
                    }
                    if (rx.position() >= total || !rx.hasRemaining()) {
                        break;
                    }
                    fill(rx);
                }
            }
            if (total <= rx.capacity()) {
                while (rx.position() < total) {
                    fill(rx);
                }
                checkNoExtra(rx.position() - total);
                // Parsed from a heap copy, never from rx itself: protobuf-java's decoder over a direct
                // buffer reads it with Unsafe and, on a malformed reply, overran its end (an
                // ArrayIndexOutOfBoundsException in its UTF-8 check, and a JVM crash copying a field
                // whose length passed the frame; both found by the Jazzer target). The copy is one
                // small frame; rx is reused by the next command.
                byte[] frame = new byte[n];
                rx.flip().position(4);
                rx.get(frame);
                return Response.parseFrom(frame);
            }
            byte[] body = new byte[n];
            int have = rx.position() - 4;
            checkNoExtra(have - n);
            rx.flip().position(4);
            rx.get(body, 0, have);
            ByteBuffer rest = ByteBuffer.wrap(body, have, n - have);
            while (rest.hasRemaining()) {
                rest.limit(Math.min(n, rest.position() + READ_CHUNK));
                fill(rest);
                rest.limit(n);
            }
            // body is this response's alone: the bytes fields may alias it instead of being copied.
            CodedInputStream cis = CodedInputStream.newInstance(body);
            cis.enableAliasing(true);
            cis.setSizeLimit(MAX_PACKET);
            Response r = Response.parseFrom(cis);
            cis.checkLastTagWas(0);
            return r;
        }

        /**
         * A read_object reply whose data field starts at at[3] (at[4] bytes): the bytes already in rx and
         * the rest from the socket go straight to out (one copy, kernel to the caller's buffer); the
         * reply comes back with payload_length set instead of data, as from the in-process device.
         */
        private Response receiveInto(ByteBuffer out, long[] at, int total) throws IOException {
            int readAt = (int) at[0];
            int innerEnd = (int) (at[1] + at[2]);
            int dataAt = (int) at[3];
            int d = (int) at[4];
            int afterData = dataAt + d;
            ByteBuffer dst = out.duplicate();
            int have = Math.max(0, Math.min(rx.position(), afterData) - dataAt);
            if (have > 0) {
                dst.put(dst.position(), rx, dataAt, have);
            }
            dst.position(dst.position() + have).limit(dst.position() + (d - have));
            while (dst.hasRemaining()) {
                fill(dst);
            }
            byte[] tail = new byte[total - afterData];
            int extra = Math.max(0, rx.position() - afterData);
            if (extra > 0) {
                rx.get(afterData, tail, 0, extra);
            }
            ByteBuffer rest = ByteBuffer.wrap(tail, extra, tail.length - extra);
            while (rest.hasRemaining()) {
                fill(rest);
            }
            byte[] head = new byte[readAt - 4];
            rx.get(4, head);
            Response.Builder b = Response.newBuilder().mergeFrom(head);
            int innerTail = innerEnd - afterData;
            ReadObjectReply rr = ReadObjectReply.newBuilder().mergeFrom(tail, 0, innerTail).setPayloadLength(d).build();
            // in wire order, as protobuf merges a message field that occurs more than once: this
            // read_object, then whatever follows it (another read_object merges into it, not over it;
            // found by the Jazzer target)
            b.mergeReadObject(rr);
            if (innerTail < tail.length) {
                b.mergeFrom(tail, innerTail, tail.length - innerTail);
            }
            return b.build();
        }

        /** Reads at least one byte into b. */
        private void fill(ByteBuffer b) throws IOException {
            long spinUntil = spinNanos > 0 ? System.nanoTime() + spinNanos : 0;
            while (true) {
                int n = ch.read(b);
                if (n > 0) {
                    return;
                }
                if (n < 0) {
                    throw new EOFException("the daemon closed the connection");
                }
                if (spinUntil != 0 && System.nanoTime() < spinUntil) {
                    Thread.onSpinWait();
                    if (Thread.currentThread().isInterrupted()) {
                        throw new ClosedByInterruptException();
                    }
                } else {
                    await(SelectionKey.OP_READ);
                }
            }
        }

        private void await(int op) throws IOException {
            try {
                key.interestOps(op);
                sel.select();
                sel.selectedKeys().clear();
            } catch (ClosedSelectorException | CancelledKeyException e) {
                throw new AsynchronousCloseException(); // closed under us by close()
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new ClosedByInterruptException(); // select returns at once for an interrupted thread
            }
            if (!ch.isOpen()) {
                throw new AsynchronousCloseException();
            }
        }

        private static void checkNoExtra(int extra) throws InvalidProtocolBufferException {
            if (extra > 0) {
                throw new InvalidProtocolBufferException(extra + " bytes arrived beyond the response frame");
            }
        }

        void close() {
            closeQuietly(ch);
            try {
                sel.close(); // wakes a thread blocked in select; it then sees the channel closed
            } catch (IOException ignored) {
                // nothing to do: the selector is gone either way
            }
        }
    }
}
