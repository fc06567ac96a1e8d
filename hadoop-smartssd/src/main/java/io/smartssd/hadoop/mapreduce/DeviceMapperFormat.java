package io.smartssd.hadoop.mapreduce;

import io.smartssd.proto.Row;
import java.io.IOException;
import java.util.function.BiConsumer;
import org.apache.hadoop.conf.Configured;

/**
 * Turns the rows a {@link DeviceMapper}'s tasklet sends to the host into the key/value pairs the
 * combiner and reducer take (Smart SSD paper III-C). One instance per map task, configured with the job
 * configuration; a row may give any number of pairs. Subclasses need a public no-argument constructor.
 *
 * @param <K> map output key
 * @param <V> map output value
 */
public abstract class DeviceMapperFormat<K, V> extends Configured {
    /** The map output key class (the job's setMapOutputKeyClass). */
    public abstract Class<K> keyClass();

    /** The map output value class. */
    public abstract Class<V> valueClass();

    /**
     * Emits the pairs of one row. Emitted objects are handed on as they are: emit new ones per pair.
     *
     * @throws IOException a row this format cannot take (the message should say which column and why)
     */
    public abstract void convert(Row row, BiConsumer<K, V> out) throws IOException;
}
