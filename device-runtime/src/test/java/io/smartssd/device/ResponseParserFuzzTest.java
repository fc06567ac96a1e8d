package io.smartssd.device;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.smartssd.proto.ReadObject;
import io.smartssd.proto.Request;
import io.smartssd.proto.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Jazzer target for the Java side's response parser: whatever bytes a device daemon sends back,
 * {@link RemoteTransport} (frame length, the streaming read path that puts a read's data straight into
 * the caller's buffer, protobuf decoding) and the {@link SmartSsd} calls above it must either return a
 * result or throw a {@link DeviceException}; nothing else may escape, nothing may hang. A fake daemon on a
 * Unix socket answers every request with the fuzzer's bytes: input byte 0 picks the framing (even: a
 * correct length prefix around the rest, connection kept; odd: the bytes raw, then hang up) and the
 * call; for a correctly framed reply the transport's answer must equal protobuf's own parse of the same
 * bytes, with a streamed read's data landing in the caller's buffer.
 *
 * <p>In the test suite this runs the seeds only (native/fuzz/corpus is the C side's; these are under
 * src/test/resources); {@code bin/smartssd fuzz} runs it for real with Jazzer's CLI.
 */
class ResponseParserFuzzTest {
    private static final AtomicReference<byte[]> REPLY = new AtomicReference<>(new byte[0]);
    private static Path socket;
    private static RemoteTransport transport;
    private static SmartSsd ssd;

    /** The fake daemon: reads one request frame, answers with the current reply, per connection. */
    private static synchronized void start() throws IOException {
        if (transport != null) {
            return;
        }
        Path dir = Files.createTempDirectory("csd-jazzer");
        socket = dir.resolve("d.sock");
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        Thread t = new Thread(() -> {
            while (true) {
                try {
                    SocketChannel c = server.accept();
                    Thread h = new Thread(() -> serve(c), "fake-daemon-conn");
                    h.setDaemon(true);
                    h.start();
                } catch (IOException e) {
                    return;
                }
            }
        }, "fake-daemon");
        t.setDaemon(true);
        t.start();
        transport = RemoteTransport.connect(socket, RemoteOptions.defaults().spinNanos(0).maxConnections(2));
        ssd = SmartSsd.over(transport);
    }

    private static void serve(SocketChannel c) {
        try (c) {
            ByteBuffer hdr = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            while (true) {
                hdr.clear();
                while (hdr.hasRemaining()) {
                    if (c.read(hdr) < 0) {
                        return;
                    }
                }
                ByteBuffer body = ByteBuffer.allocate(hdr.getInt(0));
                while (body.hasRemaining()) {
                    if (c.read(body) < 0) {
                        return;
                    }
                }
                byte[] in = REPLY.get();
                boolean raw = in.length > 0 && (in[0] & 1) == 1;
                byte[] rest = in.length > 0 ? Arrays.copyOfRange(in, 1, in.length) : in;
                ByteBuffer out;
                if (raw) {
                    out = ByteBuffer.wrap(rest);
                } else {
                    out = ByteBuffer.allocate(4 + rest.length).order(ByteOrder.LITTLE_ENDIAN);
                    out.putInt(rest.length).put(rest).flip();
                }
                while (out.hasRemaining()) {
                    c.write(out);
                }
                if (raw) {
                    return; // hang up: a client waiting for more bytes must not wait forever
                }
            }
        } catch (IOException e) {
            // the client hung up
        }
    }

    /** The libFuzzer-style entry point Jazzer's CLI calls. */
    public static void fuzzerTestOneInput(byte[] data) {
        try {
            start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        REPLY.set(data);
        int pick = data.length > 0 ? (data[0] & 0xff) >> 1 : 0;
        boolean framed = data.length == 0 || (data[0] & 1) == 0;
        byte[] body = data.length > 0 ? Arrays.copyOfRange(data, 1, data.length) : data;
        try {
            switch (pick % 6) {
                case 0 -> {
                    ByteBuffer dst = ByteBuffer.allocateDirect(1 << 16);
                    Request req = Request.newBuilder().setReadObject(ReadObject.newBuilder().setObjectId(1)
                            .setLength(dst.remaining())).build();
                    Response r = transport.call(req, null, dst);
                    if (framed) {
                        sameAsProtobuf(body, r, dst);
                    }
                }
                case 1 -> {
                    Response r = transport.call(Request.newBuilder().setTag(7).build(), null, null);
                    if (framed) {
                        sameAsProtobuf(body, r, null);
                    }
                }
                case 2 -> ssd.identify();
                case 3 -> ssd.list("");
                case 4 -> ssd.stat("some/name");
                default -> ssd.read(1, 0, ByteBuffer.allocateDirect(4096));
            }
        } catch (DeviceException expected) {
            // a refused, unreadable or broken reply: the typed error is the contract
        }
    }

    /** A correctly framed reply: the transport's answer is protobuf's parse of the same bytes. */
    private static void sameAsProtobuf(byte[] body, Response got, ByteBuffer dst) {
        Response want;
        try {
            want = Response.parseFrom(body);
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new AssertionError("the transport accepted a reply protobuf refuses: " + e.getMessage());
        }
        if (dst != null && got.hasReadObject() && got.getReadObject().getPayloadLength() > 0
                && want.getReadObject().getData().size() == got.getReadObject().getPayloadLength()) {
            // streamed: the data went into dst, the rest of the reply is the same
            byte[] streamed = new byte[(int) got.getReadObject().getPayloadLength()];
            dst.duplicate().get(streamed);
            if (!Arrays.equals(streamed, want.getReadObject().getData().toByteArray())) {
                throw new AssertionError("streamed read data differs from the reply's data field");
            }
            want = want.toBuilder().setReadObject(want.getReadObject().toBuilder().clearData()
                    .setPayloadLength(streamed.length)).build();
        }
        if (!want.equals(got)) {
            throw new AssertionError("the transport's response differs from protobuf's parse:\n" + got + "\nvs\n"
                    + want);
        }
    }

    @FuzzTest
    void responses(byte[] data) {
        fuzzerTestOneInput(data);
    }
}
