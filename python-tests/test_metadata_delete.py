"""Metadata-only DELETE and the metadata columns ``_file``, ``_pos``, ``_spec_id``, ``_partition``.

``DELETE FROM t WHERE ...`` whose condition selects whole data files (whole identity or transform
partitions, or nothing at all) drops those files from metadata in one ``delete`` snapshot without
rewriting anything; a condition that would need row-level changes is planned as a row-level
DELETE instead (see test_row_level_*.py). pyiceberg (and the Iceberg runtime, when available)
read the same rows afterwards.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import floe
import floe.inspect as inspect

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _location(warehouse: Path, namespace: str, table: str) -> str:
    return f"{floe.warehouse_uri(str(warehouse))}/{namespace}/{table}"


def _rows(spark: SparkSession, sql: str) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in spark.sql(sql).collect())


def _current(location: str) -> dict[str, Any]:
    metadata = inspect.load_table_metadata(location)
    snap_id = metadata["current-snapshot-id"]
    return next(s for s in metadata["snapshots"] if s["snapshot-id"] == snap_id)


def _snapshot_count(location: str) -> int:
    return len(inspect.load_table_metadata(location).get("snapshots", []))


def _pyiceberg_rows(location: str, columns: tuple[str, ...]) -> list[tuple[Any, ...]]:
    from pyiceberg.table import StaticTable

    table = StaticTable.from_metadata(location).scan(selected_fields=columns).to_arrow()
    return sorted(zip(*(table.column(c).to_pylist() for c in columns), strict=True))


def _plans_row_level(spark: SparkSession, delete: str) -> bool:
    """Whether Spark plans ``delete`` as a row-level operation rather than a metadata-only one."""
    plan = str(spark.sql(f"EXPLAIN {delete}").collect()[0][0])
    assert ("ReplaceData" in plan or "WriteDelta" in plan) != ("DeleteFromTable" in plan), plan
    return "DeleteFromTable" not in plan


def _identity_table(spark: SparkSession, name: str) -> None:
    spark.sql(f"CREATE TABLE {name} (id BIGINT, cat STRING) USING floe PARTITIONED BY (cat)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'a'), (3, 'b'), (4, 'b'), (5, 'c')")
    spark.sql(f"INSERT INTO {name} VALUES (6, 'a'), (7, 'c')")


def test_delete_identity_partition(spark: SparkSession, namespace: str, warehouse: Path) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    _identity_table(spark, name)
    files_before = inspect.table_files(location)
    a_files = [f for f in files_before if f["partition"]["cat"] == "a"]
    assert len(a_files) == 2
    before = _current(location)

    spark.sql(f"DELETE FROM {name} WHERE cat = 'a'")

    assert _rows(spark, f"SELECT * FROM {name}") == [(3, "b"), (4, "b"), (5, "c"), (7, "c")]
    snap = _current(location)
    assert snap["parent-snapshot-id"] == before["snapshot-id"]
    summary = snap["summary"]
    assert summary["operation"] == "delete"
    assert summary["deleted-data-files"] == "2"
    assert summary["deleted-records"] == "3"
    assert summary["total-data-files"] == str(len(files_before) - 2)
    assert summary["total-records"] == "4"
    assert "added-data-files" not in summary
    remaining = {f["file_path"] for f in inspect.table_files(location)}
    assert remaining == {f["file_path"] for f in files_before} - {f["file_path"] for f in a_files}
    # nothing was rewritten: the surviving files are the old ones
    assert _pyiceberg_rows(location, ("id", "cat")) == [(3, "b"), (4, "b"), (5, "c"), (7, "c")]


def test_delete_day_partition(spark: SparkSession, namespace: str, warehouse: Path) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {name} (id INT, ts TIMESTAMP) USING floe PARTITIONED BY (days(ts))")
    spark.sql(
        f"INSERT INTO {name} VALUES (1, TIMESTAMP '2024-01-01 03:00:00'), "
        "(2, TIMESTAMP '2024-01-01 23:59:59'), (3, TIMESTAMP '2024-01-02 00:00:00'), "
        "(4, TIMESTAMP '2024-01-03 12:00:00')"
    )
    spark.sql(
        f"DELETE FROM {name} WHERE ts >= TIMESTAMP '2024-01-01 00:00:00' "
        "AND ts < TIMESTAMP '2024-01-02 00:00:00'"
    )
    assert [r[0] for r in _rows(spark, f"SELECT id FROM {name}")] == [3, 4]
    summary = _current(location)["summary"]
    assert (summary["operation"], summary["deleted-data-files"], summary["deleted-records"]) == (
        "delete",
        "1",
        "2",
    )
    assert sorted(r[0] for r in _pyiceberg_rows(location, ("id",))) == [3, 4]

    # a range inside one day: day 2024-01-03's file (one row at 12:00) has bounds that prove
    # every row matches before 13:00, so that is still metadata-only; a condition the bounds
    # cannot decide needs a row-level change
    delete = f"DELETE FROM {name} WHERE ts < TIMESTAMP"
    assert not _plans_row_level(spark, f"{delete} '2024-01-03 13:00:00'")
    assert _plans_row_level(spark, f"{delete} '2024-01-03 13:00:00' AND id % 2 = 0")
    assert not _plans_row_level(spark, f"{delete} '2024-01-03 06:00:00'")

    # day 2024-01-02 matches entirely; day 2024-01-03's bounds (from 12:00) prove it keeps all
    spark.sql(f"DELETE FROM {name} WHERE ts < TIMESTAMP '2024-01-03 06:00:00'")
    assert [r[0] for r in _rows(spark, f"SELECT id FROM {name}")] == [4]
    summary = _current(location)["summary"]
    assert (summary["deleted-data-files"], summary["deleted-records"]) == ("1", "1")


def test_delete_where_true_and_no_match(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    _identity_table(spark, name)
    snapshots = _snapshot_count(location)

    spark.sql(f"DELETE FROM {name} WHERE cat = 'zzz'")
    assert _snapshot_count(location) == snapshots  # no file matched: no snapshot
    assert len(_rows(spark, f"SELECT * FROM {name}")) == 7

    # column bounds prove no file holds a matching row: nothing to do either
    spark.sql(f"DELETE FROM {name} WHERE id > 100")
    assert _snapshot_count(location) == snapshots

    spark.sql(f"DELETE FROM {name} WHERE true")
    assert _rows(spark, f"SELECT * FROM {name}") == []
    summary = _current(location)["summary"]
    assert summary["operation"] == "delete"
    assert summary["deleted-records"] == "7"
    assert summary["total-records"] == "0"
    assert summary["total-data-files"] == "0"
    assert inspect.table_files(location) == []
    assert _pyiceberg_rows(location, ("id", "cat")) == []


def test_row_level_delete_is_not_metadata_only(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    _identity_table(spark, name)
    snapshots = _snapshot_count(location)
    for condition in ("id = 3", "cat = 'a' AND id = 1", "NOT (cat = 'a')", "cat = 'a' OR id = 3"):
        assert _plans_row_level(spark, f"DELETE FROM {name} WHERE {condition}")
    assert not _plans_row_level(spark, f"DELETE FROM {name} WHERE cat = 'a'")
    assert _snapshot_count(location) == snapshots
    assert len(_rows(spark, f"SELECT * FROM {name}")) == 7


def test_delete_then_iceberg_runtime_reads(
    spark: SparkSession, iceberg: str, namespace: str
) -> None:
    name = f"floe.{namespace}.t"
    _identity_table(spark, name)
    spark.sql(f"DELETE FROM {name} WHERE cat IN ('a', 'c')")
    expected = [(3, "b"), (4, "b")]
    assert _rows(spark, f"SELECT * FROM {name}") == expected
    assert _rows(spark, f"SELECT * FROM {iceberg}.{namespace}.t") == expected
    # Iceberg's own metadata columns agree with Floe's
    columns = "_file, _pos, _spec_id, id, cat"
    assert _rows(spark, f"SELECT {columns} FROM {name}") == _rows(
        spark, f"SELECT {columns} FROM {iceberg}.{namespace}.t"
    )
    assert _rows(spark, f"SELECT _partition.cat, id FROM {name}") == _rows(
        spark, f"SELECT _partition.cat, id FROM {iceberg}.{namespace}.t"
    )


def test_metadata_columns(spark: SparkSession, namespace: str, warehouse: Path) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    _identity_table(spark, name)
    spark.sql(f"ALTER TABLE {name} ADD PARTITION FIELD bucket(2, id)")
    spark.sql(f"INSERT INTO {name} VALUES (8, 'd')")
    files = {f["file_path"]: f for f in inspect.table_files(location)}

    rows = spark.sql(f"SELECT _file, _pos, _spec_id, _partition, * FROM {name}").collect()
    assert len(rows) == 8
    by_file: dict[str, list[Any]] = {}
    for r in rows:
        assert r["_file"] in files
        f = files[r["_file"]]
        assert r["_spec_id"] == f["spec_id"]
        partition = r["_partition"].asDict()
        assert partition["cat"] == r["cat"]
        # the union of both specs' fields; a field the file's spec lacks is null
        assert partition == {k: f["partition"].get(k) for k in partition}
        assert set(f["partition"]) <= set(partition)
        by_file.setdefault(r["_file"], []).append(r)
    assert set(by_file) == set(files)
    for path, file_rows in by_file.items():
        assert sorted(r["_pos"] for r in file_rows) == list(range(files[path]["record_count"]))
    assert {r["_spec_id"] for r in rows} == {0, 1}
    assert len(rows[0]["_partition"]) == 2
    old_row = next(r for r in rows if r["id"] == 1)
    new_row = next(r for r in rows if r["id"] == 8)
    assert old_row["_partition"][1] is None
    assert new_row["_partition"][1] is not None

    # a metadata column alone, and in a filter
    one = sorted(files)[0]
    count = spark.sql(f"SELECT count(*) FROM {name} WHERE _file = '{one}'").collect()[0][0]
    assert count == files[one]["record_count"]
    assert _rows(spark, f"SELECT _pos FROM {name} WHERE id = 8") == [(0,)]

    # whole-partition DELETE across both specs, then the metadata columns of what is left
    spark.sql(f"DELETE FROM {name} WHERE cat IN ('a', 'd')")
    summary = _current(location)["summary"]
    assert (summary["operation"], summary["deleted-data-files"], summary["deleted-records"]) == (
        "delete",
        "3",
        "4",
    )
    left = {f["file_path"] for f in inspect.table_files(location)}
    assert {r[0] for r in _rows(spark, f"SELECT _file FROM {name}")} == left
    assert _rows(spark, f"SELECT id, _spec_id FROM {name}") == [(3, 0), (4, 0), (5, 0), (7, 0)]
    assert sorted(r[0] for r in _pyiceberg_rows(location, ("id",))) == [3, 4, 5, 7]
