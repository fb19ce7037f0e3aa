"""The statistics Floe reports to Spark's optimizer (SupportsReportStatistics) and shows in
``DESCRIBE EXTENDED t col``: distinct counts from the theta sketches of the table's Puffin
statistics files (mostly written here by Apache Iceberg's own ``compute_table_stats`` on the Floe
table, so Floe is shown to read Iceberg's Puffin files), min/max/null counts from the manifests'
per-file metrics, lengths from the column types and sizes; the documented estimate after later
appends; a corrupt or missing statistics file (skipped with a warning naming it, the table still
readable, an older file used instead); and a three-way join whose cost-based join order changes
once statistics exist (after Floe's ANALYZE TABLE, and after Iceberg's procedure).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from collections.abc import Callable

    from pyspark.sql import SparkSession

#: A table with one column of each kind of statistics: numbers (with nulls), a date, a timestamp,
#: a decimal, a double with nulls, and a string (distinct count and length only, as Spark's own).
COLUMNS = "id BIGINT, n INT, s STRING, d DATE, ts TIMESTAMP, dec DECIMAL(10,2), x DOUBLE"
BATCH = (
    "SELECT id, IF(id % 9 = 0, NULL, CAST(id % 40 AS INT)), "
    "CONCAT('value-', CAST(id % 7 AS STRING)), "
    "DATE_ADD(DATE'2024-01-01', CAST(id % 30 AS INT)), "
    "TIMESTAMP'2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id), "
    "CAST(id AS DECIMAL(10,2)) / 4, IF(id % 5 = 0, NULL, id * 1.5) FROM range({lo}, {hi})"
)
FIXED_WIDTH = {"id": 8, "n": 4, "d": 4, "ts": 8, "dec": 8, "x": 8}


def create_table(spark: SparkSession, table: str, batches: list[tuple[int, int]]) -> None:
    spark.sql(f"CREATE TABLE {table} ({COLUMNS})")
    for lo, hi in batches:  # one commit (and at least one file) per batch
        spark.sql(f"INSERT INTO {table} " + BATCH.format(lo=lo, hi=hi))


def iceberg_stats(spark: SparkSession, iceberg: str, namespace: str, name: str) -> Path:
    """Runs Iceberg's compute_table_stats on the Floe table; returns the Puffin file it wrote."""
    rows = spark.sql(
        f"CALL {iceberg}.system.compute_table_stats(table => '{namespace}.{name}')"
    ).collect()
    return Path(local_path(rows[0][0]))


def optimizer_stats(spark: SparkSession, table: str) -> tuple[int, dict[str, dict[str, Any]]]:
    """The row count and per-column statistics of the table's scan in the optimized plan."""
    plan = spark.table(table)._jdf.queryExecution().optimizedPlan()
    stats = plan.stats()
    output = plan.output()
    columns: dict[str, dict[str, Any]] = {}
    for i in range(output.size()):
        attr = output.apply(i)
        found = stats.attributeStats().get(attr)
        if not found.isDefined():
            continue
        stat = found.get()

        def value(option: Any) -> Any:
            # py4j converts BigInt and boxed numbers to int and float
            return option.get() if option.isDefined() else None

        columns[attr.name()] = {
            "distinct": value(stat.distinctCount()),
            "min": value(stat.min()),
            "max": value(stat.max()),
            "nulls": value(stat.nullCount()),
            "avg_len": value(stat.avgLen()),
            "max_len": value(stat.maxLen()),
        }
    return int(stats.rowCount().get()), columns


def exact(spark: SparkSession, table: str, column: str) -> dict[str, Any]:
    row = spark.sql(
        f"SELECT count(DISTINCT {column}), count(*) - count({column}), "
        f"CAST(min({column}) AS STRING), CAST(max({column}) AS STRING) FROM {table}"
    ).collect()[0]
    return {"distinct": row[0], "nulls": row[1], "min": row[2], "max": row[3]}


def describe(spark: SparkSession, statement: str) -> dict[str, str]:
    return {r[0]: r[1] for r in spark.sql(statement).collect()}


def test_column_statistics_match_exact_aggregates(
    spark: SparkSession, iceberg: str, namespace: str
) -> None:
    table = f"floe.{namespace}.t"
    create_table(spark, table, [(0, 300), (300, 700)])
    rows, before = optimizer_stats(spark, table)
    assert rows == 700
    # bounds and counts come from the manifests: there before any statistics file
    assert before["id"]["min"] == 0 and before["id"]["max"] == 699 and before["id"]["nulls"] == 0
    assert all(c["distinct"] is None for c in before.values()), before

    puffin = iceberg_stats(spark, iceberg, namespace, "t")
    assert puffin.is_file()
    rows, stats = optimizer_stats(spark, table)
    assert rows == 700
    for column in ("id", "n", "s", "d", "ts", "dec", "x"):
        want = exact(spark, table, column)
        got = stats[column]
        # Iceberg's theta sketches (4096 nominal entries) are exact below a few thousand values
        assert got["distinct"] == want["distinct"], column
        assert got["nulls"] == want["nulls"], column
        if column in FIXED_WIDTH:
            assert got["avg_len"] == got["max_len"] == FIXED_WIDTH[column], column
    assert (stats["id"]["min"], stats["id"]["max"]) == (0, 699)
    assert (stats["n"]["min"], stats["n"]["max"]) == (0, 39)
    assert (stats["x"]["min"], stats["x"]["max"]) == (1.5, 699 * 1.5)
    assert (stats["d"]["min"], stats["d"]["max"]) == (19723, 19752)  # days: Spark's internal value
    start = 1704067200000000  # micros: Spark's internal value
    assert (stats["ts"]["min"], stats["ts"]["max"]) == (start, start + 699_000_000)
    assert (str(stats["dec"]["min"]), str(stats["dec"]["max"])) == ("0.00", "174.75")
    # strings: no min/max (Spark's own ANALYZE has none; bounds may be truncated); avg stored bytes
    assert stats["s"]["min"] is None and stats["s"]["max"] is None and stats["s"]["max_len"] is None
    assert stats["s"]["avg_len"] is not None and stats["s"]["avg_len"] >= 1

    # with CBO on, Spark's filter estimation uses the ranges: every type's value is well-formed
    spark.conf.set("spark.sql.cbo.enabled", "true")
    try:
        where = (
            "d >= DATE'2024-01-16' AND ts < TIMESTAMP'2024-01-01 00:10:00' AND dec < 100 "
            "AND x > 3 AND n >= 1 AND id BETWEEN 10 AND 400"
        )
        query = spark.sql(f"SELECT * FROM {table} WHERE {where}")
        estimate = int(query._jdf.queryExecution().optimizedPlan().stats().rowCount().get())
        assert 0 < estimate < 700, estimate
        assert query.count() == spark.sql(f"SELECT * FROM {table}").filter(where).count()
    finally:
        spark.conf.unset("spark.sql.cbo.enabled")


def test_stale_statistics_after_append_use_documented_estimate(
    spark: SparkSession, iceberg: str, namespace: str
) -> None:
    table = f"floe.{namespace}.t"
    create_table(spark, table, [(0, 400)])
    iceberg_stats(spark, iceberg, namespace, "t")
    _, analyzed = optimizer_stats(spark, table)
    assert analyzed["id"]["distinct"] == 400 and analyzed["s"]["distinct"] == 7
    spark.sql(f"INSERT INTO {table} " + BATCH.format(lo=400, hi=600))
    rows, stale = optimizer_stats(spark, table)
    assert rows == 600
    # ndv(now) = min(ceil(ndv * rows(now) / rows(analyzed)), non-null rows)
    assert stale["id"]["distinct"] == math.ceil(400 * 600 / 400) == 600
    assert stale["s"]["distinct"] == math.ceil(7 * 600 / 400) == 11
    nulls = exact(spark, table, "x")["nulls"]
    scaled = math.ceil(analyzed["x"]["distinct"] * 600 / 400)
    assert stale["x"]["distinct"] == min(scaled, 600 - nulls)
    # bounds and null counts stay exact: they come from the manifests of the scanned snapshot
    assert (stale["id"]["min"], stale["id"]["max"], stale["x"]["nulls"]) == (0, 599, nulls)


def test_corrupt_or_missing_statistics_file_is_skipped_with_a_warning(
    spark: SparkSession, iceberg: str, namespace: str
) -> None:
    jvm: Any = spark._jvm
    for name, damage in (("corrupt", "corrupt"), ("missing", "missing")):
        table = f"floe.{namespace}.{name}"
        create_table(spark, table, [(0, 100)])
        puffin = iceberg_stats(spark, iceberg, namespace, name)
        if damage == "corrupt":
            data = bytearray(puffin.read_bytes())
            data[-4:] = b"XXXX"  # the footer's closing magic
            puffin.write_bytes(bytes(data))
        else:
            puffin.unlink()
        assert spark.table(table).count() == 100
        assert spark.sql(f"SELECT sum(id) FROM {table}").collect()[0][0] == sum(range(100))
        rows, stats = optimizer_stats(spark, table)
        assert rows == 100 and stats["id"]["distinct"] is None and stats["id"]["max"] == 99
        warnings = list(jvm.io.floe.spark.source.StatisticsFileNdvs.recentWarnings())
        assert any(str(puffin) in w and table in w for w in warnings), warnings
        assert describe(spark, f"DESCRIBE EXTENDED {table} id")["distinct_count"] == "NULL"


def test_corrupt_newest_statistics_file_falls_back_to_an_older_one(
    spark: SparkSession, iceberg: str, namespace: str
) -> None:
    table = f"floe.{namespace}.t"
    create_table(spark, table, [(0, 300)])
    iceberg_stats(spark, iceberg, namespace, "t")
    spark.sql(f"INSERT INTO {table} " + BATCH.format(lo=300, hi=450))
    newest = iceberg_stats(spark, iceberg, namespace, "t")  # corrupted before Floe reads it
    spark.sql(f"INSERT INTO {table} " + BATCH.format(lo=450, hi=600))
    newest.write_bytes(b"not a Puffin file")
    rows, stats = optimizer_stats(spark, table)
    assert rows == 600
    # the first file (300 rows analyzed) with the documented estimate for the 300 rows added since
    assert stats["id"]["distinct"] == math.ceil(300 * 600 / 300) == 600
    assert stats["s"]["distinct"] == math.ceil(7 * 600 / 300) == 14
    jvm: Any = spark._jvm
    warnings = list(jvm.io.floe.spark.source.StatisticsFileNdvs.recentWarnings())
    assert any(str(newest) in w for w in warnings), warnings


def test_describe_extended_column_shows_statistics_as_for_spark_tables(
    spark: SparkSession, iceberg: str, namespace: str
) -> None:
    table = f"floe.{namespace}.t"
    create_table(spark, table, [(0, 200)])
    iceberg_stats(spark, iceberg, namespace, "t")
    parquet = f"spark_catalog.default.{namespace}_parquet"
    spark.sql(f"CREATE TABLE {parquet} ({COLUMNS}) USING parquet")
    try:
        spark.sql(f"INSERT INTO {parquet} " + BATCH.format(lo=0, hi=200))
        spark.sql(f"ANALYZE TABLE {parquet} COMPUTE STATISTICS FOR ALL COLUMNS")
        for column in ("id", "n", "d", "ts", "dec", "x", "s"):
            for statement in (
                f"DESCRIBE EXTENDED {table} {column}",
                f"DESCRIBE TABLE EXTENDED {table} {column}",
            ):
                floe_rows = spark.sql(statement).collect()
                spark_rows = spark.sql(f"DESCRIBE EXTENDED {parquet} {column}").collect()
                # the same rows, in the same order, as Spark's own analyzed table
                assert [r[0] for r in floe_rows] == [r[0] for r in spark_rows]
                got: dict[str, str] = {r[0]: r[1] for r in floe_rows}
                want: dict[str, str] = {r[0]: r[1] for r in spark_rows}
                assert got["distinct_count"] == str(exact(spark, table, column)["distinct"])
                for key in ("min", "max", "num_nulls", "histogram", "data_type"):
                    if column != "s" or key not in ("min", "max"):
                        assert got[key] == want[key], (column, key)
                if column in FIXED_WIDTH:
                    assert got["avg_col_len"] == want["avg_col_len"] == str(FIXED_WIDTH[column])
                    assert got["max_col_len"] == want["max_col_len"]
        d = describe(spark, f"DESCRIBE EXTENDED {table} d")
        assert (d["min"], d["max"], d["distinct_count"]) == ("2024-01-01", "2024-01-30", "30")
        # without EXTENDED: only name, type and comment, as Spark
        assert [r[0] for r in spark.sql(f"DESCRIBE {table} d").collect()] == [
            "col_name",
            "data_type",
            "comment",
        ]
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {parquet}")


@pytest.mark.usefixtures("job_scans")  # looks at the job's scan nodes
def test_cbo_reorders_three_way_join_after_analyze(spark: SparkSession, namespace: str) -> None:
    def analyze(name: str) -> None:
        spark.sql(f"ANALYZE TABLE floe.{namespace}.{name} COMPUTE STATISTICS FOR ALL COLUMNS")

    check_join_reorder(spark, namespace, analyze)


@pytest.mark.usefixtures("job_scans")  # looks at the job's scan nodes
def test_cbo_reorders_three_way_join_after_iceberg_compute_table_stats(
    spark: SparkSession, iceberg: str, namespace: str
) -> None:
    check_join_reorder(
        spark, namespace, lambda name: iceberg_stats(spark, iceberg, namespace, name)
    )


def check_join_reorder(spark: SparkSession, ns: str, analyze: Callable[[str], object]) -> None:
    """Statistics written by ``analyze`` change the cost-based join order: a (10
    keys) and b (100 keys) join a fact f of 1000 rows on f.ak (10 values) and f.bk (1000 values).
    Without distinct counts Spark estimates each join as a cross product and joins the smaller a
    first; with them, f join b (1000 * 100 / 1000 = 100 rows) beats f join a (1000 rows)."""
    spark.sql(f"CREATE TABLE floe.{ns}.a (k BIGINT, name STRING)")
    spark.sql(f"CREATE TABLE floe.{ns}.b (k BIGINT, name STRING)")
    spark.sql(f"CREATE TABLE floe.{ns}.f (ak BIGINT, bk BIGINT, v BIGINT)")
    spark.sql(f"INSERT INTO floe.{ns}.a SELECT id, CAST(id AS STRING) FROM range(0, 10)")
    spark.sql(f"INSERT INTO floe.{ns}.b SELECT id, CAST(id AS STRING) FROM range(0, 100)")
    spark.sql(f"INSERT INTO floe.{ns}.f SELECT id % 10, id, id FROM range(0, 1000)")
    query = (
        f"SELECT a.name, b.name, f.v FROM floe.{ns}.a a JOIN floe.{ns}.f f ON a.k = f.ak "
        f"JOIN floe.{ns}.b b ON f.bk = b.k"
    )

    def scan_order() -> list[str]:
        """The tables in the order the physical plan reads them: the first two join first."""
        plan = spark.sql(query)._jdf.queryExecution().executedPlan().toString()
        return [
            line.split(f"BatchScan floe.{ns}.")[1][0]
            for line in plan.splitlines()
            if f"BatchScan floe.{ns}." in line
        ]

    settings = {
        "spark.sql.cbo.enabled": "true",
        "spark.sql.cbo.joinReorder.enabled": "true",
        "spark.sql.autoBroadcastJoinThreshold": "-1",
    }
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        before = scan_order()
        expected = sorted(spark.sql(query).collect())
        for name in ("a", "b", "f"):
            analyze(name)
        after = scan_order()
        assert set(before[:2]) == {"a", "f"}, before
        assert set(after[:2]) == {"f", "b"}, after
        assert sorted(spark.sql(query).collect()) == expected
    finally:
        for key in settings:
            spark.conf.unset(key)
