"""Merge-on-read DELETE / UPDATE / MERGE: the delete files Floe writes and how it merges them.

Format v3 tables get deletion vectors: all vectors of one commit in one Puffin file, at most one
live vector per data file (a new delete merges the file's previous vector and position deletes
and replaces them), each described by its manifest entry and Puffin footer (docs/format.md,
'Deletion vectors'). Format v2 tables get one Parquet position delete file per data file (in the
data file's partition directory, rows sorted by position, full ``file_path`` bounds,
``referenced_data_file`` set), replacing the file's previous ones. Snapshot operations and
summaries count the delete files. Every check reads the files directly (floe.inspect, pyarrow),
and pyiceberg reads the same rows.
"""

from __future__ import annotations

import struct
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow.parquet as pq
import pytest

import floe
from floe import inspect
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from collections.abc import Callable

    from pyspark.sql import SparkSession

MOR = (
    "'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read', "
    "'write.merge.mode'='merge-on-read'"
)
FILE_PATH_ID = 2147483546
POS_ID = 2147483545
GATE_TIMEOUT_S = 120.0


def _location(warehouse: Path, namespace: str, table: str) -> str:
    return f"{floe.warehouse_uri(str(warehouse))}/{namespace}/{table}"


def _create(spark: SparkSession, name: str, version: str, extra: str = "") -> None:
    """Ids 0..79, ``cat`` 'a' (even ids) or 'b' (odd), in two inserts: two files per partition."""
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, cat STRING, v STRING) USING floe PARTITIONED BY (cat) "
        f"TBLPROPERTIES ({MOR}, 'format-version'='{version}'{extra})"
    )
    for start in (0, 40):
        spark.sql(
            f"INSERT INTO {name} SELECT id, IF(id % 2 = 0, 'a', 'b'), CAST(id AS STRING) "
            f"FROM range({start}, {start + 40})"
        )


def _rows(spark: SparkSession, name: str) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in spark.sql(f"SELECT id, cat, v FROM {name}").collect())


def _pyiceberg_rows(location: str) -> list[tuple[Any, ...]]:
    from pyiceberg.table import StaticTable

    table = StaticTable.from_metadata(location).scan(selected_fields=("id", "cat", "v")).to_arrow()
    columns = [table.column(c).to_pylist() for c in ("id", "cat", "v")]
    return sorted(zip(*columns, strict=True))


def _inspect_rows(location: str) -> list[tuple[Any, ...]]:
    table = inspect.read_table(location)
    return sorted(zip(*(table.column(c).to_pylist() for c in ("id", "cat", "v")), strict=True))


def _current(location: str) -> dict[str, Any]:
    metadata = inspect.load_table_metadata(location)
    return next(
        s for s in metadata["snapshots"] if s["snapshot-id"] == metadata["current-snapshot-id"]
    )


def _data_files(location: str) -> dict[str, dict[str, Any]]:
    return {f["file_path"]: f for f in inspect.table_files(location) if f["content"] == 0}


def _delete_files(location: str) -> list[dict[str, Any]]:
    return [f for f in inspect.table_files(location) if f["content"] != 0]


def _deleted_positions(delete_file: dict[str, Any]) -> set[int]:
    """The positions a deletion vector or file-scoped position delete file removes."""
    if str(delete_file["file_format"]).upper() == "PUFFIN":
        return inspect.read_deletion_vector(
            delete_file["file_path"],
            delete_file["content_offset"],
            delete_file["content_size_in_bytes"],
        )
    by_file = inspect.read_position_deletes(delete_file["file_path"])
    assert set(by_file) == {delete_file["referenced_data_file"]}
    return by_file[delete_file["referenced_data_file"]]


def _positions_where(data_path: str, matches: Callable[[int], bool]) -> set[int]:
    """Positions in a data file of the rows whose id matches."""
    ids = pq.read_table(local_path(data_path), columns=["id"]).column(0).to_pylist()
    return {pos for pos, i in enumerate(ids) if matches(i)}


def _one_delete_file_per_data_file(location: str) -> dict[str, dict[str, Any]]:
    """The live delete files by referenced data file; fails if a data file has two."""
    data = _data_files(location)
    by_data_file: dict[str, dict[str, Any]] = {}
    for f in _delete_files(location):
        referenced = f["referenced_data_file"]
        assert referenced in data, f"{f['file_path']} references a file that is not live"
        assert referenced not in by_data_file, f"two live delete files for {referenced}"
        by_data_file[referenced] = f
        assert f["partition"] == data[referenced]["partition"]
        assert f["spec_id"] == data[referenced]["spec_id"]
    return by_data_file


def _bound(bounds: dict[int, bytes], field_id: int) -> bytes:
    return bytes(bounds[field_id])


def test_v3_deletes_merge_into_one_deletion_vector_per_data_file(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    _create(spark, name, "3")
    data = _data_files(location)
    assert len(data) >= 4

    spark.sql(f"DELETE FROM {name} WHERE id % 5 = 0")

    dvs = _one_delete_file_per_data_file(location)
    assert set(dvs) == set(data)  # every file holds a multiple of 5
    assert {f["file_path"] for f in dvs.values()} == {next(iter(dvs.values()))["file_path"]}
    first_puffin = next(iter(dvs.values()))["file_path"]
    footer = inspect.read_puffin(first_puffin)
    blobs = {b["properties"]["referenced-data-file"]: b for b in footer["blobs"]}
    assert set(blobs) == set(data)
    for path, dv in dvs.items():
        assert str(dv["file_format"]).upper() == "PUFFIN"
        expected = _positions_where(path, lambda i: i % 5 == 0)
        assert _deleted_positions(dv) == expected
        assert dv["record_count"] == len(expected)
        blob = blobs[path]
        assert blob["type"] == "deletion-vector-v1"
        assert blob["fields"] == [2147483645]
        assert blob["properties"]["cardinality"] == str(len(expected))
        assert (blob["offset"], blob["length"]) == (
            dv["content_offset"],
            dv["content_size_in_bytes"],
        )
        assert "compression-codec" not in blob
    first = _current(location)["summary"]
    assert first["operation"] == "delete"
    assert first["added-dvs"] == first["added-delete-files"] == str(len(data))
    assert first["added-position-deletes"] == "16"
    assert first["total-delete-files"] == str(len(data))
    assert first["total-position-deletes"] == "16"
    assert "removed-dvs" not in first
    assert "added-data-files" not in first

    spark.sql(f"DELETE FROM {name} WHERE id % 5 = 1")

    merged = _one_delete_file_per_data_file(location)
    assert set(merged) == set(data)
    second_puffins = {f["file_path"] for f in merged.values()}
    assert len(second_puffins) == 1
    assert second_puffins != {first_puffin}
    for path, dv in merged.items():
        assert _deleted_positions(dv) == _positions_where(path, lambda i: i % 5 in (0, 1))
    second = _current(location)["summary"]
    assert second["operation"] == "delete"
    assert second["added-dvs"] == second["removed-dvs"] == str(len(data))
    assert second["removed-position-deletes"] == "16"
    assert second["added-position-deletes"] == second["total-position-deletes"] == "32"
    assert second["total-delete-files"] == str(len(data))

    expected_rows = sorted(
        (i, "a" if i % 2 == 0 else "b", str(i)) for i in range(80) if i % 5 not in (0, 1)
    )
    assert _rows(spark, name) == expected_rows
    assert _pyiceberg_rows(location) == expected_rows
    assert _inspect_rows(location) == expected_rows


def test_v2_deletes_merge_into_one_position_delete_file_per_data_file(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    _create(spark, name, "2")
    data = _data_files(location)

    spark.sql(f"DELETE FROM {name} WHERE id % 5 = 0")
    first_files = _one_delete_file_per_data_file(location)
    assert set(first_files) == set(data)
    first = _current(location)["summary"]
    assert first["operation"] == "delete"
    assert first["added-position-delete-files"] == first["added-delete-files"] == str(len(data))
    assert first["added-position-deletes"] == "16"
    assert "added-dvs" not in first

    spark.sql(f"DELETE FROM {name} WHERE id % 5 = 1")

    files = _one_delete_file_per_data_file(location)
    assert set(files) == set(data)
    assert not {f["file_path"] for f in files.values()} & {
        f["file_path"] for f in first_files.values()
    }
    for path, f in files.items():
        assert str(f["file_format"]).upper() == "PARQUET"
        # next to its data file, in the partition directory
        assert local_path(f["file_path"]).parent == local_path(path).parent
        table = pq.read_table(local_path(f["file_path"]))
        assert table.column_names == ["file_path", "pos"]
        ids = [int(fld.metadata[b"PARQUET:field_id"]) for fld in table.schema]
        assert ids == [FILE_PATH_ID, POS_ID]
        assert not any(fld.nullable for fld in table.schema)
        assert set(table.column("file_path").to_pylist()) == {path}
        positions = table.column("pos").to_pylist()
        assert positions == sorted(_positions_where(path, lambda i: i % 5 in (0, 1)))
        assert f["record_count"] == len(positions)
        # full bounds: the whole path, however long, on both sides; pos min and max
        assert len(path) > 16
        assert _bound(f["lower_bounds"], FILE_PATH_ID) == path.encode()
        assert _bound(f["upper_bounds"], FILE_PATH_ID) == path.encode()
        assert _bound(f["lower_bounds"], POS_ID) == struct.pack("<q", positions[0])
        assert _bound(f["upper_bounds"], POS_ID) == struct.pack("<q", positions[-1])
    second = _current(location)["summary"]
    assert second["operation"] == "delete"
    assert second["added-position-delete-files"] == str(len(data))
    assert second["removed-position-delete-files"] == str(len(data))
    assert second["removed-position-deletes"] == "16"
    assert second["added-position-deletes"] == second["total-position-deletes"] == "32"
    assert second["total-delete-files"] == str(len(data))

    expected_rows = sorted(
        (i, "a" if i % 2 == 0 else "b", str(i)) for i in range(80) if i % 5 not in (0, 1)
    )
    assert _rows(spark, name) == expected_rows
    assert _pyiceberg_rows(location) == expected_rows
    assert _inspect_rows(location) == expected_rows


@pytest.mark.parametrize("version", ["2", "3"])
def test_update_and_merge_write_deletes_and_new_rows(
    spark: SparkSession, namespace: str, warehouse: Path, version: str
) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    _create(spark, name, version)
    expected = {i: ("a" if i % 2 == 0 else "b", str(i)) for i in range(80)}
    snapshots = len(inspect.load_table_metadata(location)["snapshots"])

    spark.sql(f"DELETE FROM {name} WHERE id = 1000")  # matches nothing: no snapshot
    assert len(inspect.load_table_metadata(location)["snapshots"]) == snapshots

    spark.sql(f"UPDATE {name} SET v = 'u' WHERE id < 4")
    for i in range(4):
        expected[i] = (expected[i][0], "u")
    update = _current(location)["summary"]
    assert update["operation"] == "overwrite"
    assert update["added-records"] == "4"
    assert update["added-position-deletes"] == "4"
    assert "deleted-data-files" not in update

    spark.sql(f"UPDATE {name} SET cat = 'c' WHERE id = 7")  # moves the row to partition c
    expected[7] = ("c", "7")
    moved = [f for f in _data_files(location).values() if f["partition"]["cat"] == "c"]
    assert [f["record_count"] for f in moved] == [1]
    source = _one_delete_file_per_data_file(location)
    assert any(7 in _ids_at(path, _deleted_positions(f)) for path, f in source.items())

    spark.sql(
        f"""MERGE INTO {name} t USING (SELECT id, 'm' AS v FROM range(70, 90)) s ON t.id = s.id
        WHEN MATCHED AND t.id = 71 THEN DELETE
        WHEN MATCHED THEN UPDATE SET v = s.v
        WHEN NOT MATCHED THEN INSERT (id, cat, v) VALUES (s.id, 'a', s.v)
        WHEN NOT MATCHED BY SOURCE AND t.id >= 60 THEN DELETE
        WHEN NOT MATCHED BY SOURCE AND t.id = 10 THEN UPDATE SET v = 'nbs'"""
    )
    del expected[71]
    for i in range(70, 90):
        if i != 71:
            expected[i] = (expected[i][0], "m") if i in expected else ("a", "m")
    for i in range(60, 70):
        del expected[i]
    expected[10] = (expected[10][0], "nbs")
    merge = _current(location)["summary"]
    assert merge["operation"] == "overwrite"
    assert int(merge["added-data-files"]) >= 1
    assert int(merge["added-position-deletes"]) > 0

    spark.sql(
        f"MERGE INTO {name} t USING (SELECT 2L AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE"
    )
    del expected[2]
    assert _current(location)["summary"]["operation"] == "delete"

    rows = sorted((i, cat, v) for i, (cat, v) in expected.items())
    assert _rows(spark, name) == rows
    assert _pyiceberg_rows(location) == rows
    deletes = _one_delete_file_per_data_file(location)
    live_rows = sum(f["record_count"] for f in _data_files(location).values()) - sum(
        f["record_count"] for f in deletes.values()
    )
    assert live_rows == len(rows)
    formats = {str(f["file_format"]).upper() for f in deletes.values()}
    assert formats == ({"PUFFIN"} if version == "3" else {"PARQUET"})


def _ids_at(data_path: str, positions: set[int]) -> set[int]:
    ids = pq.read_table(local_path(data_path), columns=["id"]).column(0).to_pylist()
    return {ids[p] for p in positions}


def test_deletion_vectors_keep_the_spec_of_their_data_file(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, cat STRING, v STRING) USING floe "
        f"TBLPROPERTIES ({MOR}, 'format-version'='3')"
    )
    spark.sql(f"INSERT INTO {name} SELECT id, 'a', 'x' FROM range(10)")
    spark.sql(f"ALTER TABLE {name} ADD PARTITION FIELD cat")
    spark.sql(f"INSERT INTO {name} SELECT id, IF(id % 2 = 0, 'a', 'b'), 'y' FROM range(10, 20)")

    spark.sql(f"DELETE FROM {name} WHERE id % 3 = 0")

    dvs = _one_delete_file_per_data_file(location)  # checks spec id and partition per vector
    assert {f["spec_id"] for f in dvs.values()} == {0, 1}
    assert {tuple(sorted(f["partition"].items())) for f in dvs.values() if f["spec_id"] == 0} == {
        ()
    }
    remaining = sorted(i for i in range(20) if i % 3 != 0)
    assert [r[0] for r in _rows(spark, name)] == remaining
    assert [r[0] for r in _pyiceberg_rows(location)] == remaining


@pytest.mark.parametrize("version", ["2", "3"])
def test_merges_the_deletes_iceberg_wrote(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path, version: str
) -> None:
    """Iceberg's deletes of a data file are merged: a v3 data file keeps one deletion vector (Floe's
    replaces Iceberg's); on v2 Iceberg's partition-scoped delete file keeps applying as it is."""
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {iceberg}.{namespace}")
    location = _location(warehouse, namespace, "t")
    spark.sql(
        f"CREATE TABLE {iceberg}.{namespace}.t (id BIGINT, cat STRING, v STRING) USING iceberg "
        f"PARTITIONED BY (cat) TBLPROPERTIES ({MOR}, 'format-version'='{version}', "
        "'write.delete.granularity'='partition')"
    )
    for start in (0, 20):  # two data files per partition: a partition-scoped delete stays so
        spark.sql(
            f"INSERT INTO {iceberg}.{namespace}.t "
            "SELECT id, IF(id % 2 = 0, 'a', 'b'), CAST(id AS STRING) "
            f"FROM range({start}, {start + 20})"
        )
    spark.sql(f"DELETE FROM {iceberg}.{namespace}.t WHERE id % 4 = 1")
    iceberg_deletes = {f["file_path"] for f in _delete_files(location)}

    spark.sql(f"DELETE FROM floe.{namespace}.t WHERE id % 3 = 0")

    remaining = [i for i in range(40) if i % 4 != 1 and i % 3 != 0]
    live = _delete_files(location)
    if version == "3":
        dvs = _one_delete_file_per_data_file(location)
        assert not {f["file_path"] for f in dvs.values()} & iceberg_deletes
        for path, dv in dvs.items():
            assert _deleted_positions(dv) == _positions_where(
                path, lambda i: i % 4 == 1 or i % 3 == 0
            )
    else:
        assert {f["file_path"] for f in live} >= iceberg_deletes
        ours = [f for f in live if f["file_path"] not in iceberg_deletes]
        for f in ours:
            # only rows Iceberg's file did not already delete were read, and deleted again
            assert _deleted_positions(f) == _positions_where(
                f["referenced_data_file"], lambda i: i % 3 == 0 and i % 4 != 1
            )
    assert [r[0] for r in _rows(spark, f"floe.{namespace}.t")] == remaining
    iceberg_rows = spark.sql(f"SELECT id FROM {iceberg}.{namespace}.t").collect()
    assert sorted(r[0] for r in iceberg_rows) == remaining
    assert [r[0] for r in _pyiceberg_rows(location)] == remaining


def _files_on_disk(location: str) -> set[str]:
    root = Path(local_path(location)) / "data"
    return {str(p) for p in root.rglob("*") if p.is_file() and not p.name.startswith((".", "_"))}


@pytest.mark.parametrize("isolation", ["serializable", "snapshot"])
def test_concurrent_append_conflicts_only_when_serializable(
    spark: SparkSession, namespace: str, warehouse: Path, tmp_path: Path, isolation: str
) -> None:
    """An UPDATE whose commit finds a concurrent append: under serializable isolation it fails and
    deletes every file it wrote (new data files and delete files); under snapshot it commits."""
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    _create(spark, name, "3", f", 'write.update.isolation-level'='{isolation}'")
    started, go = tmp_path / "started", tmp_path / "go"

    def gate(i: int) -> bool:
        if i == 0:  # holds the UPDATE after its scan until the concurrent append has committed
            started.touch()
            deadline = time.monotonic() + GATE_TIMEOUT_S
            while not go.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        return i % 5 == 0

    spark.udf.register(f"mor_gate_{namespace}", gate, "boolean")
    failure: list[BaseException] = []

    def update() -> None:
        try:
            spark.sql(f"UPDATE {name} SET v = 'u' WHERE mor_gate_{namespace}(id)")
        except Exception as e:  # reported to the test thread
            failure.append(e)

    worker = threading.Thread(target=update)
    worker.start()
    deadline = time.monotonic() + GATE_TIMEOUT_S
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert started.exists(), "the UPDATE never reached its rows"
    spark.sql(f"INSERT INTO {name} VALUES (1000, 'a', 'new')")
    go.touch()
    worker.join(GATE_TIMEOUT_S)
    assert not worker.is_alive()

    base = [(i, "a" if i % 2 == 0 else "b", str(i)) for i in range(80)] + [(1000, "a", "new")]
    if isolation == "serializable":
        assert len(failure) == 1
        assert "Cannot commit to table" in str(failure[0])
        assert "serializable isolation" in str(failure[0])
        assert _rows(spark, name) == sorted(base)
        assert _delete_files(location) == []
    else:
        assert failure == []
        updated = [(i, c, "u" if i % 5 == 0 and i < 80 else v) for i, c, v in base]
        assert _rows(spark, name) == sorted(updated)
        assert len(_one_delete_file_per_data_file(location)) == 4
    assert _files_on_disk(location) <= _referenced_paths(location)


def _referenced_paths(location: str) -> set[str]:
    """The files of every snapshot: none of the failed write's files may be left on disk."""
    metadata = inspect.load_table_metadata(location)
    out: set[str] = set()
    for snapshot in metadata["snapshots"]:
        for f in inspect.table_files(location, snapshot["snapshot-id"]):
            out.add(str(local_path(f["file_path"])))
    return out


@pytest.mark.parametrize("version", ["2", "3"])
def test_concurrent_tasks_read_many_files_with_their_deletes(
    spark: SparkSession, namespace: str, version: str
) -> None:
    """Two tasks at once each open data files and delete files one after another. Every file's
    reader settings must stay its own: a configuration shared between them once made a delete
    file read with a data file's schema (a race, so the scan is repeated over many files)."""
    name = f"floe.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, data STRING, p INT) USING floe "
        f"TBLPROPERTIES ({MOR}, 'format-version'='{version}')"
    )
    rows = 200_000
    spark.range(0, rows, 1, 64).selectExpr(
        "id", "CAST(id AS STRING) AS data", "CAST(id % 3 AS INT) AS p"
    ).writeTo(name).append()
    spark.sql(f"DELETE FROM {name} WHERE id % 10 = 1")
    spark.sql(f"DELETE FROM {name} WHERE id % 10 = 2")
    kept = sum(1 for i in range(rows) if i % 10 not in (1, 2))
    for _ in range(6):
        counts = spark.sql(f"SELECT count(*), count(DISTINCT data), sum(id) FROM {name}").collect()[
            0
        ]
        assert tuple(counts) == (kept, kept, sum(i for i in range(rows) if i % 10 not in (1, 2)))
