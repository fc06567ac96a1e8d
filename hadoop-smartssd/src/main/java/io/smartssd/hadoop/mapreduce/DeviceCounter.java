package io.smartssd.hadoop.mapreduce;

/**
 * Per task and (summed) per job: what a DeviceJob's maps cost on the device and on the host link.
 * Display names are in DeviceCounter.properties.
 */
public enum DeviceCounter {
    /** Virtual device time of the tasklet executions (execute to finish), ns. */
    DEVICE_NANOS,
    /** Bytes the tasklets read from flash. */
    FLASH_BYTES_READ,
    /** Result bytes the device sent to the host. */
    BYTES_TO_HOST,
    /** Result rows the device sent. */
    ROWS,
    /** Device commands the maps issued (create, execute, stat, reads, deletes). */
    COMMANDS,
    /** read_object polls of the output objects. */
    POLLS,
    /** Map tasks (splits) executed on a device. */
    SPLITS
}
