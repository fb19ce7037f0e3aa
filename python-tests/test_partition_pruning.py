"""Partition pruning through hidden partition transforms, and runtime filtering in joins.

Predicates on source columns are projected through every transform (days, months, hours, years,
bucket, truncate of strings and of ints, identity) and prune manifests by their partition summaries
(in the manifest list), then data files by partition value, then by column bounds. Each table is
written by several INSERTs, so it has several manifests (one per INSERT) and many partitions; each
INSERT writes one file per partition (checked once, when the tables are made), which makes the
numbers of manifests scanned and files read below exact. Every query's rows are also compared with
the same query on a plain temp view of the same rows.

Runtime filtering: a join on a partition source column with a small, filtered dimension table
makes Spark's dynamic partition pruning hand the join keys to the scan, which drops the files
whose partitions cannot hold them; the scan node's metrics ("data files read") show it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest
from conftest import scan_metrics, scan_report, unique_name

from floe import inspect

# these tests look at the scan node of a Spark job (its partitioning, its plan), which a small
# scan read on the driver (FloeLocalRead) does not have
pytestmark = pytest.mark.usefixtures("job_scans")

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from pyspark.sql import DataFrame, SparkSession


@dataclass(frozen=True)
class Layout:
    """A partitioned table and the SELECTs of its INSERTs (each INSERT adds one manifest)."""

    columns: str
    partitioning: str
    inserts: tuple[str, ...]
    #: files each INSERT writes (one per partition value it holds)
    files_per_insert: tuple[int, ...]


def _days_insert(month: int) -> str:
    # month m of 2024: ids 1000 (m - 1) + k, one row per hour over days 1..10; n = k, so the
    # rows of day d hold n in [24 (d - 1), 24 (d - 1) + 23]: disjoint per day
    return (
        f"SELECT {1000 * (month - 1)} + id AS id, "
        f"TIMESTAMP '2024-{month:02d}-01 00:00:00' + make_interval(0, 0, 0, 0, CAST(id AS INT)) "
        f"AS ts, CAST(id AS INT) AS n, concat('s', CAST(id AS STRING)) AS s FROM range(240)"
    )


def _months_insert(block: int) -> str:
    # months 4 block + 1 .. 4 block + 4 of 2023, days 1..28 of each
    return (
        f"SELECT {1000 * block} + id AS id, CAST(date_add(add_months(DATE '2023-01-01', "
        f"{4 * block} + CAST(id % 4 AS INT)), CAST(id DIV 4 AS INT)) AS TIMESTAMP) AS ts "
        f"FROM range(112)"
    )


def _hours_insert(block: int) -> str:
    # hours 8 block .. 8 block + 7 of 2024-05-01, a row every 5 minutes
    return (
        f"SELECT {1000 * block} + id AS id, TIMESTAMP '2024-05-01 00:00:00' + "
        f"make_interval(0, 0, 0, 0, {8 * block}, CAST(id * 5 AS INT)) AS ts FROM range(96)"
    )


def _years_insert(block: int) -> str:
    # years 2000 + 5 block .. 2000 + 5 block + 4, days 1..28 of every month
    return (
        f"SELECT {10000 * block} + id AS id, make_date({2000 + 5 * block} + CAST(id % 5 AS INT), "
        f"1 + CAST((id DIV 5) % 12 AS INT), 1 + CAST(id DIV 60 AS INT)) AS d FROM range(1680)"
    )


def _strings_insert(block: int, prefixes: list[str]) -> str:
    # each prefix is one truncate(4) partition: 'ab' rows are exactly 'ab', the others '<p>-<k>'
    parts = [
        f"SELECT {1000 * block + 100 * i} + id AS id, "
        + ("'ab'" if p == "ab" else f"concat('{p}-', CAST(id AS STRING))")
        + " AS s FROM range(20)"
        for i, p in enumerate(prefixes)
    ]
    return " UNION ALL ".join(parts)


def _bucket(n: int, value: int) -> int:
    from pyiceberg.transforms import BucketTransform
    from pyiceberg.types import LongType

    result = BucketTransform(n).transform(LongType())(value)
    assert result is not None
    return int(result)


# The ids of the bucket table's fifth INSERT: 40 ids, all in one bucket (that of 7000).
ONE_BUCKET_IDS = [v for v in range(7000, 8000) if _bucket(16, v) == _bucket(16, 7000)][:40]

LAYOUTS: dict[str, Layout] = {
    "days": Layout(
        "id BIGINT, ts TIMESTAMP, n INT, s STRING",
        "days(ts)",
        tuple(_days_insert(m) for m in (1, 2, 3, 4)),
        (10, 10, 10, 10),
    ),
    "days_pre_epoch": Layout(
        # days before the epoch have negative ordinals (rounded down, not toward zero)
        "id BIGINT, ts TIMESTAMP",
        "days(ts)",
        tuple(
            f"SELECT id, TIMESTAMP '{start}' + make_interval(0, 0, 0, 0, CAST(id AS INT)) AS ts "
            "FROM range(72)"
            for start in ("1969-12-29 00:00:00", "1970-01-01 00:00:00")
        ),
        (3, 3),
    ),
    "months": Layout(
        "id BIGINT, ts TIMESTAMP",
        "months(ts)",
        tuple(_months_insert(b) for b in range(3)),
        (4, 4, 4),
    ),
    "hours": Layout(
        "id BIGINT, ts TIMESTAMP", "hours(ts)", tuple(_hours_insert(b) for b in range(3)), (8, 8, 8)
    ),
    "years": Layout(
        "id BIGINT, d DATE", "years(d)", tuple(_years_insert(b) for b in range(3)), (5, 5, 5)
    ),
    "bucket": Layout(
        # INSERT j holds the ids = j (mod 4) of [0, 4000): every file spans about [0, 4000), so
        # column bounds cannot prune and every count is the partition projection's alone
        "id BIGINT, s STRING",
        "bucket(16, id)",
        (
            *(
                f"SELECT id, concat('s', CAST(id AS STRING)) AS s FROM range({j}, 4000, 4)"
                for j in range(4)
            ),
            "SELECT id, 'one bucket' AS s FROM VALUES "
            + ", ".join(f"({v})" for v in ONE_BUCKET_IDS)
            + " AS v(id)",
        ),
        (16, 16, 16, 16, 1),
    ),
    "truncate_s": Layout(
        "id BIGINT, s STRING",
        "truncate(4, s)",
        (
            _strings_insert(0, ["abca", "abcb", "abda"]),
            _strings_insert(1, ["abcc", "b000", "bzzz"]),
            _strings_insert(2, ["xyzw", "abcd", "ab"]),
        ),
        (3, 3, 3),
    ),
    "truncate_n": Layout(
        # INSERT i holds n in [40 i, 40 i + 39]: four truncate(10) partitions
        "id BIGINT, n INT",
        "truncate(10, n)",
        tuple(
            f"SELECT id, CAST(id AS INT) AS n FROM range({40 * i}, {40 * i + 40})" for i in range(3)
        ),
        (4, 4, 4),
    ),
    "identity": Layout(
        "id BIGINT, category STRING, region STRING",
        "category",
        (
            "SELECT id, IF(id % 2 = 0, 'a', 'b') AS category, 'us' AS region FROM range(0, 50)",
            "SELECT id, IF(id % 2 = 0, 'b', 'c') AS category, 'eu' AS region FROM range(50, 100)",
            "SELECT id, CASE id % 3 WHEN 0 THEN 'c' WHEN 1 THEN 'd' END AS category, "
            "'ap' AS region FROM range(100, 150)",
        ),
        (2, 2, 3),
    ),
}


@dataclass(frozen=True)
class Tables:
    namespace: str

    def table(self, layout: str) -> str:
        return f"floe.{self.namespace}.{layout}"

    def view(self, layout: str) -> str:
        return f"plain_{layout}_{self.namespace}"


@pytest.fixture(scope="module")
def tables(spark: SparkSession, warehouse: Path) -> Iterator[Tables]:
    """Every layout as a Floe table (one INSERT per SELECT) and as a plain temp view."""
    namespace = unique_name("pruning")
    spark.sql(f"CREATE NAMESPACE floe.{namespace}")
    made = Tables(namespace)
    for name, layout in LAYOUTS.items():
        table = made.table(name)
        spark.sql(
            f"CREATE TABLE {table} ({layout.columns}) USING floe "
            f"PARTITIONED BY ({layout.partitioning})"
        )
        for select in layout.inserts:
            spark.sql(f"INSERT INTO {table} {select}")
        spark.sql(
            " UNION ALL ".join(f"({s})" for s in layout.inserts)
        ).cache().createOrReplaceTempView(made.view(name))
        # the premise of the exact counts: one manifest per INSERT, one file per partition in each
        files = inspect.table_files(str(warehouse / namespace / name))
        per_manifest = list(Counter(f["manifest_path"] for f in files).values())
        assert sorted(per_manifest) == sorted(layout.files_per_insert), (name, per_manifest)
    yield made
    for name in LAYOUTS:
        spark.catalog.dropTempView(made.view(name))


def rows_of(df: DataFrame) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


def _bucket_files(*values: int) -> int:
    """Files of the bucket table read for ids ``values`` (all < 4000): the files of their buckets
    in the first four INSERTs (one per bucket each). The fifth INSERT's ids (7000 and up) are
    outside its file's bounds."""
    return 4 * len({_bucket(16, v) for v in values})


def _bucket_manifests(*values: int) -> int:
    """Manifests scanned for ids ``values``: the first four INSERTs' (all buckets), and the fifth's
    only when its one bucket is among the values' buckets."""
    return 4 + (1 if _bucket(16, 7000) in {_bucket(16, v) for v in values} else 0)


CASES: list[tuple[str, str, int, int]] = [
    # (layout, predicate, manifests scanned, data files read)
    # days(ts): 4 manifests (months 1..4 of 2024), 10 day files each
    ("days", "ts >= '2024-03-01'", 2, 20),
    ("days", "ts > '2024-03-10 23:00:00'", 2, 10),  # day 03-10 kept by partition, cut by bounds
    ("days", "ts BETWEEN '2024-02-03' AND '2024-02-05 12:00:00'", 1, 3),
    ("days", "ts < '2024-01-01'", 0, 0),
    ("days", "NOT (ts < '2024-04-01')", 1, 10),
    ("days", "ts < '2024-01-03' OR ts >= '2024-04-09'", 2, 4),
    ("days", "NOT (ts >= '2024-01-02' AND ts < '2024-04-10')", 2, 2),
    ("days", "CAST(ts AS DATE) = DATE '2024-03-02'", 1, 1),
    ("days", "ts IN (TIMESTAMP '2024-02-07 05:00:00', TIMESTAMP '2024-04-01 00:00:00')", 2, 2),
    ("days", "n BETWEEN 30 AND 40", 4, 4),  # not a partition column: bounds, day 2 of each month
    ("days", "id = 2005", 4, 1),  # bounds alone
    ("days", "ts >= '2024-02-01' AND n < 24", 3, 3),
    ("days", "ts >= '2024-04-05' OR n >= 216", 4, 9),  # April 5..10, and day 10 of months 1..3
    # s = 's<k>' for the day's hours k: the string bounds of days 1 and 5..9 admit 's1..'
    ("days", "s LIKE 's1%'", 4, 24),
    # days(ts) around the epoch: 1969-12-29..31 and 1970-01-01..03
    ("days_pre_epoch", "ts < '1970-01-01'", 1, 3),
    ("days_pre_epoch", "ts >= '1969-12-31 23:00:00' AND ts < '1970-01-01 01:00:00'", 2, 2),
    ("days_pre_epoch", "ts > '1969-12-31 23:00:00'", 2, 3),
    ("days_pre_epoch", "ts <= '1969-12-30 00:00:00'", 1, 2),
    ("days_pre_epoch", "ts = TIMESTAMP '1969-12-31 12:00:00'", 1, 1),
    # months(ts): 3 manifests of 4 months of 2023
    ("months", "ts >= '2023-06-15'", 2, 7),
    ("months", "ts < '2023-03-01'", 1, 2),
    ("months", "ts BETWEEN '2023-04-10' AND '2023-05-20'", 2, 2),
    ("months", "ts IN (TIMESTAMP '2023-02-02 00:00:00', TIMESTAMP '2023-11-05 00:00:00')", 2, 2),
    ("months", "NOT (ts >= '2023-02-01') OR ts >= '2023-12-01'", 2, 2),
    # hours(ts): 3 manifests of 8 hours of 2024-05-01
    ("hours", "ts >= '2024-05-01 13:30:00'", 2, 11),
    ("hours", "ts < '2024-05-01 02:00:00'", 1, 2),
    ("hours", "ts = TIMESTAMP '2024-05-01 17:05:00'", 1, 1),
    ("hours", "ts BETWEEN '2024-05-01 07:00:00' AND '2024-05-01 08:59:59'", 2, 2),
    # years(d): 3 manifests of 5 years
    ("years", "d >= DATE '2011-07-01'", 1, 4),
    ("years", "d < DATE '2003-01-01' OR d > DATE '2013-12-31'", 2, 4),
    ("years", "d BETWEEN DATE '2004-12-31' AND DATE '2005-01-01'", 2, 1),  # 2004 ends on 12-28
    ("years", "NOT (d <= DATE '2013-06-30')", 1, 2),
    # bucket(16, id): 4 manifests over all 16 buckets, a fifth holding one bucket only
    ("bucket", "id = 2001", _bucket_manifests(2001), _bucket_files(2001)),
    (
        "bucket",
        "id IN (1234, 2345, 3456)",
        _bucket_manifests(1234, 2345, 3456),
        _bucket_files(1234, 2345, 3456),
    ),
    ("bucket", "id = 2001 OR id = 3002", _bucket_manifests(2001, 3002), _bucket_files(2001, 3002)),
    ("bucket", "id = 7000", 5, 1),  # the other INSERTs' files in its bucket: cut by bounds
    ("bucket", "id <> 2001", 5, 65),  # no bucket can be excluded
    ("bucket", "id = 2001 OR s = 'one bucket'", 5, 65),
    ("bucket", "id > 10", 5, 65),  # bucket numbers have no order
    # truncate(4, s)
    ("truncate_s", "s LIKE 'abc%'", 3, 4),  # partitions abca, abcb, abcc, abcd
    ("truncate_s", "s LIKE 'b%'", 2, 2),  # the first manifest's partitions all start with 'ab'
    ("truncate_s", "s LIKE 'abcd%'", 3, 1),
    ("truncate_s", "s LIKE 'abcde%'", 3, 0),  # partition 'abcd' by value, then its bounds
    ("truncate_s", "s >= 'abd' AND s < 'b'", 3, 1),
    ("truncate_s", "NOT (s LIKE 'ab%')", 2, 3),
    ("truncate_s", "s = 'ab'", 1, 1),
    ("truncate_s", "s IN ('abca-3', 'bzzz-7')", 3, 2),
    # truncate(10, n): 3 manifests of n in [40 i, 40 i + 39]
    ("truncate_n", "n BETWEEN 25 AND 37", 1, 2),
    ("truncate_n", "n < 10", 1, 1),
    ("truncate_n", "n > 89", 1, 3),
    ("truncate_n", "n >= 35 AND n <= 44", 2, 2),
    ("truncate_n", "n IN (5, 55, 105)", 3, 3),
    ("truncate_n", "NOT (n >= 10)", 1, 1),
    ("truncate_n", "n < 10 OR n >= 110", 2, 2),
    # identity(category)
    ("identity", "category = 'b'", 2, 2),
    ("identity", "category IN ('a', 'd')", 2, 2),
    ("identity", "category <> 'b'", 3, 4),
    ("identity", "category IS NULL", 1, 1),
    ("identity", "category > 'b' OR region = 'eu'", 3, 4),  # bounds: c, c, d, and b of 'eu'
    ("identity", "region = 'eu'", 3, 2),  # not a partition column: bounds
    ("identity", "NOT (category = 'c' OR category = 'd')", 3, 3),  # != never skips a manifest
]


@pytest.mark.parametrize(
    ("layout", "predicate", "manifests", "files"),
    CASES,
    ids=[f"{c[0]}: {c[1]}" for c in CASES],
)
def test_predicates_on_source_columns_prune_manifests_and_files(
    spark: SparkSession, tables: Tables, layout: str, predicate: str, manifests: int, files: int
) -> None:
    table = tables.table(layout)
    got = rows_of(spark.sql(f"SELECT * FROM {table} WHERE {predicate}"))
    report = scan_report(spark, table)
    assert got == rows_of(spark.sql(f"SELECT * FROM {tables.view(layout)} WHERE {predicate}"))
    total = len(LAYOUTS[layout].inserts)
    assert report["total-manifests"] == total, report
    assert (report["scanned-manifests"], report["result-data-files"]) == (manifests, files), report
    assert report["skipped-manifests"] == total - manifests, report
    # files of skipped manifests are never read, so never counted
    assert report["total-data-files"] == report["result-data-files"] + report["skipped-data-files"]


WHOLE_PARTITION_CASES: list[tuple[str, str, bool]] = [
    # (layout, predicate, selects whole partitions of every spec)
    ("days", "ts >= '2024-03-01'", True),
    ("days", "ts >= '2024-03-01 12:00:00'", False),
    ("days", "ts BETWEEN '2024-02-03' AND '2024-02-05 23:59:59.999999'", True),
    ("days", "ts < '2024-02-03' OR ts >= '2024-04-01'", True),
    ("days", "n < 24", False),
    ("days_pre_epoch", "ts < '1969-12-31'", True),
    ("months", "ts >= '2023-06-01' AND ts < '2023-08-01'", True),
    ("hours", "ts > '2024-05-01 13:59:59.999999'", True),
    ("years", "d >= DATE '2011-01-01'", True),
    ("years", "d >= DATE '2011-07-01'", False),
    ("bucket", "id = 2001", False),
    ("truncate_s", "s LIKE 'abc%'", True),
    ("truncate_s", "s LIKE 'abcd%'", False),
    ("truncate_s", "NOT (s LIKE 'ab%')", True),
    # truncate(10): strict p > 20 is inclusive p >= 30 only on multiples of 10; not recognised
    ("truncate_n", "n >= 30 AND n < 50", False),
    ("truncate_n", "n > 35", False),
    ("identity", "category IN ('a', 'd')", True),
    ("identity", "category <> 'b'", True),
    ("identity", "category IS NULL", True),
    ("identity", "category = 'b' AND region = 'eu'", False),
    ("identity", "category = 'b' OR region = 'eu'", False),
]


@pytest.mark.parametrize(
    ("layout", "predicate", "whole"),
    WHOLE_PARTITION_CASES,
    ids=[f"{c[0]}: {c[1]}" for c in WHOLE_PARTITION_CASES],
)
def test_filters_selecting_whole_partitions_are_not_evaluated_again(
    spark: SparkSession, tables: Tables, layout: str, predicate: str, whole: bool
) -> None:
    """A filter whose inclusive and strict projections agree in every spec (it selects whole
    partitions) is applied exactly by planning; Spark does not filter the rows again (as with
    Iceberg). Any other filter stays in the plan. Rows are right either way."""
    table = tables.table(layout)
    df = spark.sql(f"SELECT * FROM {table} WHERE {predicate}")
    got = rows_of(df)
    assert got == rows_of(spark.sql(f"SELECT * FROM {tables.view(layout)} WHERE {predicate}"))
    plan = df._jdf.queryExecution().executedPlan().toString()
    filters = [line for line in plan.splitlines() if "Filter " in line]
    assert (not filters) == whole, plan


def test_manifest_level_pruning_skips_reading_manifests(
    spark: SparkSession, tables: Tables, warehouse: Path
) -> None:
    """A manifest whose partition summaries exclude the predicate is not even opened: the files
    counted are exactly those of the scanned manifests."""
    table = tables.table("days")
    spark.sql(f"SELECT * FROM {table} WHERE ts >= '2024-03-01'").collect()
    report = scan_report(spark, table)
    assert report["total-data-files"] == 20, report  # the files of 2 manifests of 10, not 40


# --- runtime filtering (dynamic partition pruning) ---------------------------------------------


@pytest.fixture(scope="module")
def dimension(spark: SparkSession, tables: Tables) -> str:
    """A small unpartitioned table: one row per distinct hour of the days table and per id of the
    bucket table's first 40 ids, with a flag that selects two of each."""
    table = f"floe.{tables.namespace}.dim"
    spark.sql(f"CREATE TABLE {table} (ts TIMESTAMP, id BIGINT, flag STRING) USING floe")
    spark.sql(
        f"INSERT INTO {table} "
        f"SELECT ts, NULL, IF(ts IN (TIMESTAMP '2024-03-02 05:00:00', "
        f"TIMESTAMP '2024-01-05 00:00:00'), 'x', 'y') FROM {tables.view('days')} "
        f"UNION ALL SELECT NULL, id, IF(id IN (2001, 3456), 'x', 'y') FROM range(2000, 4000)"
    )
    return table


def test_join_on_partition_column_prunes_files_at_runtime(
    spark: SparkSession, tables: Tables, dimension: str
) -> None:
    fact = tables.table("days")
    query = f"SELECT f.id, f.ts FROM {fact} f JOIN {dimension} d ON f.ts = d.ts WHERE d.flag = 'x'"
    df = spark.sql(query)
    assert rows_of(df) == rows_of(
        spark.sql(
            f"SELECT id, ts FROM {tables.view('days')} WHERE ts IN "
            "(TIMESTAMP '2024-03-02 05:00:00', TIMESTAMP '2024-01-05 00:00:00')"
        )
    )
    plan = df._jdf.queryExecution().executedPlan().toString()
    assert "dynamicpruningexpression" in plan, plan
    metrics = scan_metrics(df, fact)
    # planned: all 40 files (no static filter); read: the two days' files
    assert metrics["resultDataFiles"] == 2, metrics
    assert metrics["runtimeSkippedDataFiles"] == 38, metrics
    assert metrics["resultDataBytes"] > 0
    report = scan_report(spark, fact)
    assert (report["result-data-files"], report["skipped-data-files"]) == (2, 38), report


def test_join_on_bucketed_column_prunes_buckets_at_runtime(
    spark: SparkSession, tables: Tables, dimension: str
) -> None:
    fact = tables.table("bucket")
    df = spark.sql(
        f"SELECT f.id, f.s FROM {fact} f JOIN {dimension} d ON f.id = d.id WHERE d.flag = 'x'"
    )
    assert sorted(r.id for r in df.collect()) == [2001, 3456]
    metrics = scan_metrics(df, fact)
    assert metrics["resultDataFiles"] == _bucket_files(2001, 3456), metrics
    assert metrics["resultDataFiles"] + metrics["runtimeSkippedDataFiles"] == 65, metrics


def test_without_dynamic_pruning_the_join_reads_every_file(
    spark: SparkSession, tables: Tables, dimension: str
) -> None:
    """The counterpart of the runtime-filter tests: the same join with Spark's dynamic partition
    pruning off reads all files, so the pruning above is the runtime filter's."""
    fact = tables.table("days")
    key = "spark.sql.optimizer.dynamicPartitionPruning.enabled"
    spark.conf.set(key, "false")
    try:
        df = spark.sql(
            f"SELECT f.id FROM {fact} f JOIN {dimension} d ON f.ts = d.ts WHERE d.flag = 'x'"
        )
        assert len(df.collect()) == 2
        metrics = scan_metrics(df, fact)
    finally:
        spark.conf.unset(key)
    assert (metrics["resultDataFiles"], metrics["runtimeSkippedDataFiles"]) == (40, 0), metrics


def test_static_filter_metrics_are_reported_on_the_scan_node(
    spark: SparkSession, tables: Tables
) -> None:
    table = tables.table("truncate_n")
    df = spark.sql(f"SELECT * FROM {table} WHERE n BETWEEN 25 AND 37")
    assert sorted(r.n for r in df.collect()) == list(range(25, 38))
    metrics = scan_metrics(df, table)
    assert metrics["scannedManifests"] == 1 and metrics["skippedManifests"] == 2, metrics
    assert metrics["resultDataFiles"] == 2 and metrics["skippedDataFiles"] == 2, metrics


def test_small_files_are_read_by_few_tasks(spark: SparkSession, tables: Tables) -> None:
    """The 40 small files of the days table are packed into as many tasks as Spark has cores (as
    Spark packs plain Parquet files); ``split-size`` bounds a task's bytes, so a tiny one gives a
    task per file. Rows are the same either way."""
    table = tables.table("days")
    cores = spark.sparkContext.defaultParallelism
    packed = spark.table(table)
    assert packed.rdd.getNumPartitions() == cores
    one_per_file = spark.read.option("split-size", "1").table(table)
    assert one_per_file.rdd.getNumPartitions() == 40
    expected = rows_of(spark.table(tables.view("days")))
    assert rows_of(packed) == expected
    assert rows_of(one_per_file) == expected


# --- columns whose names hold dots -------------------------------------------------------------


def test_filters_on_a_column_whose_name_holds_a_dot_prune(
    spark: SparkSession, namespace: str
) -> None:
    """Regression: a filter on a top-level column named `a.b` was never handed to Floe (its one
    name part holds a dot), so nothing was pruned. Its full name is `a.b`, which binds, prunes
    partitions and files, drops whole-partition filters from the plan and deletes by metadata."""
    table = f"floe.{namespace}.{unique_name('dots')}"
    spark.sql(f"CREATE TABLE {table} (id INT, `a.b` INT, `x.y` STRING) PARTITIONED BY (`a.b`)")
    for p in range(4):
        values = f"({p * 10}, {p}, 'v{p}'), ({p * 10 + 1}, {p}, 'w{p}')"
        spark.sql(f"INSERT INTO {table} VALUES {values}")
    df = spark.sql(f"SELECT id FROM {table} WHERE `a.b` = 2")
    assert sorted(r.id for r in df.collect()) == [20, 21]
    assert scan_report(spark, table)["result-data-files"] == 1
    plan = df._jdf.queryExecution().executedPlan().toString()
    assert not [line for line in plan.splitlines() if "Filter " in line], plan
    # a dotted data column prunes by its bounds; the filter stays with Spark
    rows = spark.sql(f"SELECT id FROM {table} WHERE `x.y` = 'w3'").collect()
    assert [r.id for r in rows] == [31]
    assert scan_report(spark, table)["result-data-files"] == 1
    snapshots = spark.sql(f"SELECT count(*) FROM {table}.snapshots").collect()[0][0]
    spark.sql(f"DELETE FROM {table} WHERE `a.b` = 1")
    last = spark.sql(
        f"SELECT operation FROM {table}.snapshots ORDER BY committed_at DESC LIMIT 1"
    ).collect()[0][0]
    assert (last, spark.sql(f"SELECT count(*) FROM {table}.snapshots").collect()[0][0]) == (
        "delete",
        snapshots + 1,
    )
    assert sorted(r.id for r in spark.table(table).collect()) == [0, 1, 20, 21, 30, 31]
    # an overwrite by a condition on it replaces that partition's files (it used to be refused)
    spark.sql(f"INSERT INTO {table} REPLACE WHERE `a.b` = 3 SELECT 99, 3, 'r'")
    assert sorted(r.id for r in spark.table(table).collect()) == [0, 1, 20, 21, 99]


def test_two_columns_with_one_full_name_are_refused(spark: SparkSession, namespace: str) -> None:
    """A top-level `s.b` next to field b of struct s would give two columns the full name s.b,
    which filters, partition specs and Iceberg (which refuses such schemas) cannot tell apart:
    CREATE TABLE and ALTER TABLE refuse it, naming the name, and the table is left as it was."""
    table = f"floe.{namespace}.{unique_name('clash')}"
    with pytest.raises(Exception, match=r"FLOE_COLUMN_NAME_AMBIGUOUS.*'s\.b'") as created:
        spark.sql(f"CREATE TABLE {table} (s STRUCT<b: INT>, `s.b` INT)")
    assert f"Cannot create table {table}" in str(created.value)
    assert not spark.catalog.tableExists(table)
    spark.sql(f"CREATE TABLE {table} (s STRUCT<b: INT>, id INT)")
    spark.sql(f"INSERT INTO {table} VALUES (named_struct('b', 1), 7)")
    with pytest.raises(Exception, match=r"FLOE_COLUMN_NAME_AMBIGUOUS.*'s\.b'"):
        spark.sql(f"ALTER TABLE {table} ADD COLUMN `s.b` INT")
    with pytest.raises(Exception, match=r"FLOE_COLUMN_NAME_AMBIGUOUS.*'s\.b'"):
        spark.sql(f"ALTER TABLE {table} RENAME COLUMN id TO `s.b`")
    assert spark.table(table).columns == ["s", "id"]
    assert [tuple(r) for r in spark.sql(f"SELECT s.b, id FROM {table}").collect()] == [(1, 7)]
