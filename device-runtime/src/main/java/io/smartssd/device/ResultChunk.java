package io.smartssd.device;

import io.smartssd.proto.Row;
import java.util.List;

/** One read_object of an output: the rows it brought and the tasklet's progress. */
public record ResultChunk(List<Row> rows, TaskProgress progress, long deviceNanos) implements DeviceTimed {
    public ResultChunk {
        rows = List.copyOf(rows);
    }
}
