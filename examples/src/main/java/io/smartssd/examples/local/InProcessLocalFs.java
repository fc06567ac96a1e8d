package io.smartssd.examples.local;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFs;
import org.apache.hadoop.fs.DelegateToFileSystem;
import org.apache.hadoop.fs.FsConstants;
import org.apache.hadoop.fs.FsServerDefaults;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.local.LocalConfigKeys;

/**
 * FileContext's {@code file://} (Hadoop's {@code LocalFs}: checksummed, over the raw local file system)
 * with {@link InProcessLocalFileSystem}'s in-process chmod; LocalJobRunner creates its job directories
 * through FileContext.
 */
public class InProcessLocalFs extends ChecksumFs {
    public InProcessLocalFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
        super(new Raw(uri, conf));
    }

    public InProcessLocalFs(Configuration conf) throws IOException, URISyntaxException {
        this(FsConstants.LOCAL_FS_URI, conf);
    }

    /** Hadoop's RawLocalFs, delegating to {@link InProcessLocalFileSystem.Raw}. */
    static final class Raw extends DelegateToFileSystem {
        Raw(URI uri, Configuration conf) throws IOException, URISyntaxException {
            super(uri, new InProcessLocalFileSystem.Raw(), conf, FsConstants.LOCAL_FS_URI.getScheme(), false);
        }

        @Override
        public int getUriDefaultPort() {
            return -1; // no default port for file:///
        }

        @Override
        @Deprecated
        public FsServerDefaults getServerDefaults() throws IOException {
            return LocalConfigKeys.getServerDefaults();
        }

        @Override
        public FsServerDefaults getServerDefaults(Path f) throws IOException {
            return LocalConfigKeys.getServerDefaults();
        }

        @Override
        public boolean isValidName(String src) {
            return true; // any local path is valid (as in Hadoop's RawLocalFs)
        }
    }
}
