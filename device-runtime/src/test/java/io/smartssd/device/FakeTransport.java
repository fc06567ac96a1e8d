package io.smartssd.device;

import com.google.protobuf.ByteString;
import io.smartssd.proto.Progress;
import io.smartssd.proto.ReadObjectReply;
import io.smartssd.proto.Request;
import io.smartssd.proto.Response;
import io.smartssd.proto.Row;
import io.smartssd.proto.Status;
import io.smartssd.proto.Value;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.LongFunction;

/**
 * A scripted output object for testing the polling side alone: script(now) says what a read_object at
 * wall time now returns. Answers only read_object.
 */
final class FakeTransport implements Transport {
    /** One poll's answer. */
    record Answer(List<Row> rows, Progress progress) {
    }

    private final LongFunction<Answer> script;
    private final boolean background;
    int polls;

    FakeTransport(LongFunction<Answer> script, boolean background) {
        this.script = script;
        this.background = background;
    }

    @Override
    public synchronized Response call(Request request, ByteBuffer in, ByteBuffer out) {
        if (!request.hasReadObject()) {
            return Response.newBuilder().setTag(request.getTag()).setStatus(Status.UNSUPPORTED)
                    .setMessage("fake answers only read_object").build();
        }
        polls++;
        Answer a = script.apply(System.nanoTime());
        return Response.newBuilder().setTag(request.getTag()).setDeviceNs(1000)
                .setReadObject(ReadObjectReply.newBuilder().setData(delimited(a.rows())).setProgress(a.progress()))
                .build();
    }

    static ByteString delimited(List<Row> rows) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            for (Row r : rows) {
                r.writeDelimitedTo(bytes);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ByteString.copyFrom(bytes.toByteArray());
    }

    static Row row(String s, long n) {
        return Row.newBuilder().addValues(Value.newBuilder().setS(ByteString.copyFromUtf8(s)))
                .addValues(Value.newBuilder().setI(n)).build();
    }

    @Override
    public boolean background() {
        return background;
    }

    @Override
    public String description() {
        return "fake";
    }

    @Override
    public void close() {
    }
}
