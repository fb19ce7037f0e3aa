"""The read path: file pruning by partition values and column bounds, column pruning, statistics
for Spark's planner, Spark's vectorized reader, and columns matched by field id, not by name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import scan_report, unique_name
from jvm_tables import data_file, field, table_ops, write_parquet

from floe import inspect

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

FILES = 10
ROWS_PER_FILE = 100


def rows_of(df: DataFrame) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


@pytest.fixture(scope="module")
def ranges_namespace(spark: SparkSession) -> str:
    name = unique_name("read_path_ranges")
    spark.sql(f"CREATE NAMESPACE floe.{name}")
    return name


@pytest.fixture(scope="module")
def ranges(spark: SparkSession, warehouse: Path, ranges_namespace: str) -> tuple[str, str]:
    """A table of 10 files, one per append: file i holds ids [100 i, 100 i + 99] in partition
    p = 'p<i % 3>' and a column c that is never null. Returns the table and a temp view of the
    same rows. Shared by the tests of this module, which only read it."""
    namespace = ranges_namespace
    table = f"floe.{namespace}.ranges"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, p STRING, c STRING) PARTITIONED BY (p)")
    for i in range(FILES):
        spark.range(i * ROWS_PER_FILE, (i + 1) * ROWS_PER_FILE).selectExpr(
            "id", f"'p{i % 3}' AS p", "concat('c', cast(id AS STRING)) AS c"
        ).writeTo(table).append()
    files = inspect.table_files(str(warehouse / namespace / "ranges"))
    assert len(files) == FILES  # the premise of every count below
    view = f"ranges_view_{namespace}"
    spark.range(0, FILES * ROWS_PER_FILE).selectExpr(
        "id",
        f"concat('p', cast((id div {ROWS_PER_FILE}) % 3 AS STRING)) AS p",
        "concat('c', cast(id AS STRING)) AS c",
    ).createOrReplaceTempView(view)
    return table, view


@pytest.mark.parametrize(
    ("predicate", "files_read"),
    [
        ("id = 250", 1),
        ("id > 649", 4),  # files 6..9
        ("id >= 700", 3),
        ("id < 0", 0),
        ("id BETWEEN 150 AND 250", 2),
        ("id IN (5, 905)", 2),
        ("p = 'p1'", 3),  # files 1, 4, 7
        ("p = 'p1' AND id > 450", 2),  # files 4, 7
        ("p IN ('p0', 'p2') AND id < 300", 2),  # files 0, 2
        ("c IS NULL", 0),
        ("c IS NOT NULL", FILES),
        ("c = 'c555'", None),  # string bounds: computed below
        ("id = 250 OR p = 'p2'", 3),  # file 2 (also p2), 5, 8
        ("true", FILES),
    ],
)
def test_filters_prune_files_and_results_stay_correct(
    spark: SparkSession, ranges: tuple[str, str], predicate: str, files_read: int | None
) -> None:
    table, view = ranges
    if files_read is None:
        # 'c555' is within the string bounds ['c<lo>', 'c<hi>'] of a file when it sorts between
        # them as text: file 5 ('c500'..'c599') and file 0 ('c0'..'c99')
        files_read = sum(
            1
            for i in range(FILES)
            if min(f"c{n}" for n in range(i * 100, i * 100 + 100))
            <= "c555"
            <= max(f"c{n}" for n in range(i * 100, i * 100 + 100))
        )
        assert files_read == 2
    got = rows_of(spark.sql(f"SELECT * FROM {table} WHERE {predicate}"))
    report = scan_report(spark, table)
    assert report["total-manifests"] == FILES  # one per append
    assert report["result-data-files"] == files_read, report
    expected = rows_of(spark.sql(f"SELECT * FROM {view} WHERE {predicate}"))
    assert got == expected


@pytest.mark.usefixtures("job_scans")  # looks at the job's scan nodes
def test_only_requested_columns_are_read(spark: SparkSession, namespace: str) -> None:
    table = f"floe.{namespace}.wide"
    width = 30
    spark.sql(f"CREATE TABLE {table} ({', '.join(f'c{i} BIGINT' for i in range(width))})")
    spark.range(50).selectExpr(*(f"id * 100 + {i} AS c{i}" for i in range(width))).writeTo(
        table
    ).append()
    df = spark.sql(f"SELECT c17 FROM {table} WHERE c3 < 1000")
    assert sorted(r.c17 for r in df.collect()) == [i * 100 + 17 for i in range(10)]
    plan = df._jdf.queryExecution().executedPlan().toString()
    scan = next(line for line in plan.splitlines() if "BatchScan" in line)
    assert "c17#" in scan and "c3#" in scan, scan
    assert not any(f"c{i}#" in scan for i in range(width) if i not in (3, 17)), scan
    rows = spark.sql(f"SELECT c29, c0 FROM {table} WHERE c0 = 4900").collect()
    assert [(r.c29, r.c0) for r in rows] == [(4929, 4900)]


def _stats(df: DataFrame, leaf: bool = False) -> tuple[int, int | None]:
    plan = df._jdf.queryExecution().optimizedPlan()
    if leaf:
        plan = plan.collectLeaves().head()
    stats = plan.stats()
    rows = stats.rowCount()
    return _number(stats.sizeInBytes()), (_number(rows.get()) if rows.isDefined() else None)


def _number(value: Any) -> int:
    """A Scala BigInt through py4j: sometimes converted already, sometimes a JavaObject."""
    return value if isinstance(value, int) else int(value.toString())


def test_spark_gets_row_count_and_size_from_floe(
    spark: SparkSession, warehouse: Path, ranges_namespace: str, ranges: tuple[str, str]
) -> None:
    table, _ = ranges
    namespace = ranges_namespace
    files = inspect.table_files(str(warehouse / namespace / "ranges"))
    metadata = inspect.load_table_metadata(str(warehouse / namespace / "ranges"))
    summary = inspect.find_snapshot(metadata)["summary"]  # type: ignore[index]
    size = sum(f["file_size_in_bytes"] for f in files)
    assert int(summary["total-files-size"]) == size
    assert _stats(spark.sql(f"SELECT * FROM {table}")) == (size, int(summary["total-records"]))
    # after pruning, the estimate covers the files left to read
    p1 = [f for f in files if f["partition"]["p"] == "p1"]
    estimate = _stats(spark.sql(f"SELECT * FROM {table} WHERE p = 'p1'"), leaf=True)
    assert estimate == (sum(f["file_size_in_bytes"] for f in p1), 3 * ROWS_PER_FILE)


def test_a_narrow_read_is_estimated_as_spark_estimates_the_same_parquet_files(
    spark: SparkSession, warehouse: Path, ranges_namespace: str, ranges: tuple[str, str]
) -> None:
    """The size Spark's optimizer sees for a read of some columns is the files' size scaled by
    the share of a row read, exactly as for a plain Parquet relation over the same files: the
    same broadcast choices on the same data."""
    table, _ = ranges
    files = inspect.table_files(str(warehouse / ranges_namespace / "ranges"))
    paths = [str(f["file_path"]) for f in files]
    size = sum(f["file_size_in_bytes"] for f in files)
    plain = spark.read.parquet(*paths)
    floe_id, _ = _stats(spark.table(table).select("id"))
    parquet_id, _ = _stats(plain.select("id"))
    assert floe_id == parquet_id and floe_id < size // 2, (floe_id, parquet_id, size)
    floe_ic, _ = _stats(spark.table(table).select("id", "c"))
    assert floe_ic == _stats(plain.select("id", "c"))[0] and floe_id < floe_ic < size


@pytest.mark.usefixtures("job_scans")  # looks at the job's scan nodes
def test_reads_use_spark_vectorized_columnar_batches(
    spark: SparkSession, ranges: tuple[str, str]
) -> None:
    table, _ = ranges
    df = spark.sql(f"SELECT id, c FROM {table} WHERE p = 'p0'")
    executed = df._jdf.queryExecution().executedPlan()
    plan = executed.toString()
    assert "BatchScan" in plan and "FloeScan" in plan, plan
    assert "ColumnarToRow" in plan, plan
    scans = [
        node for node in _nodes(executed) if node.getClass().getSimpleName() == "BatchScanExec"
    ]
    assert len(scans) == 1 and scans[0].supportsColumnar()
    assert df.count() == 4 * ROWS_PER_FILE


def _nodes(plan: Any) -> list[Any]:
    out = [plan]
    children = plan.children()
    for i in range(children.size()):
        out.extend(_nodes(children.apply(i)))
    return out


# --- columns matched by field id ---------------------------------------------------------------


def test_parquet_columns_are_matched_by_field_id_not_name(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    name = "by_id"
    table = f"floe.{namespace}.{name}"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, name STRING, score DOUBLE)")
    spark.sql(f"INSERT INTO {table} VALUES (1, 'one', 1.5)")
    ids = {
        f["name"]: f["id"]
        for f in inspect.load_table_metadata(str(warehouse / namespace / name))["schemas"][0][
            "fields"
        ]
    }
    assert ids == {"id": 1, "name": 2, "score": 3}
    # Another writer's file: columns in another order, 'score' stored under another name, no
    # column with id 2, and a decoy column named 'name' that has an id the table does not know.
    schema = pa.schema(
        [
            field("points", pa.float64(), 3),
            field("id", pa.int64(), 1),
            field("name", pa.string(), 99),
        ]
    )
    foreign = pa.table(
        {"points": [10.5, 20.5], "id": [10, 20], "name": ["decoy", "decoy"]}, schema=schema
    )
    path = write_parquet(warehouse / namespace / name / "data", foreign)
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    ops = table_ops(spark, warehouse, namespace, name)
    base = ops.refresh()
    jvm.io.floe.format.commit.AppendFiles(ops).appendFile(
        data_file(spark, base, path, foreign.num_rows)
    ).commit()

    assert rows_of(spark.sql(f"SELECT id, name, score FROM {table}")) == sorted(
        [(1, "one", 1.5), (10, None, 10.5), (20, None, 20.5)], key=repr
    )
    assert rows_of(spark.sql(f"SELECT score FROM {table} WHERE score > 15")) == [(20.5,)]
    assert rows_of(spark.sql(f"SELECT count(*) FROM {table} WHERE name IS NULL")) == [(2,)]
    # the pure-Python reader agrees
    local = inspect.read_table(str(warehouse / namespace / name))
    assert sorted(local.column("score").to_pylist()) == [1.5, 10.5, 20.5]


def test_renamed_column_keeps_reading_old_files_by_id(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    name = "renamed"
    table = f"floe.{namespace}.{name}"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, name STRING, score DOUBLE)")
    spark.sql(f"INSERT INTO {table} VALUES (1, 'one', 1.5), (2, 'two', 2.5)")

    # Rename 'name' to 'label' in a new metadata version, committed through the format layer.
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    fmt = jvm.io.floe.format
    ops = table_ops(spark, warehouse, namespace, name)
    base = ops.refresh()
    schema = json.loads(fmt.types.SchemaParser.toJson(base.schema()))
    for f in schema["fields"]:
        if f["name"] == "name":
            f["name"] = "label"
    renamed = fmt.types.SchemaParser.fromJson(json.dumps(schema))
    updated = (
        fmt.metadata.TableMetadata.buildFrom(base)
        .setCurrentSchema(renamed, base.lastColumnId())
        .build()
    )
    ops.commit(base, updated)

    metadata = inspect.load_table_metadata(str(warehouse / namespace / name))
    current = next(
        s for s in metadata["schemas"] if s["schema-id"] == metadata["current-schema-id"]
    )
    assert [(f["id"], f["name"]) for f in current["fields"]] == [
        (1, "id"),
        (2, "label"),
        (3, "score"),
    ]
    # The old file still names the column 'name'; it is read by id 2.
    for old in inspect.table_files(str(warehouse / namespace / name)):
        parquet = pq.ParquetFile(inspect._paths.local_path(old["file_path"]))
        assert parquet.schema_arrow.names == ["id", "name", "score"]
    assert [c.name for c in spark.table(table).schema] == ["id", "label", "score"]
    assert rows_of(spark.sql(f"SELECT label, id FROM {table}")) == [("one", 1), ("two", 2)]
    assert rows_of(spark.sql(f"SELECT id FROM {table} WHERE label = 'two'")) == [(2,)]
    spark.sql(f"INSERT INTO {table} VALUES (3, 'three', 3.5)")
    assert rows_of(spark.sql(f"SELECT * FROM {table}")) == [
        (1, "one", 1.5),
        (2, "two", 2.5),
        (3, "three", 3.5),
    ]
