package io.smartssd.hadoop.mapreduce;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.junit.jupiter.api.Test;

/** Defaults a DeviceJob picks for itself, and that a user's own setting wins. */
class DeviceJobConfigTest {
    @Test
    void smallSortBufferUnlessTheUserSetsOne() throws Exception {
        DeviceJob job = DeviceJob.getInstance(new Configuration(), "sort buffer");
        assertEquals(DeviceJob.DEFAULT_SORT_MB, job.getConfiguration().getInt(MRJobConfig.IO_SORT_MB, -1));

        Configuration mine = new Configuration();
        mine.setInt(MRJobConfig.IO_SORT_MB, 64);
        assertEquals(64, DeviceJob.getInstance(mine, "mine").getConfiguration().getInt(MRJobConfig.IO_SORT_MB, -1));
    }

    @Test
    void inProcessLocalFileSystemUnlessTheUserNamesOne() throws Exception {
        DeviceJob job = DeviceJob.getInstance(new Configuration(), "local fs");
        assertEquals(io.smartssd.hadoop.local.InProcessLocalFileSystem.class,
                job.getConfiguration().getClass("fs.file.impl", null));

        Configuration mine = new Configuration();
        mine.set("fs.file.impl", org.apache.hadoop.fs.LocalFileSystem.class.getName());
        assertEquals(org.apache.hadoop.fs.LocalFileSystem.class,
                DeviceJob.getInstance(mine, "mine").getConfiguration().getClass("fs.file.impl", null));

        // on a cluster the job's file system stays Hadoop's: its daemons load fs.file.impl before the job's jar
        Configuration yarn = new Configuration();
        yarn.set("mapreduce.framework.name", "yarn");
        assertEquals(null, DeviceJob.getInstance(yarn, "yarn").getConfiguration().get("fs.file.impl"),
                "unset: Hadoop finds its LocalFileSystem itself");
    }
}
