package io.smartssd.hadoop.fs.impl;

import io.smartssd.device.ObjectInfo;
import org.apache.hadoop.fs.FileStatus;

/**
 * What a path is on the device: a file (with its object), a directory (with or without its marker
 * object), or nothing ({@link #status} null).
 *
 * @param status the FileStatus, null when the path does not exist
 * @param file   the data object of a file, else null
 * @param marker the marker object of a directory that has one, else null
 */
public record Probe(FileStatus status, ObjectInfo file, ObjectInfo marker) {
    public boolean exists() {
        return status != null;
    }

    public boolean isFile() {
        return file != null;
    }

    public boolean isDirectory() {
        return status != null && status.isDirectory();
    }
}
