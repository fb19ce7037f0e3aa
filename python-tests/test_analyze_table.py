"""ANALYZE TABLE and ``compute_table_stats`` on Floe tables: theta sketches written to Puffin and
registered in the table metadata's ``statistics`` for the analyzed snapshot.

Checked here: ``CALL floe.system.compute_table_stats`` with named and positional arguments (output
column ``statistics_file``), ``ANALYZE TABLE ... COMPUTE STATISTICS [NOSCAN]`` (succeeds, writes
nothing: row count and size are in Floe's metadata), ``... FOR COLUMNS a, b`` and ``... FOR ALL
COLUMNS``; the Puffin file (read without the JVM) has one theta blob per column with the right field
id, snapshot and sequence number, and every estimate is within 3.1% of ``count(DISTINCT c)`` on a
table of 300k rows of eleven types; after an append the statistics are computed incrementally, from
the previous sketches and only the new data files (the old files are moved away while it runs),
also across a compaction;
errors name an unknown or nested column; ANALYZE of a Parquet table in ``spark_catalog`` is still
Spark's own.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import spark_jobs
from pyspark.errors import AnalysisException, ParseException

import floe
import floe.inspect as inspect
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROWS = 300_000
# name -> (type, expression over `id` in 0..ROWS)
COLUMNS: dict[str, tuple[str, str]] = {
    "id": ("BIGINT", "id"),
    "i": ("INT", "CAST(id % 50000 AS INT)"),
    "s": ("STRING", "concat('key-', CAST(id % 120000 AS STRING))"),
    "d": ("DATE", "date_add(DATE '2000-01-01', CAST(id % 9000 AS INT))"),
    "ts": ("TIMESTAMP", "timestamp_micros(id * 7919 % 210000 * 1000000)"),
    "dec": ("DECIMAL(10,2)", "CAST((id % 77777) / 100 AS DECIMAL(10,2))"),
    "big": ("DECIMAL(30,4)", "CAST(id % 65000 AS DECIMAL(30,4)) * 1000000000000"),
    "dbl": ("DOUBLE", "CAST(id % 150000 AS DOUBLE) * 1.5"),
    "f": ("FLOAT", "CAST(id % 3000 AS FLOAT) / 7"),
    "b": ("BOOLEAN", "id % 3 = 0"),
    "bin": ("BINARY", "CAST(concat('b', CAST(id % 20000 AS STRING)) AS BINARY)"),
}
TOLERANCE = 0.031  # 2 RSE at lgK 12, all columns but one (W9; docs/benchmarks.md, 'Statistics')
HARD_TOLERANCE = 0.047  # 3 RSE: no column may be further off


def _location(warehouse: Path, namespace: str, name: str) -> str:
    return f"{floe.warehouse_uri(str(warehouse))}/{namespace}/{name}"


def _metadata(warehouse: Path, namespace: str, name: str = "t") -> dict[str, Any]:
    metadata: dict[str, Any] = inspect.load_table_metadata(_location(warehouse, namespace, name))
    return metadata


def _create(spark: SparkSession, table: str, rows: int = ROWS, start: int = 0) -> None:
    columns = ", ".join(f"{n} {t}" for n, (t, _) in COLUMNS.items())
    spark.sql(f"CREATE TABLE {table} ({columns}, nested STRUCT<x: INT>) USING floe")
    _append(spark, table, start, start + rows)


def _append(spark: SparkSession, table: str, start: int, end: int) -> None:
    select = ", ".join(f"{e} AS {n}" for n, (_, e) in COLUMNS.items())
    spark.sql(
        f"INSERT INTO {table} SELECT {select}, named_struct('x', CAST(id AS INT)) AS nested "
        f"FROM range({start}, {end}, 1, 4)"
    )


def _field_ids(metadata: dict[str, Any]) -> dict[str, int]:
    schema = next(s for s in metadata["schemas"] if s["schema-id"] == metadata["current-schema-id"])
    return {f["name"]: f["id"] for f in schema["fields"]}


def _statistics(metadata: dict[str, Any], snapshot_id: int) -> dict[str, Any]:
    entries: list[dict[str, Any]] = [
        s for s in metadata.get("statistics", []) if s["snapshot-id"] == snapshot_id
    ]
    assert len(entries) == 1, metadata.get("statistics")
    return entries[0]


def _estimates(path: str) -> dict[int, tuple[float, dict[str, Any]]]:
    """Field id -> (estimate decoded with datasketches, footer blob) of each theta blob."""
    footer = inspect.read_puffin(path)
    out: dict[int, tuple[float, dict[str, Any]]] = {}
    for blob in footer["blobs"]:
        assert blob["type"] == "apache-datasketches-theta-v1"
        assert len(blob["fields"]) == 1
        sketch = inspect.read_puffin_blob(path, blob)
        out[blob["fields"][0]] = (inspect.theta_estimate(sketch), blob)
    return out


def _exact(spark: SparkSession, table: str, names: list[str]) -> dict[str, int]:
    row = spark.sql(
        "SELECT " + ", ".join(f"count(DISTINCT {n}) AS {n}" for n in names) + f" FROM {table}"
    ).collect()[0]
    return {n: int(row[n]) for n in names}


def _check_estimates(
    spark: SparkSession,
    table: str,
    metadata: dict[str, Any],
    entry: dict[str, Any],
    names: list[str],
) -> None:
    ids = _field_ids(metadata)
    estimates = _estimates(entry["statistics-path"])
    assert set(estimates) == {ids[n] for n in names}
    listed = {b["fields"][0]: b for b in entry["blob-metadata"]}
    exact = _exact(spark, table, names)
    errors = {n: abs(estimates[ids[n]][0] - exact[n]) / exact[n] for n in names}
    assert all(e <= HARD_TOLERANCE for e in errors.values()), errors
    assert sum(e > TOLERANCE for e in errors.values()) <= 1, errors
    for name in names:
        estimate, blob = estimates[ids[name]]
        ndv = int(blob["properties"]["ndv"])
        assert ndv == int(estimate), (name, ndv, estimate)
        assert listed[ids[name]]["properties"] == {"ndv": str(ndv)}
        assert blob["compression-codec"] == "zstd"


@pytest.fixture(scope="module")
def analyzed(spark: SparkSession, warehouse: Path) -> tuple[str, str]:
    """One 300k-row table shared by the read-only checks: (namespace, table)."""
    from conftest import unique_name

    namespace = unique_name("analyze")
    spark.sql(f"CREATE NAMESPACE floe.{namespace}")
    table = f"floe.{namespace}.t"
    _create(spark, table)
    return namespace, table


def test_call_with_named_arguments_registers_every_primitive_column(
    spark: SparkSession, warehouse: Path, analyzed: tuple[str, str]
) -> None:
    namespace, table = analyzed
    rows = spark.sql(f"CALL floe.system.compute_table_stats(table => '{namespace}.t')").collect()
    assert [r.asDict().keys() for r in rows] == [{"statistics_file": None}.keys()]
    metadata = _metadata(warehouse, namespace)
    snapshot = metadata["current-snapshot-id"]
    entry = _statistics(metadata, snapshot)
    assert entry["statistics-path"] == rows[0]["statistics_file"]
    assert entry["statistics-path"].startswith(_location(warehouse, namespace, "t") + "/metadata/")
    assert Path(entry["statistics-path"]).name.startswith(f"{snapshot}-")
    assert entry["statistics-path"].endswith(".stats")
    path = inspect.read_puffin(entry["statistics-path"])
    assert path["properties"]["created-by"].startswith("Floe")
    assert entry["file-size-in-bytes"] == local_path(entry["statistics-path"]).stat().st_size
    snapshots = {s["snapshot-id"]: s for s in metadata["snapshots"]}
    sequence = snapshots[snapshot]["sequence-number"]
    for blob in entry["blob-metadata"]:
        assert blob["snapshot-id"] == snapshot
        assert blob["sequence-number"] == sequence
    _check_estimates(spark, table, metadata, entry, list(COLUMNS))  # not `nested`: not primitive


def test_call_with_positional_arguments_and_an_older_snapshot(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    table = f"floe.{namespace}.t"
    _create(spark, table, rows=2000)
    first = _metadata(warehouse, namespace)["current-snapshot-id"]
    _append(spark, table, 2000, 5000)
    path = spark.sql(
        f"CALL floe.system.compute_table_stats('{namespace}.t', {first}, array('i', 'S'))"
    ).collect()[0]["statistics_file"]
    metadata = _metadata(warehouse, namespace)
    entry = _statistics(metadata, first)
    assert entry["statistics-path"] == path
    assert [s["snapshot-id"] for s in metadata["statistics"]] == [first]
    ids = _field_ids(metadata)
    estimates = _estimates(path)
    assert sorted(estimates) == sorted([ids["i"], ids["s"]])
    # exact below 4096 distinct values: the first 2000 rows only
    assert estimates[ids["i"]][0] == 2000.0
    # running it again replaces the entry of that snapshot and deletes the replaced file
    again = spark.sql(
        f"CALL floe.system.compute_table_stats(table => 'floe.{namespace}.t', "
        f"snapshot_id => {first})"
    ).collect()[0]["statistics_file"]
    metadata = _metadata(warehouse, namespace)
    assert _statistics(metadata, first)["statistics-path"] == again
    assert not local_path(path).exists()
    # below 4096 distinct values a sketch is exact: equal values of every type hash alike
    estimates = _estimates(again)
    exact = _exact(spark, f"{table} VERSION AS OF {first}", list(COLUMNS))
    assert {n: estimates[ids[n]][0] for n in COLUMNS} == {n: float(exact[n]) for n in COLUMNS}


def test_analyze_for_columns_and_for_all_columns(
    spark: SparkSession, warehouse: Path, analyzed: tuple[str, str]
) -> None:
    namespace, table = analyzed
    spark.sql(f"ANALYZE TABLE {table} COMPUTE STATISTICS FOR COLUMNS i, s").collect()
    metadata = _metadata(warehouse, namespace)
    entry = _statistics(metadata, metadata["current-snapshot-id"])
    _check_estimates(spark, table, metadata, entry, ["i", "s"])

    spark.sql(f"USE floe.{namespace}")
    try:
        spark.sql("ANALYZE TABLE t COMPUTE STATISTICS FOR ALL COLUMNS").collect()
    finally:
        spark.sql("USE spark_catalog.default")
    metadata = _metadata(warehouse, namespace)
    entry = _statistics(metadata, metadata["current-snapshot-id"])
    assert {b["fields"][0] for b in entry["blob-metadata"]} == {
        _field_ids(metadata)[n] for n in COLUMNS
    }


def test_analyze_without_columns_succeeds_and_writes_nothing(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    table = f"floe.{namespace}.t"
    _create(spark, table, rows=100)
    before = _metadata(warehouse, namespace)
    assert spark.sql(f"ANALYZE TABLE {table} COMPUTE STATISTICS").collect() == []
    assert spark.sql(f"ANALYZE TABLE {table} COMPUTE STATISTICS NOSCAN").collect() == []
    after = _metadata(warehouse, namespace)
    assert after.get("statistics", []) == [] and after["metadata-log"] == before["metadata-log"]
    with pytest.raises(AnalysisException, match="does not exist"):
        spark.sql(f"ANALYZE TABLE floe.{namespace}.missing COMPUTE STATISTICS NOSCAN")
    with pytest.raises(ParseException, match="PARTITION"):
        spark.sql(f"ANALYZE TABLE {table} PARTITION (i = 1) COMPUTE STATISTICS")


def test_empty_table_yields_no_file(spark: SparkSession, warehouse: Path, namespace: str) -> None:
    spark.sql(f"CREATE TABLE floe.{namespace}.t (id BIGINT) USING floe")
    call = f"CALL floe.system.compute_table_stats(table => '{namespace}.t')"
    assert spark.sql(call).collect() == []
    assert _metadata(warehouse, namespace).get("statistics", []) == []


def test_incremental_after_append_reads_only_the_new_files(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    table = f"floe.{namespace}.t"
    _create(spark, table, rows=200_000)
    spark.sql(f"ANALYZE TABLE {table} COMPUTE STATISTICS FOR ALL COLUMNS").collect()
    # a compaction (operation replace) keeps the live rows: the statistics stay a valid base
    spark.sql(
        f"CALL floe.system.rewrite_data_files(table => '{namespace}.t', "
        "options => map('rewrite-all', 'true'))"
    ).collect()
    metadata = _metadata(warehouse, namespace)
    current = {s["snapshot-id"]: s for s in metadata["snapshots"]}[metadata["current-snapshot-id"]]
    assert current["summary"]["operation"] == "replace"
    old_files = [r[0] for r in spark.sql(f"SELECT file_path FROM {table}.files").collect()]
    _append(spark, table, 150_000, 260_000)  # overlaps: the union must not double count
    parked = Path(str(warehouse)) / f"parked-{namespace}"
    parked.mkdir()
    moved = []
    try:
        for uri in old_files:
            local = Path(local_path(uri))
            shutil.move(str(local), str(parked / local.name))
            moved.append((parked / local.name, local))
        with pytest.raises(Exception):  # noqa: B017 - any failure: a full read needs the old files
            spark.table(table).selectExpr("sum(id)").collect()
        spark.sql(f"CALL floe.system.compute_table_stats(table => '{namespace}.t')").collect()
    finally:
        for source, target in moved:
            shutil.move(str(source), str(target))
    metadata = _metadata(warehouse, namespace)
    entry = _statistics(metadata, metadata["current-snapshot-id"])
    _check_estimates(spark, table, metadata, entry, list(COLUMNS))


def _call_jobs(spark: SparkSession, call: str) -> list[int]:
    """Runs ``call``; returns the ids of the Spark jobs it started."""
    return spark_jobs(spark, lambda: spark.sql(call).collect())[1]


def test_incremental_after_a_small_append_runs_no_job_and_matches_a_full_run(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    """A 1% append is sketched in the driver (no Spark job) and merged with the previous sketches;
    the estimates are those of a full run over the same rows, within the sketches' error. Beyond
    ``spark.floe.statistics.local-max-rows`` appended rows, a Spark job sketches them instead."""
    table = f"floe.{namespace}.t"
    call = f"CALL floe.system.compute_table_stats(table => '{namespace}.t')"
    _create(spark, table, rows=200_000)
    spark.sql(call).collect()
    _append(spark, table, 199_000, 201_000)  # half of it repeats values the sketches hold
    assert _call_jobs(spark, call) == []
    metadata = _metadata(warehouse, namespace)
    incremental = _estimates(
        _statistics(metadata, metadata["current-snapshot-id"])["statistics-path"]
    )
    _check_estimates(spark, table, metadata, _statistics(metadata, metadata["current-snapshot-id"]),
                     list(COLUMNS))  # fmt: skip

    copy = f"floe.{namespace}.full"
    spark.sql(f"CREATE TABLE {copy} USING floe AS SELECT * FROM {table}")
    spark.sql(f"CALL floe.system.compute_table_stats(table => '{namespace}.full')").collect()
    full_metadata = _metadata(warehouse, namespace, "full")
    full = _estimates(
        _statistics(full_metadata, full_metadata["current-snapshot-id"])["statistics-path"]
    )
    ids, full_ids = _field_ids(metadata), _field_ids(full_metadata)
    for name in COLUMNS:
        got, want = incremental[ids[name]][0], full[full_ids[name]][0]
        assert abs(got - want) <= TOLERANCE * want, (name, got, want)

    spark.conf.set("spark.floe.statistics.local-max-rows", "0")
    try:
        _append(spark, table, 300_000, 302_000)
        assert _call_jobs(spark, call) != []
    finally:
        spark.conf.unset("spark.floe.statistics.local-max-rows")
    metadata = _metadata(warehouse, namespace)
    entry = _statistics(metadata, metadata["current-snapshot-id"])
    _check_estimates(spark, table, metadata, entry, list(COLUMNS))
    spark.conf.set("spark.floe.statistics.local-max-rows", "many")
    try:
        _append(spark, table, 400_000, 400_010)
        with pytest.raises(
            AnalysisException, match=r"spark\.floe\.statistics\.local-max-rows=many"
        ):
            spark.sql(call).collect()
    finally:
        spark.conf.unset("spark.floe.statistics.local-max-rows")


def test_incremental_local_sketch_is_bounded_by_file_bytes_too(
    spark: SparkSession, namespace: str
) -> None:
    """Rows of long values: few rows but many bytes go to a Spark job, not the driver, beyond
    ``spark.floe.statistics.local-max-bytes``; the limits take any count >= 0 (the largest long
    too) and reject others, naming the setting."""
    table = f"floe.{namespace}.t"
    call = f"CALL floe.system.compute_table_stats(table => '{namespace}.t')"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, s STRING) USING floe")
    wide = "SELECT id, concat_ws('', transform(sequence(1, 40), i -> sha2(CAST(id * i AS STRING), "
    wide += "256))) FROM range({}, {}, 1, 1)"
    spark.sql(f"INSERT INTO {table} {wide.format(0, 100)}")
    spark.sql(call).collect()
    cases = [
        ("spark.floe.statistics.local-max-bytes", "10000", True),  # 100 rows, ~256 KiB of text
        ("spark.floe.statistics.local-max-rows", "0", True),
        ("spark.floe.statistics.local-max-rows", str(2**63 - 1), False),
    ]
    for k, (key, value, job) in enumerate(cases):
        spark.sql(f"INSERT INTO {table} {wide.format(100 * (k + 1), 100 * (k + 2))}")
        spark.conf.set(key, value)
        try:
            assert (_call_jobs(spark, call) != []) == job, (key, value)
        finally:
            spark.conf.unset(key)
    spark.sql(f"INSERT INTO {table} {wide.format(1000, 1010)}")
    for key, value in [
        ("spark.floe.statistics.local-max-bytes", "-1"),
        ("spark.floe.statistics.local-max-rows", str(2**63)),
    ]:
        spark.conf.set(key, value)
        try:
            with pytest.raises(AnalysisException, match=re.escape(f"{key}={value}")):
                spark.sql(call).collect()
        finally:
            spark.conf.unset(key)


def test_incremental_local_sketch_of_a_missing_file_is_an_error_naming_it(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    """An appended data file deleted outside Floe: the driver's read fails naming the table and
    the file (as a job's would), and registers no statistics for the snapshot."""
    table = f"floe.{namespace}.t"
    call = f"CALL floe.system.compute_table_stats(table => '{namespace}.t')"
    _create(spark, table, rows=1_000)
    spark.sql(call).collect()
    _append(spark, table, 1_000, 1_010)
    metadata = _metadata(warehouse, namespace)
    added = spark.sql(f"SELECT DISTINCT _file FROM {table} WHERE id >= 1000").collect()
    paths = [r[0] for r in added]
    local_path(paths[0]).unlink()
    with pytest.raises(Exception, match=re.escape(f"Cannot read table {table}")) as raised:
        spark.sql(call).collect()
    assert local_path(paths[0]).name in str(raised.value)
    after = _metadata(warehouse, namespace)
    assert after.get("statistics") == metadata.get("statistics")


def test_unknown_and_nested_columns_are_errors_naming_them(
    spark: SparkSession, analyzed: tuple[str, str]
) -> None:
    namespace, table = analyzed
    with pytest.raises(AnalysisException, match=f"column nope of table floe.{namespace}.t"):
        spark.sql(
            f"CALL floe.system.compute_table_stats(table => '{namespace}.t', "
            "columns => array('i', 'nope'))"
        )
    with pytest.raises(AnalysisException, match="column nope"):
        spark.sql(f"ANALYZE TABLE {table} COMPUTE STATISTICS FOR COLUMNS nope")
    with pytest.raises(AnalysisException, match=r"column nested .*cannot be sketched"):
        spark.sql(f"ANALYZE TABLE {table} COMPUTE STATISTICS FOR COLUMNS nested")
    with pytest.raises(AnalysisException, match="snapshot 42 does not exist"):
        spark.sql(
            f"CALL floe.system.compute_table_stats(table => '{namespace}.t', snapshot_id => 42)"
        )


def test_analyze_of_a_spark_catalog_parquet_table_is_sparks_own(
    spark: SparkSession, namespace: str
) -> None:
    parquet = f"spark_catalog.default.{namespace}_parquet"
    spark.sql(f"CREATE TABLE {parquet} USING parquet AS SELECT id, id % 7 AS k FROM range(100)")
    try:
        spark.sql(f"ANALYZE TABLE {parquet} COMPUTE STATISTICS FOR COLUMNS k")
        described = {r[0]: r[1] for r in spark.sql(f"DESCRIBE EXTENDED {parquet} k").collect()}
        assert described["distinct_count"] == "7"
        spark.sql(f"ANALYZE TABLE {parquet} COMPUTE STATISTICS")
        rows = spark.sql(f"DESCRIBE TABLE EXTENDED {parquet}").collect()
        stats = [r for r in rows if r[0] == "Statistics"]
        assert "100 rows" in stats[0][1]
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {parquet}")
