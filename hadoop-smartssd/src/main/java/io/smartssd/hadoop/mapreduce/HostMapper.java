package io.smartssd.hadoop.mapreduce;

import io.smartssd.proto.Row;
import java.io.IOException;
import java.util.function.Consumer;

/**
 * The host counterpart of a {@link DeviceMapper}: what a split runs when the offload planner leaves it to
 * the host ({@code smartssd.offload = host | auto}, docs/OFFLOAD.md). It reads the split's bytes from the
 * device over the host link ({@link HostInput}) and emits the rows the tasklet would emit over the same
 * extent, with the extent's ownership rules (a record extent owns the records whose first byte it holds, a
 * text extent the lines that start in it), so the job's {@link DeviceMapperFormat}, combiner and reducer
 * take them unchanged and the answer does not depend on where each split ran. One instance per map task,
 * made with a public no-argument constructor.
 */
public interface HostMapper {
    /** Emits the rows of input's extent. The rows are kept until the split ends: emit what the tasklet emits. */
    void map(HostInput input, Consumer<Row> rows) throws IOException;
}
