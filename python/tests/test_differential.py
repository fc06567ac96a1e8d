"""Differential queries through PySpark: each query on the smartssd format (pushed into the device) against
the same query on Spark's own readers of the same bytes, on local[2] and local-cluster (executors in
other JVMs, each reaching the daemon). The session comes from smartssd.configure_spark."""
import pytest

from conftest import ENTRY_BYTES, REGIONS, wc98_rows

CSV_SCHEMA = "a INT, b STRING, c DOUBLE"


def rows(df):
    return sorted((tuple(r) for r in df.collect()), key=repr)


def scan_line(df):
    """The smartssd scan's line of the physical plan (what it says was pushed)."""
    plan = df._jdf.queryExecution().executedPlan().toString()
    return next((l for l in plan.splitlines() if "SmartSsdScan" in l), plan)


@pytest.mark.parametrize("name,sep", [("space.csv", " "), ("tab.csv", "\t")])
def test_csv_delimiters(spark, inputs, name, sep):
    local = inputs.space_csv if sep == " " else inputs.tab_csv
    dev = spark.read.format("smartssd").schema(CSV_SCHEMA).option("delimiter", sep).load("smartssd://d0/" + name)
    own = spark.read.schema(CSV_SCHEMA).option("sep", sep).csv(local)
    assert len(rows(dev)) == 4000 and rows(dev) == rows(own)
    for where in ["b = 'gamma' AND c < 0", "a IS NULL"]:
        assert rows(dev.where(where)) == rows(own.where(where)), where
    q = "SELECT b, count(*), sum(a), min(c), max(c) FROM {t} WHERE a >= 10 GROUP BY b"
    dev.createOrReplaceTempView("dev_t")
    own.createOrReplaceTempView("own_t")
    got = spark.sql(q.format(t="dev_t"))
    assert rows(got) == rows(spark.sql(q.format(t="own_t")))
    assert "PushedFilters" in scan_line(got)


def test_text_like(spark, inputs):
    dev = spark.read.format("smartssd").option("format", "text").load("smartssd://d0/access.log")
    own = spark.read.text(inputs.log)
    for like in ["%/images/%", "%no such thing%"]:
        d = dev.where("value LIKE '%s'" % like)
        assert rows(d) == rows(own.where("value LIKE '%s'" % like)), like
    pushed = dev.where("value LIKE '%/images/%'")
    assert "grep2 start='/images/'" in scan_line(pushed)


def test_parquet_written_by_spark_read_by_the_device(spark, inputs):
    own = spark.read.schema(CSV_SCHEMA).option("sep", " ").csv(inputs.space_csv)
    path = "smartssd://d0/pq-%s" % spark.sparkContext.master.replace("[", "-").replace("]", "").replace(",", "-")
    own.repartition(3).write.mode("overwrite").parquet(path)      # Spark's writer, through smartssd://
    dev = spark.read.format("smartssd").option("format", "parquet").load(path)
    back = spark.read.parquet(path)                               # Spark's own Parquet reader, same bytes
    assert rows(dev) == rows(back) == rows(own)
    q = dev.where("c > 2.5 AND b <> 'beta'").groupBy("b").agg({"a": "sum", "*": "count"})
    assert rows(q) == rows(back.where("c > 2.5 AND b <> 'beta'").groupBy("b").agg({"a": "sum", "*": "count"}))


def test_wc98(spark, inputs):
    dev = spark.read.format("smartssd").option("format", "wc98").option("entry_bytes", str(ENTRY_BYTES)) \
        .load("smartssd://d0/wc98.bin")
    own = spark.createDataFrame(wc98_rows(inputs.wc98), "region INT, type INT, status_code INT, size BIGINT")
    q = "region, type, count(*) AS n, sum(size) AS bytes"
    for where in ["type = 1 AND region < 3", "size IS NULL"]:
        got = dev.where(where).groupBy("region", "type").agg({"*": "count", "size": "sum"})
        want = own.where(where).groupBy("region", "type").agg({"*": "count", "size": "sum"})
        assert rows(got) == rows(want), (q, where)


def test_user_tasklet(spark, inputs):
    """The weblog-q1 tasklet built with the SDK (WebAssembly) and installed as q1-user: accesses per region."""
    q1 = spark.read.format("smartssd").schema("region STRING, count BIGINT").option("tasklet", "q1-user") \
        .option("param.entry_bytes", str(ENTRY_BYTES)).load("smartssd://d0/wc98.bin")
    got = {r[0]: r[1] for r in q1.groupBy("region").sum("count").collect()}
    want = {}
    for region, _, _, _ in wc98_rows(inputs.wc98):
        want[REGIONS[region]] = want.get(REGIONS[region], 0) + 1
    assert got == want
    own = spark.createDataFrame([(REGIONS[r],) for r, _, _, _ in wc98_rows(inputs.wc98)], "region STRING")
    assert rows(q1.where("region = 'Paris'").groupBy("region").sum("count")) == \
        rows(own.where("region = 'Paris'").groupBy("region").count())
