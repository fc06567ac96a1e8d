package io.smartssd.device;

import io.smartssd.proto.ColumnType;
import io.smartssd.proto.FilterOp;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * An installed user tasklet program: its name (what {@link SmartSsd#createTasklet} takes), format
 * ("wasm" or "native"), the data object holding it, its size in bytes and content hash, what it says of
 * itself (its summary) and its declared output: the schema as written ("" = none) and its columns, each
 * with the filters the device may apply to it ({@link SmartSsd#createTasklet(String, java.util.Map,
 * io.smartssd.proto.Plan, io.smartssd.proto.Expr)}).
 */
public record UserTasklet(String name, String format, long programId, long size, String hash, String summary,
                          String schema, List<Column> columns) {

    /** A declared output column: its name, device type and the filters it takes (empty: none). */
    public record Column(String name, ColumnType type, Set<FilterOp> filters) {
        public Column {
            filters = Set.copyOf(filters);
        }
    }

    public UserTasklet {
        summary = summary == null ? "" : summary;
        schema = schema == null ? "" : schema;
        columns = columns == null ? List.of() : List.copyOf(columns);
    }

    /** A program that declares nothing (no summary, no schema). */
    public UserTasklet(String name, String format, long programId, long size, String hash) {
        this(name, format, programId, size, hash, "", "", List.of());
    }

    /** The declared column named name (case-insensitive), if any. */
    public Optional<Column> column(String name) {
        return columns.stream().filter(c -> c.name().equalsIgnoreCase(name)).findFirst();
    }
}
