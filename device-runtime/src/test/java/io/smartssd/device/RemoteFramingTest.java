package io.smartssd.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.smartssd.proto.ReadObjectReply;
import io.smartssd.proto.Request;
import io.smartssd.proto.Response;
import io.smartssd.proto.Status;
import io.smartssd.proto.WriteObject;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The socket framing of RemoteTransport, checked against protobuf-java's own encoding. */
class RemoteFramingTest {
    private static byte[] concat(ByteBuffer[] frame) {
        int n = 0;
        for (ByteBuffer b : frame) {
            n += b.remaining();
        }
        ByteBuffer all = ByteBuffer.allocate(n);
        for (ByteBuffer b : frame) {
            all.put(b.duplicate());
        }
        return all.array();
    }

    @Test
    void aPlainRequestIsItsLengthAndItsBytes() throws Exception {
        Request r = Request.newBuilder().setTag(300).setStat(io.smartssd.proto.StatObject.newBuilder().setObjectId(7))
                .build();
        byte[] f = concat(RemoteTransport.frame(r, null));
        assertEquals(r.getSerializedSize(), ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN).getInt());
        assertArrayEquals(r.toByteArray(), Arrays.copyOfRange(f, 4, f.length));
    }

    @Test
    void aWriteFromADirectBufferDecodesAsTheSameWriteWithInlineData() throws Exception {
        for (int size : new int[] {1, 127, 128, 300_000}) {
            byte[] data = new byte[size];
            new Random(size).nextBytes(data);
            ByteBuffer src = ByteBuffer.allocateDirect(size + 20);
            src.position(7).put(data).flip().position(7); // bytes between position and limit only
            Request req = Request.newBuilder().setTag(1L << 40).setWriteObject(WriteObject.newBuilder()
                    .setObjectId(99).setOffset(123_456_789L)).build();
            ByteBuffer[] frame = RemoteTransport.frame(req, src);
            assertEquals(7, src.position(), "framing leaves the caller's buffer alone");
            assertTrue(frame[frame.length - 1].isDirect(), "the payload goes out from the caller's buffer");
            byte[] f = concat(frame);
            assertEquals(f.length - 4, ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN).getInt());
            Request back = Request.parseFrom(Arrays.copyOfRange(f, 4, f.length));
            Request inline = req.toBuilder().setWriteObject(req.getWriteObject().toBuilder()
                    .setData(ByteString.copyFrom(data))).build();
            assertEquals(inline, back, "size " + size);
        }
        Request withData = Request.newBuilder().setWriteObject(WriteObject.newBuilder().setData(ByteString.copyFromUtf8("x")))
                .build();
        assertThrows(IllegalArgumentException.class, () -> RemoteTransport.frame(withData, ByteBuffer.allocateDirect(1)));
    }

    @Test
    void aWriteLargerThanAPacketIsRefusedBeforeSending() {
        ByteBuffer big = ByteBuffer.allocateDirect(64 << 20);
        Request req = Request.newBuilder().setWriteObject(WriteObject.newBuilder().setObjectId(1)).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RemoteTransport.frame(req, big));
        assertTrue(e.getMessage().contains("in chunks"), e.getMessage());
    }

    private static ByteBuffer framed(Response r) {
        byte[] b = r.toByteArray();
        ByteBuffer rx = ByteBuffer.allocate(4 + b.length).order(ByteOrder.LITTLE_ENDIAN);
        rx.putInt(b.length).put(b);
        return rx;
    }

    @Test
    void locateDataFindsTheReadBytesOrSaysWhy() {
        byte[] data = new byte[10_000];
        new Random(3).nextBytes(data);
        Response r = Response.newBuilder().setTag(5).setMessage("fine").setDeviceNs(1234).setDeviceClockNs(99)
                .setReadObject(ReadObjectReply.newBuilder().setData(ByteString.copyFrom(data)).setEof(true)).build();
        ByteBuffer rx = framed(r);
        int total = rx.position();
        long[] at = RemoteTransport.locateData(rx, total, total);
        assertEquals(data.length, at[4]);
        assertArrayEquals(data, Arrays.copyOfRange(rx.array(), (int) at[3], (int) (at[3] + at[4])));
        // The same answer as soon as the bytes up to the data's start are there; before, "need more".
        assertEquals(Arrays.toString(at), Arrays.toString(RemoteTransport.locateData(rx, (int) at[3], total)));
        assertNull(RemoteTransport.locateData(rx, (int) at[3] - 1, total));
        assertNull(RemoteTransport.locateData(rx, 5, total));
        // A failed read has no read_object; an empty read has no data field.
        ByteBuffer err = framed(Response.newBuilder().setTag(5).setStatus(Status.NOT_FOUND).setMessage("no object").build());
        assertSame(RemoteTransport.NOT_A_READ, RemoteTransport.locateData(err, err.position(), err.position()));
        ByteBuffer empty = framed(Response.newBuilder().setReadObject(ReadObjectReply.newBuilder().setEof(true)).build());
        assertSame(RemoteTransport.NOT_A_READ, RemoteTransport.locateData(empty, empty.position(), empty.position()));
    }
}
