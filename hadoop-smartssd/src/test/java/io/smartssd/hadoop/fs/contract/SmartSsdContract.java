package io.smartssd.hadoop.fs.contract;

import io.smartssd.hadoop.fs.Constants;
import io.smartssd.hadoop.fs.TestImages;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Binds Hadoop's contract suites to smartssd://contract/ on one embedded "tiny" device per JVM, with the
 * semantics declared in contract/smartssd.xml.
 */
public class SmartSsdContract extends AbstractFSContract {
    public static final String DEVICE = "contract";
    private static Path image;

    public SmartSsdContract(Configuration conf) {
        super(conf);
        addConfResource("contract/smartssd.xml");
        conf.set(Constants.DEVICE_PREFIX + DEVICE + Constants.DEVICE_IMAGE_SUFFIX, image().toString());
    }

    private static synchronized Path image() {
        if (image == null) {
            image = TestImages.fresh("contract");
        }
        return image;
    }

    @Override
    public FileSystem getTestFileSystem() throws IOException {
        return FileSystem.get(URI.create(getScheme() + "://" + DEVICE + "/"), getConf());
    }

    @Override
    public String getScheme() {
        return Constants.FS_SCHEME;
    }

    @Override
    public org.apache.hadoop.fs.Path getTestPath() {
        return new org.apache.hadoop.fs.Path("/test");
    }
}
