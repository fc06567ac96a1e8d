package io.smartssd.hadoop.fs.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractStreamIOStatisticsTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

public class TestSmartSsdContractStreamIOStatistics extends AbstractContractStreamIOStatisticsTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new SmartSsdContract(conf);
    }

    /** Output streams send a buffer at a time: stream_write_bytes moves when the buffer goes to the device. */
    @Override
    public boolean streamWritesInBlocks() {
        return true;
    }
}
