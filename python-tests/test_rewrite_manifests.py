"""CALL floe.system.rewrite_manifests: regroups the current snapshot's data manifests by partition.

A partitioned table built by many small appends has one manifest per append; after the rewrite it
has fewer, each covering a narrow partition range, so a partition-filtered query reads fewer
manifests (ScanReports). Rows, older snapshots and the readings of pyiceberg and Iceberg's own
runtime stay the same; the procedure also works on a table Iceberg wrote.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import scan_report
from interop_tables import table_location

import floe.inspect as inspect

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

TARGET_SIZE = "commit.manifest.target-size-bytes"


def _rows(spark: SparkSession, query: str) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in spark.sql(query).collect())


def _current_snapshot(location: str) -> dict[str, Any]:
    metadata = inspect.load_table_metadata(location)
    snapshot = inspect.find_snapshot(metadata, metadata["current-snapshot-id"])
    assert snapshot is not None
    return snapshot


def _data_manifests(location: str) -> list[dict[str, Any]]:
    manifests = inspect.read_manifest_list(_current_snapshot(location)["manifest-list"])
    return [m for m in manifests if m.get("content", 0) == 0]


def _live_entries(location: str) -> dict[str, tuple[int, int, int]]:
    """Live data files by path: (snapshot id, data sequence number, file sequence number)."""
    out: dict[str, tuple[int, int, int]] = {}
    for manifest in _data_manifests(location):
        for entry in inspect.read_manifest(manifest["manifest_path"], manifest):
            if entry["status"] != 2:
                path = entry["data_file"]["file_path"]
                assert path not in out, f"{path} listed twice"
                out[path] = (
                    entry["snapshot_id"],
                    entry["sequence_number"],
                    entry["file_sequence_number"],
                )
    return out


def _pyiceberg_rows(location: str) -> list[tuple[Any, ...]]:
    from pyiceberg.table import StaticTable

    arrow = StaticTable.from_metadata(location).scan().to_arrow()
    columns = (arrow.column("id").to_pylist(), arrow.column("p").to_pylist())
    return sorted(zip(*columns, strict=True))


def _append_one_by_one(spark: SparkSession, table: str, partitions: int, rounds: int) -> None:
    for k in range(partitions * rounds):
        spark.sql(f"INSERT INTO {table} VALUES ({k}, 'p{k % partitions}')")


def _rewrite(spark: SparkSession, args: str) -> tuple[int, int]:
    row = spark.sql(f"CALL floe.system.rewrite_manifests({args})").collect()[0]
    return int(row.rewritten_manifests_count), int(row.added_manifests_count)


def test_rewrite_clusters_manifests_and_keeps_rows(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    table = f"floe.{namespace}.t"
    location = table_location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {table} (id BIGINT, p STRING) PARTITIONED BY (p)")
    _append_one_by_one(spark, table, partitions=8, rounds=2)
    before_rows = _rows(spark, f"SELECT * FROM {table}")
    before_snapshot = _current_snapshot(location)
    before_entries = _live_entries(location)
    manifests = _data_manifests(location)
    assert len(manifests) == 16
    filtered = f"SELECT * FROM {table} WHERE p = 'p5'"
    filtered_rows = _rows(spark, filtered)
    assert scan_report(spark, table)["scanned-manifests"] == 2

    # about four manifests' worth of bytes: 16 entries sorted by partition, 4 per manifest
    total = sum(int(m["manifest_length"]) for m in manifests)
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('{TARGET_SIZE}' = '{total // 4 + 1}')")
    assert _rewrite(spark, f"table => '{namespace}.t'") == (16, 4)

    after = _current_snapshot(location)
    assert after["summary"]["operation"] == "replace"
    assert after["parent-snapshot-id"] == before_snapshot["snapshot-id"]
    assert after["summary"]["manifests-replaced"] == "16"
    assert after["summary"]["manifests-created"] == "4"
    for key in ("total-records", "total-data-files", "total-files-size"):
        assert after["summary"][key] == before_snapshot["summary"][key]
    assert _live_entries(location) == before_entries
    ranges = []
    for manifest in _data_manifests(location):
        entries = inspect.read_manifest(manifest["manifest_path"], manifest)
        assert {e["status"] for e in entries} == {0}  # EXISTING
        ranges.append(sorted({e["data_file"]["partition"]["p"] for e in entries}))
    assert sorted(ranges) == [["p0", "p1"], ["p2", "p3"], ["p4", "p5"], ["p6", "p7"]]

    assert _rows(spark, f"SELECT * FROM {table}") == before_rows
    assert _rows(spark, filtered) == filtered_rows
    report = scan_report(spark, table)
    assert report["scanned-manifests"] == 1
    assert report["skipped-manifests"] == 3

    # the snapshot before the rewrite still reads the same rows
    old_id = before_snapshot["snapshot-id"]
    assert _rows(spark, f"SELECT * FROM {table} VERSION AS OF {old_id}") == before_rows

    # already clustered: nothing to do, no new snapshot
    snapshots = len(inspect.load_table_metadata(location)["snapshots"])
    assert _rewrite(spark, f"'{namespace}.t'") == (0, 0)
    assert len(inspect.load_table_metadata(location)["snapshots"]) == snapshots

    assert _pyiceberg_rows(location) == before_rows


def test_positional_arguments_and_spec_id(spark: SparkSession, namespace: str) -> None:
    table = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, p STRING) PARTITIONED BY (p)")
    _append_one_by_one(spark, table, partitions=2, rounds=2)
    rows = _rows(spark, f"SELECT * FROM {table}")
    # default target size: every manifest of spec 0 fits in one
    assert _rewrite(spark, f"'{namespace}.t', true, 0") == (4, 1)
    assert _rows(spark, f"SELECT * FROM {table}") == rows
    with pytest.raises(Exception, match=r"(?s)unknown partition spec id 9.*\[0\]") as error:
        _rewrite(spark, f"table => '{namespace}.t', spec_id => 9")
    assert f"{namespace}.t" in str(error.value)


def test_iceberg_runtime_and_pyiceberg_read_the_rewritten_table(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path
) -> None:
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    location = table_location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {floe_name} (id BIGINT, p STRING) PARTITIONED BY (p)")
    _append_one_by_one(spark, floe_name, partitions=3, rounds=3)
    spark.sql(f"DELETE FROM {floe_name} WHERE id = 4")
    rows = _rows(spark, f"SELECT * FROM {floe_name}")
    assert len(rows) == 8

    rewritten, added = _rewrite(spark, f"table => '{namespace}.t'")
    assert added == 1 and rewritten >= 8

    assert _rows(spark, f"SELECT * FROM {iceberg_name}") == rows
    assert _rows(spark, f"SELECT * FROM {iceberg_name} WHERE p = 'p1'") == [
        r for r in rows if r[1] == "p1"
    ]
    manifests = spark.sql(f"SELECT * FROM {iceberg_name}.manifests").collect()
    assert len([m for m in manifests if m.content == 0]) == 1
    assert _pyiceberg_rows(location) == rows


def test_rewrite_on_a_table_iceberg_wrote(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path
) -> None:
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    location = table_location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {iceberg_name} (id BIGINT, p STRING) USING iceberg PARTITIONED BY (p)")
    _append_one_by_one(spark, iceberg_name, partitions=3, rounds=2)
    rows = _rows(spark, f"SELECT * FROM {iceberg_name}")
    entries = _live_entries(location)
    assert len(_data_manifests(location)) == 6

    assert _rewrite(spark, f"table => '{namespace}.t'") == (6, 1)

    assert _live_entries(location) == entries
    assert _current_snapshot(location)["summary"]["operation"] == "replace"
    assert _rows(spark, f"SELECT * FROM {floe_name}") == rows
    assert _rows(spark, f"SELECT * FROM {iceberg_name}") == rows
    # Iceberg keeps writing on top of Floe's rewrite
    spark.sql(f"INSERT INTO {iceberg_name} VALUES (100, 'p0')")
    assert _rows(spark, f"SELECT * FROM {floe_name}") == sorted([*rows, (100, "p0")])
