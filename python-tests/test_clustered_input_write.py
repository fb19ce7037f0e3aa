"""Inserts from partitioned files that already group rows by the table's partitions skip a shuffle.

A partitioned Floe table asks Spark to cluster an insert's rows by its partition keys (``hash``,
the default): a shuffle. When the rows come from Hive-style partitioned files (``col=value``
folders) of one file each, read whole by one task, and the table's keys are computed from those
folders' values alone, distinct per folder, every key's rows already sit in one task: Floe plans
the write without the shuffle (``spark.floe.write.skip-shuffle-of-clustered-input``, default on),
and writes the files the shuffle would have led to. From a Floe (or Iceberg) table whose identity
partition columns give the keys, its scan reads each key's files together in one task instead.
Anything else keeps it.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any

import pytest
from conftest import spark_jobs, spark_setting, spark_settings

from floe import inspect

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from pyspark.sql import SparkSession

SETTING = "spark.floe.write.skip-shuffle-of-clustered-input"
ROWS = 4000
COLUMNS = "id BIGINT, amount DOUBLE, name STRING, day DATE, region STRING"
COLUMNS_ORDER = "id, amount, name, day, region"


@pytest.fixture
def shuffle(spark: SparkSession) -> Iterator[None]:
    """Shuffles into 4 partitions that adaptive execution does not coalesce, and a source of many
    tasks (small splits) so that a skipped shuffle would show in the files if it were wrong."""
    settings = {
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.adaptive.coalescePartitions.enabled": "false",
        "spark.sql.files.openCostInBytes": "1",
    }
    with spark_settings(spark, settings):
        yield


def write_source(spark: SparkSession, path: Path, by: str, files_per_folder: int = 1) -> str:
    """Parquet under ``path`` partitioned by ``by`` (``day``, ``region`` or ``region,day``), with
    ``files_per_folder`` files in each folder; returns a SQL relation reading it."""
    rows = spark.sql(
        f"SELECT id, id * 1.5 AS amount, concat('n', CAST(id AS STRING)) AS name, "
        f"date_add(DATE '2024-01-30', CAST(id % 5 AS INT)) AS day, "
        f"element_at(array('eu', 'us', 'ap'), CAST(id % 3 AS INT) + 1) AS region "
        f"FROM range(0, {ROWS}, 1, 4)"
    )
    rows.repartition(files_per_folder, "id").sortWithinPartitions("id").write.partitionBy(
        *by.split(",")
    ).parquet(str(path))
    return f"parquet.`{path}`"


def files(warehouse: Path, namespace: str, table: str) -> list[dict[str, Any]]:
    return list(inspect.table_files(str(warehouse / namespace / table)))


def layout(warehouse: Path, namespace: str, table: str) -> Counter[str]:
    """Per file: its partition and row count."""
    return Counter(
        json.dumps([f["partition"], f["record_count"]], sort_keys=True, default=str)
        for f in files(warehouse, namespace, table)
    )


def plan_of(spark: SparkSession, statement: str) -> str:
    return str(spark.sql(f"EXPLAIN {statement}").collect()[0][0])


def rows(spark: SparkSession, table: str) -> list[Any]:
    return spark.sql(f"SELECT * FROM {table} ORDER BY id").collect()


@pytest.mark.usefixtures("shuffle")
@pytest.mark.parametrize(
    ("by", "partitioning", "partitions"),
    [("region", "region", 3), ("day", "day", 5), ("day", "days(day)", 5)],
)
def test_an_insert_from_one_file_per_folder_skips_the_shuffle_and_writes_the_same_files(
    spark: SparkSession,
    warehouse: Path,
    namespace: str,
    tmp_path: Path,
    by: str,
    partitioning: str,
    partitions: int,
) -> None:
    source = write_source(spark, tmp_path / "src", by)
    plan, most_stages = insert_both_ways(
        spark, namespace, partitioning, f"SELECT {COLUMNS_ORDER} FROM {source}"
    )
    assert "Exchange" not in plan, plan
    assert "Sort [" in plan, plan  # each task still groups its rows by partition
    assert most_stages == 1
    assert_the_shuffles_files(spark, warehouse, namespace, partitions, ROWS)


def stages(spark: SparkSession, run: Callable[[], Any]) -> int:
    """The most stages of a Spark job that ``run`` starts: 1 without a shuffle, 2 with one (a job
    lists the stages it depends on, run or skipped)."""
    _, jobs = spark_jobs(spark, run)
    tracker = spark.sparkContext.statusTracker()
    return max(len(tracker.getJobInfo(job).stageIds) for job in jobs)  # type: ignore[union-attr]


def insert_both_ways(
    spark: SparkSession, namespace: str, partitioning: str, query: str
) -> tuple[str, int]:
    """Tables ``skip`` and ``shuffled`` (:data:`COLUMNS`, partitioned by ``partitioning``) get the
    rows of ``query``: ``skip`` as Floe plans it, ``shuffled`` with the setting off (checked to
    shuffle). Returns ``skip``'s insert plan and the most stages of a job the insert ran."""
    for table in ("skip", "shuffled"):
        spark.sql(
            f"CREATE TABLE floe.{namespace}.{table} ({COLUMNS}) USING floe "
            f"PARTITIONED BY ({partitioning})"
        )
    insert = f"INSERT INTO floe.{namespace}.skip {query}"
    plan = plan_of(spark, insert)
    most_stages = stages(spark, lambda: spark.sql(insert))
    with spark_setting(spark, SETTING, "false"):
        shuffled = f"INSERT INTO floe.{namespace}.shuffled {query}"
        assert "hashpartitioning(" in plan_of(spark, shuffled)
        spark.sql(shuffled)
    return plan, most_stages


def assert_the_shuffles_files(
    spark: SparkSession, warehouse: Path, namespace: str, partitions: int, count: int
) -> None:
    """``skip`` holds one file per partition, ``partitions`` of them, the files and rows (``count``)
    that ``shuffled`` holds."""
    skip = layout(warehouse, namespace, "skip")
    assert len(skip) == partitions and set(skip.values()) == {1}, skip  # one file per partition
    assert skip == layout(warehouse, namespace, "shuffled")
    assert rows(spark, f"floe.{namespace}.skip") == rows(spark, f"floe.{namespace}.shuffled")
    assert len(rows(spark, f"floe.{namespace}.skip")) == count


@pytest.mark.usefixtures("shuffle")
def test_ctas_and_dataframe_overwrites_skip_it_too(
    spark: SparkSession, warehouse: Path, namespace: str, tmp_path: Path
) -> None:
    write_source(spark, tmp_path / "src", "region")
    # read (its schema inferred by a job of its own) before the statements whose stages are counted
    frame = spark.read.parquet(str(tmp_path / "src"))
    frame.createOrReplaceTempView("clustered")
    table = f"floe.{namespace}.ctas"
    ctas = f"CREATE TABLE {table} USING floe PARTITIONED BY (region) AS SELECT * FROM clustered"
    assert stages(spark, lambda: spark.sql(ctas)) == 1
    assert len(layout(warehouse, namespace, "ctas")) == 3
    assert set(layout(warehouse, namespace, "ctas").values()) == {1}
    assert stages(spark, lambda: frame.writeTo(table).overwritePartitions()) == 1
    assert len(files(warehouse, namespace, "ctas")) == 3  # each partition replaced by one file
    with spark_setting(spark, SETTING, "false"):
        assert stages(spark, lambda: frame.writeTo(table).overwritePartitions()) == 2
    assert len(files(warehouse, namespace, "ctas")) == 3
    assert spark.sql(f"SELECT count(*) FROM {table}").collect()[0][0] == ROWS


@pytest.mark.usefixtures("shuffle")
@pytest.mark.parametrize(
    ("case", "by", "partitioning", "files_per_folder", "where"),
    [
        ("two files in a folder", "region", "region", 2, ""),
        ("folders that share a key", "day", "months(day)", 1, ""),
        ("a bucket of the folders' values", "day", "bucket(2, day)", 1, ""),
        ("a key from a data column", "region", "bucket(4, id)", 1, ""),
        ("a filter on a folder column", "region", "region", 1, "WHERE region <> 'ap'"),
        ("a filter on file metadata", "region", "region", 1, "WHERE _metadata.file_size > 0"),
        ("folders two levels deep", "region,day", "region", 1, ""),
    ],
)
def test_other_inputs_keep_the_shuffle(
    spark: SparkSession,
    warehouse: Path,
    namespace: str,
    tmp_path: Path,
    case: str,
    by: str,
    partitioning: str,
    files_per_folder: int,
    where: str,
) -> None:
    source = write_source(spark, tmp_path / "src", by, files_per_folder)
    spark.sql(
        f"CREATE TABLE floe.{namespace}.t ({COLUMNS}) USING floe PARTITIONED BY ({partitioning})"
    )
    insert = f"INSERT INTO floe.{namespace}.t SELECT {COLUMNS_ORDER} FROM {source} {where}"
    assert "hashpartitioning(" in plan_of(spark, insert), case
    spark.sql(insert)
    assert set(layout(warehouse, namespace, "t").values()) == {1}, case


@pytest.mark.usefixtures("shuffle")
def test_a_filter_on_data_columns_and_renamed_columns_still_skip_it(
    spark: SparkSession, warehouse: Path, namespace: str, tmp_path: Path
) -> None:
    source = write_source(spark, tmp_path / "src", "region")
    spark.sql(
        f"CREATE TABLE floe.{namespace}.t (id BIGINT, r STRING) USING floe PARTITIONED BY (r)"
    )
    insert = f"INSERT INTO floe.{namespace}.t SELECT id, region AS r FROM {source} WHERE id % 2 = 0"
    assert "Exchange" not in plan_of(spark, insert)
    spark.sql(insert)
    assert set(layout(warehouse, namespace, "t").values()) == {1}
    assert spark.sql(f"SELECT count(*) FROM floe.{namespace}.t").collect()[0][0] == ROWS // 2


@pytest.mark.usefixtures("shuffle")
def test_files_spark_splits_keep_the_shuffle(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    source = write_source(spark, tmp_path / "src", "region")
    spark.sql(f"CREATE TABLE floe.{namespace}.t ({COLUMNS}) USING floe PARTITIONED BY (region)")
    insert = f"INSERT INTO floe.{namespace}.t SELECT {COLUMNS_ORDER} FROM {source}"
    with spark_setting(spark, "spark.sql.files.maxPartitionBytes", "1024"):
        assert "hashpartitioning(" in plan_of(spark, insert)


def test_the_setting_is_checked(spark: SparkSession, namespace: str, tmp_path: Path) -> None:
    source = write_source(spark, tmp_path / "src", "region")
    spark.sql(f"CREATE TABLE floe.{namespace}.t ({COLUMNS}) USING floe PARTITIONED BY (region)")
    with spark_setting(spark, SETTING, "sometimes"), pytest.raises(Exception) as error:
        spark.sql(f"INSERT INTO floe.{namespace}.t SELECT {COLUMNS_ORDER} FROM {source}")
    assert SETTING in str(error.value) and "sometimes" in str(error.value)
    assert spark.sql(f"SELECT count(*) FROM floe.{namespace}.t").collect()[0][0] == 0


def files_looked_up(spark: SparkSession, run: Callable[[], Any]) -> int:
    """How many files Spark's file listings returned while ``run`` ran, listed or from its cache of
    listed files (its catalog metrics): a folder listed twice counts its files twice."""
    metrics = spark._jvm.org.apache.spark.metrics.source.HiveCatalogMetrics  # type: ignore[union-attr]

    def count() -> int:
        return int(metrics.METRIC_FILES_DISCOVERED().getCount()) + int(
            metrics.METRIC_FILE_CACHE_HITS().getCount()
        )

    before = count()
    run()
    return count() - before


@pytest.mark.usefixtures("shuffle")
@pytest.mark.parametrize(("tasks", "skipped"), [(1, True), (2, False)])
def test_a_session_catalog_table_is_listed_once_and_skips_it_when_its_folders_hold_one_file(
    spark: SparkSession, warehouse: Path, namespace: str, tmp_path: Path, tasks: int, skipped: bool
) -> None:
    # a table of the session catalog tracks its partitions; its files are listed when a query is
    # planned. One task writes one file per folder (the shuffle can go), two write two (it stays).
    # a location with a space, a dollar sign and a non-ASCII letter (Spark's session catalog
    # refuses such letters in a table's name)
    source = f"spark_catalog.default.{namespace}_src"
    location = tmp_path / "tracked é $x"
    spark.sql(
        f"CREATE TABLE {source} USING parquet PARTITIONED BY (region) LOCATION '{location}' "
        f"AS SELECT id, region FROM (SELECT id, element_at(array('eu', 'us'), "
        f"CAST(id % 2 AS INT) + 1) AS region FROM range(0, 100, 1, {tasks}))"
    )
    try:
        for table in ("t", "shuffled"):
            spark.sql(
                f"CREATE TABLE floe.{namespace}.{table} (id BIGINT, r STRING) USING floe "
                f"PARTITIONED BY (r)"
            )
        # a filter on the files' own column keeps the skip (it survives the relation's new listing)
        query = f"SELECT id, region FROM {source} WHERE id % 10 <> 3"
        insert = f"INSERT INTO floe.{namespace}.t {query}"
        plan = plan_of(spark, insert)
        assert ("Exchange" not in plan) == skipped, plan
        # the check lists the partitions' files and the scan reads that listing: once, not twice
        assert files_looked_up(spark, lambda: spark.sql(insert)) == 2 * tasks
        with spark_setting(spark, SETTING, "false"):
            shuffled = f"INSERT INTO floe.{namespace}.shuffled {query}"
            assert "hashpartitioning(" in plan_of(spark, shuffled)
            spark.sql(shuffled)
        assert layout(warehouse, namespace, "t") == layout(warehouse, namespace, "shuffled")
        if skipped:
            assert set(layout(warehouse, namespace, "t").values()) == {1}
        assert rows(spark, f"floe.{namespace}.t") == rows(spark, f"floe.{namespace}.shuffled")
        assert len(rows(spark, f"floe.{namespace}.t")) == 90
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {source}")


@pytest.mark.usefixtures("shuffle")
def test_odd_names_and_a_null_folder_skip_it_and_write_what_the_shuffle_writes(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    # a folder column with a space, values with a space, a slash, a percent sign, non-ASCII
    # letters, and NULL (Spark's __HIVE_DEFAULT_PARTITION__ folder), in a folder with odd letters
    source = tmp_path / "odd folder é $x"
    spark.sql(
        "SELECT id, element_at(array('a b', 'é/x', '100%', NULL), CAST(id % 4 AS INT) + 1) "
        "AS `p q` FROM range(0, 400, 1, 1)"
    ).write.partitionBy("p q").parquet(str(source))
    plan = insert_odd_names_both_ways(spark, namespace, f"SELECT id, `p q` FROM parquet.`{source}`")
    assert "Exchange" not in plan, plan


ODD_DDL = "(id BIGINT, `p q` STRING) USING floe PARTITIONED BY (`p q`)"


def insert_odd_names_both_ways(spark: SparkSession, namespace: str, query: str) -> str:
    """Tables with a space, a dollar sign and a non-ASCII letter in their names (:data:`ODD_DDL`:
    partitioned by a column with a space) get the rows of ``query``, whose ``p q`` values are
    'a b', 'é/x', '100%' and NULL: the first as Floe plans it, the second with the setting off.
    Checks that both hold the same files per partition and the same rows; returns the first
    insert's plan."""
    tables = [f"floe.{namespace}.`t é $x`", f"floe.{namespace}.`shuffled t`"]
    for table in tables:
        spark.sql(f"CREATE TABLE {table} {ODD_DDL}")
    insert = f"INSERT INTO {tables[0]} {query}"
    plan = plan_of(spark, insert)
    spark.sql(insert)
    with spark_setting(spark, SETTING, "false"):
        spark.sql(f"INSERT INTO {tables[1]} {query}")

    def per_file(table: str) -> list[Any]:
        return spark.sql(
            f"SELECT partition.`p q`, record_count FROM {table}.files ORDER BY 1 NULLS FIRST"
        ).collect()

    assert per_file(tables[0]) == per_file(tables[1])
    assert [r[0] for r in per_file(tables[0])] == [None, "100%", "a b", "é/x"]
    assert rows(spark, tables[0]) == rows(spark, tables[1])
    return plan


def files_per_partition(warehouse: Path, namespace: str, table: str) -> Counter[str]:
    return Counter(
        json.dumps(f["partition"], sort_keys=True, default=str)
        for f in files(warehouse, namespace, table)
    )


def floe_source(
    spark: SparkSession, table: str, partitioning: str, appends: int = 2, where: str = "true"
) -> None:
    """A Floe table partitioned by ``partitioning`` holding the rows of :func:`write_source` (but
    every eleventh row's region NULL) that pass ``where``, in ``appends`` inserts, so that each of
    its partitions holds ``appends`` files."""
    spark.sql(f"CREATE TABLE {table} ({COLUMNS}) USING floe PARTITIONED BY ({partitioning})")
    for i in range(appends):
        spark.sql(
            f"INSERT INTO {table} SELECT * FROM (SELECT id, id * 1.5 AS amount, "
            "concat('n', CAST(id AS STRING)) AS name, "
            "date_add(DATE '2024-01-30', CAST(id % 5 AS INT)) AS day, "
            "CASE WHEN id % 11 <> 0 "
            "THEN element_at(array('eu', 'us', 'ap'), CAST(id % 3 AS INT) + 1) END AS region "
            f"FROM range({i}, {ROWS}, {appends}, 4)) WHERE {where}"
        )


@pytest.mark.usefixtures("shuffle", "job_scans")
@pytest.mark.parametrize(
    ("source_by", "partitioning", "partitions"),
    [
        ("region", "region", 4),  # eu, us, ap and NULL
        ("region, day", "region", 4),
        ("day", "days(day)", 5),
        ("region, day", "day, region", 20),
        ("region", "bucket(8, region)", 3),  # eu and ap share a bucket, NULL is one of its own
    ],
)
def test_a_floe_table_source_skips_it_reading_each_keys_files_in_one_task(
    spark: SparkSession,
    warehouse: Path,
    namespace: str,
    source_by: str,
    partitioning: str,
    partitions: int,
) -> None:
    # every partition of the source holds two files (or ten, by region over days): its scan reads
    # each key's files together in one task, so that each key is still written as one file
    source = f"floe.{namespace}.src"
    floe_source(spark, source, source_by)
    query = f"SELECT * FROM {source} WHERE id % 10 <> 3"
    plan, most_stages = insert_both_ways(spark, namespace, partitioning, query)
    assert "Exchange" not in plan, plan
    assert "groupedBy=[" in plan and "Sort [" in plan, plan
    assert most_stages == 1
    assert_the_shuffles_files(spark, warehouse, namespace, partitions, ROWS - ROWS // 10)


@pytest.mark.usefixtures("shuffle", "job_scans")
def test_a_dataframe_overwrite_of_partitions_from_the_same_table_skips_it(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    # compacting some partitions by reading them and overwriting them with their own rows
    table = f"floe.{namespace}.t"
    floe_source(spark, table, "region")

    def files_per_region() -> Counter[str | None]:
        return Counter(f["partition"]["region"] for f in files(warehouse, namespace, "t"))

    assert files_per_region() == {"eu": 2, "us": 2, "ap": 2, None: 2}
    before = rows(spark, table)
    frame = spark.table(table).where("region <> 'ap'")
    assert stages(spark, lambda: frame.writeTo(table).overwritePartitions()) == 1
    assert files_per_region() == {"eu": 1, "us": 1, "ap": 2, None: 2}
    assert rows(spark, table) == before


@pytest.mark.usefixtures("shuffle", "job_scans")
@pytest.mark.parametrize(
    ("case", "source_by", "partitioning", "setting"),
    [
        ("a key from a data column", "region", "bucket(4, id)", None),
        ("a source partitioned by a transform", "days(day)", "day", None),
        ("a key from a column the source does not partition by", "region", "region, day", None),
        ("one key, more than one of two cores' share", "region", "region", None),
        (
            "one key's files heavier than a split",
            "region",
            "region",
            ("spark.sql.files.maxPartitionBytes", "2048"),
        ),
    ],
)
def test_floe_sources_that_do_not_group_keys_keep_the_shuffle(
    spark: SparkSession,
    warehouse: Path,
    namespace: str,
    case: str,
    source_by: str,
    partitioning: str,
    setting: tuple[str, str] | None,
) -> None:
    source = f"floe.{namespace}.src"
    # one key: eu's two files alone, which one task would read and write
    floe_source(spark, source, source_by, where="region = 'eu'" if "one key" in case else "true")
    expected = spark.sql(f"SELECT count(*) FROM {source}").collect()[0][0]
    spark.sql(
        f"CREATE TABLE floe.{namespace}.t ({COLUMNS}) USING floe PARTITIONED BY ({partitioning})"
    )
    insert = f"INSERT INTO floe.{namespace}.t SELECT * FROM {source}"
    settings = dict([setting]) if setting else {}
    with spark_settings(spark, settings):
        plan = plan_of(spark, insert)
        assert "hashpartitioning(" in plan and "groupedBy" not in plan, (case, plan)
        spark.sql(insert)
    assert set(files_per_partition(warehouse, namespace, "t").values()) == {1}, case
    assert spark.sql(f"SELECT count(*) FROM floe.{namespace}.t").collect()[0][0] == expected


@pytest.mark.usefixtures("shuffle", "job_scans")
@pytest.mark.parametrize("unpartitioned", ["older files", "newer files"])
def test_a_source_with_unpartitioned_files_keeps_the_shuffle(
    spark: SparkSession, warehouse: Path, namespace: str, unpartitioned: str
) -> None:
    # files of a spec without region's identity field may hold any regions
    source = f"floe.{namespace}.src"
    if unpartitioned == "older files":
        spark.sql(f"CREATE TABLE {source} ({COLUMNS}) USING floe")
        spark.sql(f"INSERT INTO {source} VALUES (-1, 0.0, 'x', DATE '2024-01-30', 'eu')")
        spark.sql(f"ALTER TABLE {source} ADD PARTITION FIELD region")
        spark.sql(f"INSERT INTO {source} SELECT * FROM {source}")
        expected = 2
    else:
        floe_source(spark, source, "region", appends=1)
        spark.sql(f"ALTER TABLE {source} DROP PARTITION FIELD region")
        spark.sql(f"INSERT INTO {source} SELECT * FROM {source} WHERE id < 100")
        expected = ROWS + 100
    spark.sql(f"CREATE TABLE floe.{namespace}.t ({COLUMNS}) USING floe PARTITIONED BY (region)")
    insert = f"INSERT INTO floe.{namespace}.t SELECT * FROM {source}"
    assert "hashpartitioning(" in plan_of(spark, insert)
    spark.sql(insert)
    assert set(files_per_partition(warehouse, namespace, "t").values()) == {1}
    assert spark.sql(f"SELECT count(*) FROM floe.{namespace}.t").collect()[0][0] == expected


@pytest.mark.usefixtures("job_scans")
def test_many_small_files_per_key_at_the_default_open_cost_skip_it(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    # 34 files per region: more than a split's worth at 4 MB of open cost each, but a few
    # kilobytes of bytes to read; the keys' files are read together all the same
    source = f"floe.{namespace}.src"
    spark.sql(
        f"CREATE TABLE {source} ({COLUMNS}) USING floe PARTITIONED BY (region) "
        "TBLPROPERTIES ('write.distribution-mode' = 'none')"
    )
    spark.sql(
        f"INSERT INTO {source} SELECT id, id * 1.5, 'n', DATE '2024-01-30', "
        f"element_at(array('eu', 'us', 'ap'), CAST(id % 3 AS INT) + 1) FROM range(0, {ROWS}, 1, 34)"
    )
    assert set(files_per_partition(warehouse, namespace, "src").values()) == {34}
    spark.sql(f"CREATE TABLE floe.{namespace}.t ({COLUMNS}) USING floe PARTITIONED BY (region)")
    insert = f"INSERT INTO floe.{namespace}.t SELECT * FROM {source}"
    plan = plan_of(spark, insert)
    assert "Exchange" not in plan and "groupedBy=[region]" in plan, plan
    spark.sql(insert)
    assert files_per_partition(warehouse, namespace, "t") == Counter(
        {json.dumps({"region": r}): 1 for r in ("eu", "us", "ap")}
    )
    assert rows(spark, f"floe.{namespace}.t") == rows(spark, source)


@pytest.mark.usefixtures("shuffle")
def test_a_small_source_read_on_the_driver_skips_it_too(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    # at the default spark.floe.read.local-max-rows, the source's 4,000 rows are read on the
    # driver (FloeLocalRead), from the grouped scan, without the shuffle
    source = f"floe.{namespace}.src"
    floe_source(spark, source, "region")
    spark.sql(f"CREATE TABLE floe.{namespace}.t ({COLUMNS}) USING floe PARTITIONED BY (region)")
    insert = f"INSERT INTO floe.{namespace}.t SELECT * FROM {source}"
    plan = plan_of(spark, insert)
    assert "Exchange" not in plan and "FloeLocalRead" in plan, plan
    spark.sql(insert)
    assert set(files_per_partition(warehouse, namespace, "t").values()) == {1}
    assert len(files_per_partition(warehouse, namespace, "t")) == 4
    assert rows(spark, f"floe.{namespace}.t") == rows(spark, source)


@pytest.mark.usefixtures("shuffle", "job_scans")
def test_a_source_the_iceberg_runtime_wrote_skips_it_too(
    spark: SparkSession, iceberg: str, warehouse: Path, namespace: str
) -> None:
    # the Iceberg runtime writes the source (two files per partition); Floe reads it as its own
    # table of the same warehouse and loads it into a table partitioned the same way
    written = f"{iceberg}.{namespace}.src"
    spark.sql(f"CREATE TABLE {written} ({COLUMNS}) USING iceberg PARTITIONED BY (region)")
    for i in range(2):
        spark.sql(
            f"INSERT INTO {written} SELECT id, id * 1.5, concat('n', CAST(id AS STRING)), "
            f"DATE '2024-01-30', element_at(array('eu', 'us', 'ap'), CAST(id % 3 AS INT) + 1) "
            f"FROM range({i}, {ROWS}, 2, 4)"
        )
    assert spark.sql(f"SELECT count(*) FROM {written}.files").collect()[0][0] == 6
    spark.sql(f"CREATE TABLE floe.{namespace}.t ({COLUMNS}) USING floe PARTITIONED BY (region)")
    insert = f"INSERT INTO floe.{namespace}.t SELECT * FROM floe.{namespace}.src"
    plan = plan_of(spark, insert)
    assert "Exchange" not in plan and "groupedBy=[region]" in plan, plan
    spark.sql(insert)
    assert layout(warehouse, namespace, "t") == Counter(
        json.dumps([{"region": r}, n], sort_keys=True)
        for r, n in (("eu", 1334), ("us", 1333), ("ap", 1333))
    )


@pytest.mark.usefixtures("shuffle", "job_scans")
def test_odd_names_and_null_keys_of_a_floe_source_skip_it_and_write_what_the_shuffle_writes(
    spark: SparkSession, namespace: str
) -> None:
    # a partition column with a space; values with a space, a slash, a percent sign, non-ASCII
    # letters and NULL; tables with a space, a dollar sign and a non-ASCII letter in their names
    source = f"floe.{namespace}.`src é $x`"
    spark.sql(f"CREATE TABLE {source} {ODD_DDL}")
    for i in range(2):
        spark.sql(
            f"INSERT INTO {source} SELECT id, element_at(array('a b', 'é/x', '100%', NULL), "
            f"CAST(id % 4 AS INT) + 1) FROM range({i}, 400, 2, 2)"
        )
    plan = insert_odd_names_both_ways(spark, namespace, f"SELECT * FROM {source}")
    assert "Exchange" not in plan and "groupedBy=[p q]" in plan, plan


@pytest.mark.usefixtures("shuffle", "job_scans")
@pytest.mark.parametrize("split", ["-5", "9223372036854775807"])
def test_split_sizes_out_of_range_fail_clearly_or_skip_it(
    spark: SparkSession, warehouse: Path, namespace: str, split: str
) -> None:
    # a negative split size fails the insert naming the setting, with nothing written; the
    # largest one leaves every key's files in range (no overflow): the shuffle is skipped
    source = f"floe.{namespace}.src"
    floe_source(spark, source, "region")
    spark.sql(f"CREATE TABLE floe.{namespace}.t ({COLUMNS}) USING floe PARTITIONED BY (region)")
    insert = f"INSERT INTO floe.{namespace}.t SELECT * FROM {source}"
    with spark_setting(spark, "spark.sql.files.maxPartitionBytes", split):
        if split.startswith("-"):
            with pytest.raises(Exception) as error:
                spark.sql(insert)
            message = str(error.value)
            assert "spark.sql.files.maxPartitionBytes" in message and split in message, message
        else:
            assert "groupedBy=[region]" in plan_of(spark, insert)
            spark.sql(insert)
    expected = 0 if split.startswith("-") else ROWS
    assert spark.sql(f"SELECT count(*) FROM floe.{namespace}.t").collect()[0][0] == expected
    if expected:
        assert set(files_per_partition(warehouse, namespace, "t").values()) == {1}
