package io.smartssd.hadoop.mapreduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.device.DeviceException;
import io.smartssd.device.DeviceException.Code;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.junit.jupiter.api.Test;

/** The configuration key in a rejection comes from the device's param field, never from its wording. */
class DeviceMapperCheckTest {
    private static final FileSplit SPLIT = new FileSplit(new Path("smartssd://d0/x.bin"), 0, 100, null);

    @Test
    void theParamFieldNamesTheKey() {
        DeviceMapper m = DeviceMapper.tasklet("weblog-q2").param("entry_bytes", "20").runtimeParam("top_n", "99");
        String s = DeviceMapperCheck.describe(m, "d0", SPLIT,
                new DeviceException(Code.INVALID_ARGUMENT, "something is off", "top_n"));
        assertTrue(s.endsWith("[configuration key smartssd.mapper.runtime.top_n = 99]"), s);
        s = DeviceMapperCheck.describe(m, "d0", SPLIT,
                new DeviceException(Code.INVALID_ARGUMENT, "something else is off", "entry_bytes"));
        assertTrue(s.endsWith("[configuration key smartssd.mapper.param.entry_bytes = 20]"), s);
        assertTrue(s.contains("smartssd device 'd0' rejected the DeviceMapper (tasklet 'weblog-q2') on smartssd://d0/x.bin"
                + ": INVALID_ARGUMENT: something else is off"), s);
    }

    @Test
    void aMessageThatMentionsAParamNamesNoKey() {
        DeviceMapper m = DeviceMapper.tasklet("weblog-q1").param("entry_bytes", "20");
        String s = DeviceMapperCheck.describe(m, "d0", SPLIT,
                new DeviceException(Code.INVALID_ARGUMENT, "param entry_bytes: does not fit the object"));
        assertFalse(s.contains("configuration key"), s);
        assertEquals("smartssd.mapper.param.entry_bytes", DeviceMapperCheck.configKey(m, "entry_bytes"));
    }
}
