"""CALL floe.system.remove_orphan_files: deletes exactly the files below the table location that
no metadata reaches and that are older than ``older_than``; never a reachable file, a hidden
(``_``/``.``) path, a recent (possibly in-flight) file, or anything outside the table location.

The expected orphans come from an independent walker over the metadata (every snapshot's manifest
list, manifests, data/delete/DV files, statistics, the metadata log and version hint), not from
Floe. Files are aged with os.utime so the default ``older_than`` (three days) applies.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from row_level_tables import Gate, interleave, location, pyiceberg_rows

import floe.inspect as inspect
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

MOR = (
    "'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read', "
    "'write.merge.mode'='merge-on-read'"
)
TEN_DAYS_AGO = time.time() - 10 * 24 * 3600


def reachable(table_location: str) -> set[Path]:
    """Every local file the table's metadata reaches (an oracle independent of Floe's Java code)."""
    root = local_path(table_location)
    metadata = inspect.load_table_metadata(table_location)
    found = {inspect.metadata_file(table_location), root / "metadata" / "version-hint.text"}
    found |= {local_path(e["metadata-file"]) for e in metadata.get("metadata-log", [])}
    for stats in (*metadata.get("statistics", []), *metadata.get("partition-statistics", [])):
        found.add(local_path(stats["statistics-path"]))
    for snap in metadata.get("snapshots", []):
        found.add(local_path(snap["manifest-list"]))
        for manifest in inspect.read_manifest_list(snap["manifest-list"]):
            found.add(local_path(manifest["manifest_path"]))
            for entry in inspect.read_manifest(manifest["manifest_path"], manifest):
                found.add(local_path(entry["data_file"]["file_path"]))
    return {p.resolve() for p in found}


def hidden(root: Path, path: Path) -> bool:
    return any(part.startswith(("_", ".")) for part in path.relative_to(root).parts)


def disk_files(table_location: str) -> set[Path]:
    return {p.resolve() for p in local_path(table_location).rglob("*") if p.is_file()}


def age(table_location: str) -> None:
    for path in disk_files(table_location):
        os.utime(path, (TEN_DAYS_AGO, TEN_DAYS_AGO))


def plant(table_location: str, relative: str, mtime: float = TEN_DAYS_AGO) -> Path:
    path = local_path(table_location) / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not referenced by any metadata")
    os.utime(path, (mtime, mtime))
    resolved: Path = path.resolve()
    return resolved


def remove_orphans(
    spark: SparkSession, table: str, args: str = "", catalog: str = "floe"
) -> set[Path]:
    """The orphan files the procedure reports (local, resolved paths)."""
    rest = f", {args}" if args else ""
    rows = spark.sql(
        f"CALL {catalog}.system.remove_orphan_files(table => '{table}'{rest})"
    ).collect()
    return {local_path(r.orphan_file_location).resolve() for r in rows}


def timestamp(seconds_ago: float) -> str:
    at = datetime.now(UTC) - timedelta(seconds=seconds_ago)
    return f"TIMESTAMP '{at.strftime('%Y-%m-%d %H:%M:%S')}'"


def expire_in_metadata_only(table_location: str) -> None:
    """Publish a version that keeps only the current snapshot, deleting no file (as an engine
    whose expire crashed after its commit would leave it)."""
    current = inspect.metadata_file(table_location)
    metadata: dict[str, Any] = json.loads(current.read_text())
    keep = metadata["current-snapshot-id"]
    metadata["snapshots"] = [s for s in metadata["snapshots"] if s["snapshot-id"] == keep]
    log = metadata.get("snapshot-log", [])
    metadata["snapshot-log"] = [e for e in log if e["snapshot-id"] == keep]
    refs = metadata.get("refs", {})
    metadata["refs"] = {k: v for k, v in refs.items() if v["snapshot-id"] == keep}
    metadata["metadata-log"] = [
        *metadata.get("metadata-log", []),
        {"timestamp-ms": metadata["last-updated-ms"], "metadata-file": current.as_uri()},
    ]
    metadata["last-updated-ms"] = int(time.time() * 1000)
    version = int(current.name.split(".")[0][1:]) + 1
    (current.parent / f"v{version}.metadata.json").write_text(json.dumps(metadata))
    (current.parent / "version-hint.text").write_text(str(version))


def one_row_table(spark: SparkSession, warehouse: Path, namespace: str) -> tuple[str, str]:
    """Creates floe.<ns>.t (id BIGINT) holding the row 1; returns its name and location."""
    name = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {name} (id BIGINT)")
    spark.sql(f"INSERT INTO {name} VALUES (1)")
    return name, location(warehouse, namespace, "t")


def rows(spark: SparkSession, table: str) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {table}").collect())


@pytest.mark.parametrize("version", [2, 3])
def test_removes_exactly_the_orphans(
    spark: SparkSession, namespace: str, warehouse: Path, version: int
) -> None:
    name = f"floe.{namespace}.t"
    loc = location(warehouse, namespace, "t")
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, s STRING, p STRING) PARTITIONED BY (p) "
        f"TBLPROPERTIES ({MOR}, 'format-version'='{version}')"
    )
    for k in range(3):
        spark.sql(f"INSERT INTO {name} VALUES ({3 * k}, 'a{k}', 'a'), ({3 * k + 1}, 'b{k}', 'b')")
    spark.sql(f"DELETE FROM {name} WHERE id IN (0, 4)")  # v2: position deletes, v3: DVs
    spark.sql(f"UPDATE {name} SET s = 'updated' WHERE id = 3")
    spark.sql(f"INSERT OVERWRITE {name} SELECT * FROM {name} WHERE p = 'b'")  # drops partition a
    deletes = [f for f in inspect.table_files(loc) if f["content"] == 1]
    before_expire = [
        f
        for s in inspect.load_table_metadata(loc)["snapshots"]
        for f in inspect.table_files(loc, s["snapshot-id"])
        if f["content"] == 1
    ]
    assert before_expire, "the fixture must have delete files (position deletes or DVs)"
    if version == 3:
        assert all(f["file_format"] == "PUFFIN" for f in before_expire)
    expected_rows = rows(spark, name)
    reachable_before = reachable(loc)
    expire_in_metadata_only(loc)
    reachable_after = reachable(loc)
    expired_only = reachable_before - reachable_after
    assert expired_only, "expiring in the metadata must leave files only old snapshots reached"

    planted = {
        plant(loc, "data/orphan-1.parquet"),
        plant(loc, "data/p=b/orphan-2.parquet"),
        plant(loc, "metadata/orphan-m0.avro"),
        plant(loc, "metadata/snap-1-1-orphan.avro"),
        plant(loc, "metadata/v999-stray.metadata.json.bak"),
        plant(loc, "stray.txt"),
    }
    hidden_files = {
        plant(loc, "data/_SUCCESS"),
        plant(loc, "data/_floe-writing-0123"),
        plant(loc, "data/p=b/.part-0.parquet.crc"),
        plant(loc, "_tmp/leftover.parquet"),
        plant(loc, "metadata/.floe-abc.metadata.json.tmp"),
    }
    age(loc)
    root = local_path(loc).resolve()
    expected = {p for p in disk_files(loc) if not hidden(root, p)} - reachable_after
    assert expected == planted | expired_only

    assert remove_orphans(spark, f"{namespace}.t", "dry_run => true") == expected
    assert all(p.exists() for p in expected), "dry_run must delete nothing"

    removed = remove_orphans(spark, f"{namespace}.t")

    assert removed == expected
    assert not any(p.exists() for p in removed)
    assert all(p.exists() for p in reachable_after), "a reachable file was deleted"
    assert all(p.exists() for p in hidden_files), "a hidden file was deleted"
    assert root.is_dir()
    assert rows(spark, name) == expected_rows
    assert inspect.read_table(loc).num_rows == len(expected_rows)
    assert len(deletes) == len([f for f in inspect.table_files(loc) if f["content"] == 1])
    if version == 2:  # pyiceberg 0.12 does not read deletion vectors
        assert pyiceberg_rows(loc, ["id", "s", "p"]) == sorted(expected_rows, key=repr)
    assert remove_orphans(spark, f"{namespace}.t") == set(), "a second run finds nothing"


def test_in_flight_writer_survives_the_default(
    spark: SparkSession, namespace: str, warehouse: Path, tmp_path: Path
) -> None:
    name = f"floe.{namespace}.t"
    loc = location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {name} (id BIGINT, s STRING)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'committed')")
    age(loc)
    data_file = next(iter(p for p in reachable(loc) if p.suffix == ".parquet"))
    # a writer that wrote its file an hour ago and has not committed yet
    in_flight = local_path(loc) / "data" / "00000-in-flight.parquet"
    shutil.copy(data_file, in_flight)
    os.utime(in_flight, (time.time() - 3600, time.time() - 3600))
    old_orphan = plant(loc, "data/old-orphan.parquet")
    gate = Gate(spark, tmp_path, "orphan_gate")
    results: list[set[Path]] = []

    def during_write() -> None:
        results.append(remove_orphans(spark, f"{namespace}.t"))
        day_ago = f"older_than => {timestamp(25 * 3600)}"
        results.append(remove_orphans(spark, f"{namespace}.t", day_ago))

    raised = interleave(
        gate,
        lambda: spark.sql(
            f"INSERT INTO {name} SELECT orphan_gate(id) AS id, 'paused' AS s FROM range(2, 6)"
        ).collect(),
        during_write,
    )
    assert raised is None
    assert results == [{old_orphan.resolve()}, set()]
    assert in_flight.exists(), "a recent (possibly in-flight) file was deleted"
    assert rows(spark, name) == [(1, "committed"), *[(i, "paused") for i in range(2, 6)]]
    # the control: once old enough, the uncommitted file is an orphan like any other
    os.utime(in_flight, (TEN_DAYS_AGO, TEN_DAYS_AGO))
    assert remove_orphans(spark, f"{namespace}.t") == {in_flight.resolve()}


def test_short_interval_needs_the_explicit_flag(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    name, loc = one_row_table(spark, warehouse, namespace)
    age(loc)
    two_hours = plant(loc, "data/two-hours.parquet", time.time() - 7200)
    with pytest.raises(Exception, match="less than 24 hours ago") as refused:
        remove_orphans(spark, f"{namespace}.t", f"older_than => {timestamp(3600)}")
    message = str(refused.value)
    assert "in flight" in message and "allow_short_interval => true" in message
    assert two_hours.exists()
    removed = remove_orphans(
        spark, f"{namespace}.t", f"older_than => {timestamp(3600)}, allow_short_interval => true"
    )
    assert removed == {two_hours}
    assert rows(spark, name) == [(1,)]


def test_location_outside_the_table_is_refused(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    _, loc = one_row_table(spark, warehouse, namespace)
    spark.sql(f"CREATE TABLE floe.{namespace}.t2 (id BIGINT)")
    age(loc)
    in_data = plant(loc, "data/orphan.parquet")
    elsewhere = plant(loc, "other/orphan.parquet")
    sibling = plant(location(warehouse, namespace, "t2"), "data/orphan.parquet")
    for outside in ("/etc", "file:///etc", f"{loc}/../t2", f"{loc}2", f"{loc}/data/../.."):
        with pytest.raises(Exception, match="not inside the table location"):
            remove_orphans(spark, f"{namespace}.t", f"location => '{outside}'")
    assert in_data.exists() and elsewhere.exists() and sibling.exists()
    assert remove_orphans(spark, f"{namespace}.t", f"location => '{loc}/data'") == {in_data}
    assert elsewhere.exists() and sibling.exists()


def test_invalid_arguments_are_clear_errors(spark: SparkSession, namespace: str) -> None:
    spark.sql(f"CREATE TABLE floe.{namespace}.t (id BIGINT)")
    with pytest.raises(Exception, match="prefix_mismatch_mode 'sometimes'"):
        remove_orphans(spark, f"{namespace}.t", "prefix_mismatch_mode => 'sometimes'")
    with pytest.raises(Exception, match="max_concurrent_deletes must be at least 1"):
        remove_orphans(spark, f"{namespace}.t", "max_concurrent_deletes => 0")
    with pytest.raises(Exception, match="does not exist"):
        remove_orphans(spark, f"{namespace}.missing")


def test_prefix_mismatch_is_an_error_by_default(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    """A file the metadata names under another authority is the same path, maybe the same file."""
    _, loc = one_row_table(spark, warehouse, namespace)
    current = inspect.metadata_file(loc)
    root = local_path(loc).resolve()
    stats = plant(loc, "metadata/stats.puffin")
    metadata = json.loads(current.read_text())
    metadata["statistics"] = [
        {
            "snapshot-id": metadata["current-snapshot-id"],
            "statistics-path": f"hdfs://namenode:8020{stats}",
            "file-size-in-bytes": 1,
            "file-footer-size-in-bytes": 1,
            "blob-metadata": [],
        }
    ]
    current.write_text(json.dumps(metadata))  # in place: a test of the metadata, not a commit
    age(loc)
    assert stats.is_relative_to(root)
    with pytest.raises(Exception, match="except for scheme or authority") as refused:
        remove_orphans(spark, f"{namespace}.t")
    assert "hdfs://namenode:8020" in str(refused.value)
    assert stats.exists()
    assert remove_orphans(spark, f"{namespace}.t", "prefix_mismatch_mode => 'IGNORE'") == set()
    assert remove_orphans(spark, f"{namespace}.t", "equal_schemes => map('hdfs', 'file')") == set()
    assert stats.exists()
    assert remove_orphans(spark, f"{namespace}.t", "prefix_mismatch_mode => 'DELETE'") == {stats}


def test_table_written_by_iceberg(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path
) -> None:
    loc = location(warehouse, namespace, "t")
    iceberg_name = f"{iceberg}.{namespace}.t"
    spark.sql(f"CREATE TABLE {iceberg_name} (id BIGINT, p STRING) USING iceberg PARTITIONED BY (p)")
    for k in range(3):
        spark.sql(f"INSERT INTO {iceberg_name} VALUES ({k}, 'a'), ({k + 10}, 'b')")
    spark.sql(f"DELETE FROM {iceberg_name} WHERE id = 1")
    expected_rows = rows(spark, iceberg_name)
    planted = {plant(loc, "data/p=a/orphan.parquet"), plant(loc, "metadata/orphan.avro")}
    age(loc)
    # Iceberg's own procedure agrees on what is orphaned
    iceberg_found = remove_orphans(spark, f"{namespace}.t", "dry_run => true", catalog=iceberg)
    assert iceberg_found == planted
    assert remove_orphans(spark, f"{namespace}.t") == planted
    assert not any(p.exists() for p in planted)
    assert all(p.exists() for p in reachable(loc))
    assert rows(spark, iceberg_name) == expected_rows
    assert rows(spark, f"floe.{namespace}.t") == expected_rows


def test_symbolic_link_out_of_the_table_deletes_nothing_outside(
    spark: SparkSession, namespace: str, warehouse: Path, tmp_path: Path
) -> None:
    name, loc = one_row_table(spark, warehouse, namespace)
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.parquet"
    victim.write_bytes(b"someone else's file")
    os.utime(victim, (TEN_DAYS_AGO, TEN_DAYS_AGO))
    (local_path(loc) / "data" / "link").symlink_to(outside, target_is_directory=True)
    age(loc)
    try:
        removed = remove_orphans(spark, f"{namespace}.t")
    except Exception as e:  # the listing followed the link: the procedure refuses
        assert "symbolic link" in str(e)
    else:  # the listing did not follow the link
        assert not any("victim" in str(p) for p in removed)
    assert victim.exists()
    assert rows(spark, name) == [(1,)]
