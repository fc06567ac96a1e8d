package io.smartssd.hadoop.fs.impl;

import io.smartssd.device.ObjectInfo;
import io.smartssd.hadoop.fs.Statistic;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * rename, with HDFS's return-false conventions: a file is one atomic device rename (never replacing an
 * existing name); a directory renames each object under it in turn, so a directory rename is
 * <b>not</b> atomic (an interrupted one leaves objects on both sides, none lost).
 */
public final class RenameOperation {
    private static final Logger LOG = LoggerFactory.getLogger(RenameOperation.class);

    private RenameOperation() {
    }

    public static boolean rename(StoreContext ctx, Path src, Path dst) throws IOException {
        if (src.isRoot()) {
            LOG.debug("rename {} -> {}: cannot rename the root", src, dst);
            return false;
        }
        Probe from = GetFileStatusOperation.probe(ctx, src);
        if (!from.exists()) {
            LOG.debug("rename {} -> {}: no source", src, dst);
            return false;
        }
        Probe to = GetFileStatusOperation.probe(ctx, dst);
        if (to.isDirectory()) {
            // into an existing directory, keeping the source's name
            dst = new Path(dst, src.getName());
            to = GetFileStatusOperation.probe(ctx, dst);
        }
        if (dst.equals(src)) {
            return from.isFile();
        }
        if (to.exists()) {
            LOG.debug("rename {} -> {}: destination exists", src, dst);
            return false;
        }
        if (from.isDirectory() && isUnder(dst, src)) {
            LOG.debug("rename {} -> {}: destination lies inside the source", src, dst);
            return false;
        }
        Path parent = dst.getParent();
        if (parent != null && !parent.isRoot()) {
            Probe pp = GetFileStatusOperation.probe(ctx, parent);
            if (!pp.isDirectory()) {
                LOG.debug("rename {} -> {}: destination parent {} is {}", src, dst, parent,
                        pp.exists() ? "a file" : "missing");
                return false;
            }
        }
        String dstName = ObjectNames.name(dst);
        ObjectNames.check(dst, dstName);
        if (from.isFile()) {
            renameObject(ctx, src, from.file(), dstName);
            return true;
        }
        renameDirectory(ctx, src, dst, dstName);
        return true;
    }

    private static void renameDirectory(StoreContext ctx, Path src, Path dst, String dstName) throws IOException {
        String srcPrefix = ObjectNames.childPrefix(ObjectNames.name(src));
        String dstPrefix = ObjectNames.childPrefix(dstName);
        // The destination exists as a directory from the first step, whatever happens after.
        MkdirsOperation.createMarker(ctx, dst);
        List<ObjectInfo> under = ctx.call("list", src, () -> ctx.device().list(srcPrefix)).objects();
        ObjectInfo srcMarker = null;
        for (ObjectInfo o : under) {
            if (o.name().equals(srcPrefix)) {
                srcMarker = o;
                continue;
            }
            String target = dstPrefix + o.name().substring(srcPrefix.length());
            ObjectNames.check(dst, target);
            renameObject(ctx, src, o, target);
        }
        if (srcMarker != null) {
            DeleteOperation.deleteObject(ctx, src, srcMarker);
        }
    }

    private static void renameObject(StoreContext ctx, Path src, ObjectInfo o, String newName) throws IOException {
        ctx.call("rename", src, () -> ctx.device().rename(o.id(), newName, false));
        ctx.increment(Statistic.OBJECTS_RENAMED, 1);
    }

    /** child is strictly below parent. */
    static boolean isUnder(Path child, Path parent) {
        for (Path p = child.getParent(); p != null; p = p.getParent()) {
            if (p.equals(parent)) {
                return true;
            }
        }
        return false;
    }
}
