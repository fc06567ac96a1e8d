package io.smartssd.hadoop.fs;

import org.apache.hadoop.fs.statistics.StoreStatisticNames;
import org.apache.hadoop.fs.statistics.StreamStatisticNames;

/**
 * The counters a {@link SmartSsdFileSystem} reports through {@code getIOStatistics()}. Operation names
 * are Hadoop's own ({@link StoreStatisticNames}); the device ones count what crossed the host link.
 */
public enum Statistic {
    OP_CREATE(StoreStatisticNames.OP_CREATE, "create() calls"),
    OP_APPEND(StoreStatisticNames.OP_APPEND, "append() calls"),
    OP_OPEN(StoreStatisticNames.OP_OPEN, "open() calls"),
    OP_DELETE(StoreStatisticNames.OP_DELETE, "delete() calls"),
    OP_MKDIRS(StoreStatisticNames.OP_MKDIRS, "mkdirs() calls"),
    OP_RENAME(StoreStatisticNames.OP_RENAME, "rename() calls"),
    OP_GET_FILE_STATUS(StoreStatisticNames.OP_GET_FILE_STATUS, "getFileStatus() calls"),
    OP_LIST_STATUS(StoreStatisticNames.OP_LIST_STATUS, "listStatus() calls"),
    OP_SET_TIMES(StoreStatisticNames.OP_SET_TIMES, "setTimes() calls"),
    OBJECTS_RENAMED("object_rename", "objects renamed on the device (a directory rename renames each)"),
    OBJECTS_DELETED("object_delete", "objects deleted on the device"),
    DEVICE_COMMANDS("device_commands", "commands sent to the device"),
    DEVICE_NANOS("device_nanos", "virtual device time of those commands (ns)"),
    BYTES_TO_HOST("bytes_to_host", "bytes the device sent to the host: object data read and tasklet results"),
    BYTES_FROM_HOST("bytes_from_host", "object data bytes written to the device"),
    STREAM_READ_BYTES(StreamStatisticNames.STREAM_READ_BYTES, "bytes read by input streams"),
    STREAM_WRITE_BYTES(StreamStatisticNames.STREAM_WRITE_BYTES, "bytes written by output streams");

    private final String symbol;
    private final String description;

    Statistic(String symbol, String description) {
        this.symbol = symbol;
        this.description = description;
    }

    /** The name in IOStatistics. */
    public String symbol() {
        return symbol;
    }

    public String description() {
        return description;
    }
}
