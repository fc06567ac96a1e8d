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
    void leavesTheLocalFileSystemToHadoop() throws Exception {
        // the library sets no file:// class of its own, on LocalJobRunner or a cluster alike
        assertEquals(null, DeviceJob.getInstance(new Configuration(), "local fs").getConfiguration().get("fs.file.impl"));
        Configuration yarn = new Configuration();
        yarn.set("mapreduce.framework.name", "yarn");
        assertEquals(null, DeviceJob.getInstance(yarn, "yarn").getConfiguration().get("fs.file.impl"));
    }
}
