package io.smartssd.hadoop.fs;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.DelegateToFileSystem;

/**
 * {@code smartssd://} for {@link org.apache.hadoop.fs.FileContext} (as hadoop-aws's {@code S3A} is for
 * S3AFileSystem): every call goes to a {@link SmartSsdFileSystem}. Named by
 * {@value Constants#AFS_IMPL}.
 */
public class SmartSsdFs extends DelegateToFileSystem {
    public SmartSsdFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
        super(uri, new SmartSsdFileSystem(), conf, Constants.FS_SCHEME, false);
    }

    @Override
    public int getUriDefaultPort() {
        return -1; // a device is named by the authority alone
    }
}
