"""smartssd for PySpark: the Spark runtime jar this package carries, and configure_spark(), which puts it
and the devices it should reach on a SparkSession builder (as delta-spark's configure_spark_with_delta_pip
does for Delta).

    spark = smartssd.configure_spark(SparkSession.builder.master("local[2]"),
                                     devices={"d0": {"socket": "/run/smartssd/csdd.sock"}}).getOrCreate()
    spark.read.format("smartssd").option("format", "text").load("smartssd://d0/access.log")
"""
import os
import stat

__all__ = ["runtime_jar", "configure_spark", "device_conf"]
__version__ = "0.1.0"

_KINDS = ("image", "socket", "host", "host-threads", "host-reader", "background")


def runtime_jar():
    """The path of spark-smartssd-runtime.jar inside this package (the one jar Spark needs)."""
    jar = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars", "spark-smartssd-runtime.jar")
    if not os.path.isfile(jar):
        raise FileNotFoundError("smartssd: %s is missing: this package was installed without its jar" % jar)
    return jar


def _device_keys(dev_id, spec):
    if not isinstance(dev_id, str) or not dev_id or "/" in dev_id or ":" in dev_id:
        raise ValueError("smartssd: device id %r: a non-empty name without '/' or ':' (the authority of "
                         "smartssd://ID/...)" % (dev_id,))
    if isinstance(spec, (str, os.PathLike)):
        path = os.fspath(spec)
        # a path names a daemon's socket when it is one, else an image opened inside each JVM
        try:
            kind = "socket" if stat.S_ISSOCK(os.stat(path).st_mode) else "image"
        except OSError:
            kind = "image"
        spec = {kind: path}
    if not isinstance(spec, dict):
        raise TypeError("smartssd: device %r: a path or a dict of %s, got %r" % (dev_id, ", ".join(_KINDS), spec))
    unknown = sorted(set(spec) - set(_KINDS))
    if unknown:
        raise ValueError("smartssd: device %r: unknown key(s) %s (known: %s)" % (dev_id, ", ".join(unknown),
                                                                               ", ".join(_KINDS)))
    if ("image" in spec) == ("socket" in spec):
        raise ValueError("smartssd: device %r: give exactly one of image (an embedded device) or socket "
                         "(a csdd daemon), got %s" % (dev_id, sorted(spec)))
    out = {}
    for k, v in spec.items():
        v = os.path.abspath(os.fspath(v)) if k in ("image", "socket") else str(v).lower() if isinstance(v, bool) else str(v)
        out["fs.smartssd.device.%s.%s" % (dev_id, k)] = v
    return out


def device_conf(devices):
    """The Hadoop keys for devices ({id: path or {image|socket|host|...: value}}), without a prefix."""
    out = {"fs.smartssd.impl": "io.smartssd.hadoop.fs.SmartSsdFileSystem",
           "fs.AbstractFileSystem.smartssd.impl": "io.smartssd.hadoop.fs.SmartSsdFs"}
    for dev_id, spec in (devices or {}).items():
        out.update(_device_keys(dev_id, spec))
    return out


def configure_spark(builder, devices=None, jar=None):
    """Adds the runtime jar to the builder's spark.jars (after any jars it names already) and the devices'
    keys as spark.hadoop.* entries (so Spark's own readers and writers reach smartssd:// too); returns the
    builder. devices: {id: path} (a socket path: a csdd daemon, any other path: an image) or
    {id: {"image"|"socket": path, "host": name, ...}}."""
    jar = os.path.abspath(jar) if jar else runtime_jar()
    conf = getattr(builder, "_options", {})
    jars = [j for j in conf.get("spark.jars", "").split(",") if j and j != jar]
    builder = builder.config("spark.jars", ",".join(jars + [jar]))
    for k, v in device_conf(devices).items():
        builder = builder.config("spark.hadoop." + k, v)
    return builder
