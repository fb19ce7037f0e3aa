"""R5, maintenance safety (goal G7): expire_snapshots, remove_orphan_files, rewrite_data_files,
rewrite_manifests and DROP TABLE ... PURGE, run through Spark SQL as users run them, never delete
a file that a retained snapshot, branch, tag, statistics entry or index list still reaches, nor
anything outside the table's folder.

The oracle is ``floe.inspect.reachable_files``, a walk of the metadata in Python (not the Java
code under test). Outside the table a tripwire (the hash of every file below a sibling table's
folder and a folder outside the warehouse) must not change. docs/reliability.md, section R5.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from class_data_sharing import worker_env
from jvm_tables import table_ops
from reliability_figures import record
from row_level_tables import location

import floe.inspect as inspect
from floe.inspect._paths import local_path
from floe.inspect.reachable import Reachability, normalized

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

MOR = (
    "'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read', "
    "'write.merge.mode'='merge-on-read'"
)
TEN_DAYS_AGO = time.time() - 10 * 24 * 3600
FUTURE = "TIMESTAMP '2999-01-01 00:00:00'"
#: Kinds of files that only metadata bookkeeping (not a snapshot) decides to keep or delete.
BOOKKEEPING = {"metadata", "metadata-log", "version-hint", "index-list", "index-segment"}
WORKER = Path(__file__).parent / "helpers" / "append_worker.py"

FIGURES: dict[str, int | float] = {}


def count(**add: int | float) -> None:
    """Add to the tier's figures and record the totals so far."""
    for key, value in add.items():
        FIGURES[key] = FIGURES.get(key, 0) + value
    record("R5", **FIGURES)


# --- the oracle and the tripwire ---------------------------------------------------------------


def walk(table_location: str) -> Reachability:
    found = inspect.reachable_files(table_location)
    assert found.unreadable == {}, found.unreadable
    count(files_walked=len(found.files))
    return found


def snapshot_files(found: Reachability) -> set[Path]:
    return {p for p, kind in found.files.items() if kind not in BOOKKEEPING}


def check_kept(before: Reachability, table_location: str) -> Reachability:
    """Every file the metadata reaches exists, and every file a snapshot still retained reached
    before still exists. Returns the walk after."""
    after = walk(table_location)
    missing = after.missing()
    count(reachable_deleted=len(missing), scenarios=1)
    assert missing == [], f"maintenance deleted reachable files: {missing}"
    return after


def tripwire(*folders: Path) -> dict[str, str]:
    """The hash of every file (and link) below ``folders``, by path."""
    found: dict[str, str] = {}
    for folder in folders:
        for dirpath, dirnames, filenames in os.walk(folder):
            for name in [*filenames, *(d for d in dirnames if Path(dirpath, d).is_symlink())]:
                path = Path(dirpath, name)
                data = str(path.readlink()).encode() if path.is_symlink() else path.read_bytes()
                found[str(path)] = hashlib.sha256(data).hexdigest()
    return found


def check_tripwire(before: dict[str, str], *folders: Path) -> None:
    after = tripwire(*folders)
    changed = sorted(
        set(before) ^ set(after) | {p for p in before if after.get(p, before[p]) != before[p]}
    )
    count(outside_deleted=len(set(before) - set(after)))
    assert changed == [], f"maintenance changed files outside the table: {changed}"


def age(folder: Path, seconds_ago: float = time.time() - TEN_DAYS_AGO) -> None:
    at = time.time() - seconds_ago
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            os.utime(path, (at, at))


def plant(folder: Path, relative: str, seconds_ago: float = time.time() - TEN_DAYS_AGO) -> Path:
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"planted: no metadata references this file")
    os.utime(path, (time.time() - seconds_ago,) * 2)
    return path


def call(spark: SparkSession, procedure: str, args: str) -> list[Any]:
    return spark.sql(f"CALL floe.system.{procedure}({args})").collect()


def rows(spark: SparkSession, query: str) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in spark.sql(query).collect()), key=repr)


def snapshot_ids(table_location: str) -> list[int]:
    snaps = inspect.load_table_metadata(table_location)["snapshots"]
    return [int(s["snapshot-id"]) for s in sorted(snaps, key=lambda s: s["sequence-number"])]


def set_refs(
    spark: SparkSession, warehouse: Path, ns: str, table: str, **refs: tuple[str, int]
) -> None:
    """Creates branches and tags through the format API (Floe has no SQL for them)."""
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    ops = table_ops(spark, warehouse, ns, table)
    base = ops.refresh()
    builder = jvm.io.floe.format.metadata.TableMetadata.buildFrom(base)
    ref = jvm.io.floe.format.metadata.SnapshotRef
    for name, (kind, snapshot_id) in refs.items():
        builder = builder.setRef(
            name, ref.branch(snapshot_id) if kind == "branch" else ref.tag(snapshot_id)
        )
    ops.commit(base, builder.build())


def append_foreign_files(
    spark: SparkSession, warehouse: Path, ns: str, table: str, paths: Iterable[str]
) -> None:
    """A metadata-only append of files Floe did not write (a faulty tool, a copied table)."""
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    fmt = jvm.io.floe.format
    ops = table_ops(spark, warehouse, ns, table)
    append = fmt.commit.AppendFiles(ops)
    for path in paths:
        data_file = (
            fmt.manifest.DataFile.builder(ops.current().spec())
            .withPath(path)
            .withFormat("PARQUET")
            .withRecordCount(1)
            .withFileSizeInBytes(local_path(path).stat().st_size)
            .build()
        )
        append = append.appendFile(data_file)
    append.commit()


# --- the fixture: main, a branch, a tag, a staged snapshot, statistics, deletes, an index -------


class Fixture:
    """floe.<ns>.t: six snapshots; main, branch ``audit`` (off main's history), tag ``v1``, a staged
    snapshot no ref reaches (as a write with spark.wap.id leaves one),
    a Puffin statistics file, position deletes (v2) or deletion vectors (v3) and an index."""

    def __init__(self, spark: SparkSession, warehouse: Path, ns: str, version: int) -> None:
        self.spark, self.ns = spark, ns
        self.name = f"floe.{ns}.t"
        self.loc = location(warehouse, ns, "t")
        self.root = local_path(self.loc)
        name = self.name
        spark.sql(
            f"CREATE TABLE {name} (id BIGINT, s STRING, p STRING) PARTITIONED BY (p) "
            f"TBLPROPERTIES ({MOR}, 'format-version'='{version}')"
        )
        spark.sql(f"INSERT INTO {name} VALUES (0, 'a0', 'a'), (1, 'b0', 'b'), (2, 'a1', 'a')")
        spark.sql(f"INSERT INTO {name} VALUES (3, 'b1', 'b'), (4, 'a2', 'a'), (5, 'b2', 'b')")
        spark.sql(f"DELETE FROM {name} WHERE id IN (0, 3)")
        spark.sql(f"ANALYZE TABLE {name} COMPUTE STATISTICS FOR ALL COLUMNS")
        spark.sql(f"CREATE INDEX by_s ON {name} (s)")
        spark.sql(f"UPDATE {name} SET s = 'u' WHERE id = 4")
        s1, s2, s3, s4 = snapshot_ids(self.loc)
        self.branch_rows = rows(spark, f"SELECT * FROM {name}")
        call(spark, "rollback_to_snapshot", f"'{ns}.t', {s3}")
        spark.sql(f"INSERT OVERWRITE {name} SELECT * FROM {name} WHERE p = 'b'")  # main leaves s4
        spark.sql(f"INSERT INTO {name} VALUES (6, 'staged', 'c')")
        s5, s6 = snapshot_ids(self.loc)[4:]
        call(spark, "rollback_to_snapshot", f"'{ns}.t', {s5}")  # s6: staged, no ref reaches it
        set_refs(spark, warehouse, ns, "t", audit=("branch", s4), v1=("tag", s1))
        self.ids = {"s1": s1, "s2": s2, "s3": s3, "s4": s4, "s5": s5, "s6": s6}
        self.kinds = set(walk(self.loc).files.values())
        deletes = "position-deletes" if version == 2 else "deletion-vector"
        assert {deletes, "statistics", "index-list", "index-segment"} <= self.kinds, self.kinds

    def ref_rows(self) -> dict[str, list[tuple[Any, ...]]]:
        """The rows of main, the branch, the tag and the staged snapshot (while it exists)."""
        found = {"main": rows(self.spark, f"SELECT * FROM {self.name}")}
        versions = ["'audit'", "'v1'"]
        if self.ids["s6"] in snapshot_ids(self.loc):
            versions.append(str(self.ids["s6"]))
        for version in versions:
            found[version] = rows(self.spark, f"SELECT * FROM {self.name} VERSION AS OF {version}")
        return found


@pytest.fixture
def outside(warehouse: Path, tmp_path: Path, namespace: str, spark: SparkSession) -> Path:
    """A folder outside the warehouse and a sibling table t2: files the tripwire hashes."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "precious.parquet").write_bytes(b"someone else's data")
    os.utime(folder / "precious.parquet", (TEN_DAYS_AGO, TEN_DAYS_AGO))
    spark.sql(f"CREATE TABLE floe.{namespace}.t2 (id BIGINT, s STRING, p STRING)")
    spark.sql(f"INSERT INTO floe.{namespace}.t2 VALUES (100, 'x', 'y')")
    age(local_path(location(warehouse, namespace, "t2")))
    return folder


def sibling(warehouse: Path, namespace: str) -> Path:
    return local_path(location(warehouse, namespace, "t2"))


# --- expire_snapshots ---------------------------------------------------------------------------


@pytest.mark.parametrize("version", [2, 3])
def test_expire_keeps_every_ref_and_deletes_only_what_expired_snapshots_alone_reached(
    spark: SparkSession, warehouse: Path, namespace: str, outside: Path, version: int
) -> None:
    started = time.monotonic()
    fx = Fixture(spark, warehouse, namespace, version)
    wire = tripwire(outside, sibling(warehouse, namespace))
    before_rows = fx.ref_rows()
    before = walk(fx.loc)

    # an explicit id in the middle of history: the staged snapshot (young) stays
    call(
        spark,
        "expire_snapshots",
        f"table => '{namespace}.t', snapshot_ids => array({fx.ids['s2']})",
    )
    middle = check_kept(before, fx.loc)
    assert sorted(middle.snapshots) == sorted(i for k, i in fx.ids.items() if k != "s2")
    assert fx.ref_rows() == before_rows

    # everything but the refs' heads: s2, s3 and the staged s6 go
    call(
        spark,
        "expire_snapshots",
        f"table => '{namespace}.t', older_than => {FUTURE}, retain_last => 1",
    )
    after = check_kept(middle, fx.loc)
    assert sorted(after.snapshots) == sorted([fx.ids["s1"], fx.ids["s4"], fx.ids["s5"]])
    assert after.refs == before.refs
    expected_rows = {k: v for k, v in before_rows.items() if k != str(fx.ids["s6"])}
    assert fx.ref_rows() == expected_rows
    # completeness: what only expired snapshots reached is gone (statistics of s3 included)
    expired_only = snapshot_files(before) - snapshot_files(after)
    assert expired_only, "the fixture must leave files that only expired snapshots reach"
    left = sorted(p for p in expired_only if p.exists())
    assert left == [], f"expire left files that no retained snapshot reaches: {left}"
    check_tripwire(wire, outside, sibling(warehouse, namespace))
    count(expired_files_deleted=len(expired_only), seconds=round(time.monotonic() - started, 1))
    # the negative control: the oracle sees a reachable file that is gone
    victim = next(
        p for p, kind in after.files.items() if kind in ("position-deletes", "deletion-vector")
    )
    victim.rename(victim.with_suffix(".moved"))
    try:
        assert inspect.reachable_files(fx.loc).missing() == [victim]
    finally:
        victim.with_suffix(".moved").rename(victim)


# --- remove_orphan_files with an in-flight writer, rewrite_data_files, rewrite_manifests ---------


def test_orphan_removal_and_rewrites_keep_every_reachable_and_in_flight_file(
    spark: SparkSession, warehouse: Path, namespace: str, outside: Path
) -> None:
    started = time.monotonic()
    fx = Fixture(spark, warehouse, namespace, 3)
    for k in (7, 8):  # small files on main for the rewrite to compact
        spark.sql(f"INSERT INTO {fx.name} VALUES ({k}, 'b{k}', 'b')")
    before_rows = fx.ref_rows()
    before = walk(fx.loc)
    age(fx.root)
    orphans = {
        plant(fx.root, "data/p=a/orphan-0.parquet"),
        plant(fx.root, "data/orphan-1.parquet"),
        plant(fx.root, "metadata/snap-0-0-orphan.avro"),
        plant(fx.root, "metadata/orphan-stats.puffin"),
        plant(fx.root, "stray.txt"),
    }
    # another engine's writer: wrote an hour ago, has not committed, leaves no marker
    other_writer = plant(fx.root, "data/p=b/00000-other-engine.parquet", seconds_ago=3600)
    wire = tripwire(outside, sibling(warehouse, namespace))
    table = f"table => '{namespace}.t'"

    with pytest.raises(Exception, match="less than 24 hours ago"):
        call(spark, "remove_orphan_files", f"{table}, older_than => current_timestamp()")
    assert all(p.exists() for p in orphans), "a refused run deletes nothing"

    # Floe's own writer in flight: rewrite_data_files paused after writing, before committing
    gate = spark._jvm.io.floe.spark.util.CommitGate  # type: ignore[union-attr]
    held = f"floe.{namespace}.t"
    gate.hold(held)
    paused_at = time.time() - 1
    outcome: list[Any] = []

    def rewrite() -> None:
        try:
            outcome.extend(
                call(
                    spark, "rewrite_data_files", f"{table}, options => map('min-input-files', '1')"
                )
            )
        except Exception as e:
            outcome.append(e)

    thread = threading.Thread(target=rewrite, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 120
        while not gate.reached(held):
            assert thread.is_alive(), f"the rewrite finished before its commit: {outcome}"
            assert time.monotonic() < deadline, "the rewrite never reached its commit"
            time.sleep(0.05)
        written = {
            p for p in (fx.root / "data").rglob("*.parquet") if p.stat().st_mtime > paused_at
        }
        assert written, "the paused rewrite has written its files"
        removed = {Path(r.orphan_file_location) for r in call(spark, "remove_orphan_files", table)}
        removed = {local_path(str(p)) for p in removed}
    finally:
        gate.release(held)
        thread.join(180)
    assert not thread.is_alive()
    assert not isinstance(outcome[0], Exception), outcome
    count(
        orphans_planted=len(orphans),
        orphans_removed=len(removed & orphans),
        in_flight_files=len(written) + 1,
    )
    assert removed == orphans
    assert not any(p.exists() for p in orphans)
    assert all(p.exists() for p in written), "the in-flight rewrite lost its files"
    assert other_writer.exists(), "a file younger than older_than was deleted"
    rewritten = check_kept(before, fx.loc)
    assert {normalized(str(p)) for p in written} <= set(rewritten.files), (
        "the rewrite committed its files"
    )
    assert fx.ref_rows() == before_rows

    call(spark, "rewrite_manifests", table)
    after = check_kept(rewritten, fx.loc)
    assert fx.ref_rows() == before_rows
    age(fx.root)
    other_writer.unlink()
    # files the rewrites replaced stay: older snapshots and the refs still reach them
    assert call(spark, "remove_orphan_files", table) == []
    check_kept(after, fx.loc)
    assert fx.ref_rows() == before_rows
    check_tripwire(wire, outside, sibling(warehouse, namespace))
    count(seconds=round(time.monotonic() - started, 1))


# --- poisoned metadata: files outside the table, path spellings, symbolic links ----------------


@pytest.mark.parametrize("poison", ["outside", "link"])
def test_poisoned_metadata_deletes_nothing_outside_the_table(
    spark: SparkSession, warehouse: Path, namespace: str, outside: Path, poison: str
) -> None:
    """The table's metadata names a sibling table's data file, a file outside the warehouse and a
    file behind a symbolic link out of the table's folder; expire refuses, orphan removal and
    DROP TABLE ... PURGE delete nothing outside."""
    started = time.monotonic()
    name, loc = f"floe.{namespace}.t", location(warehouse, namespace, "t")
    root = local_path(loc)
    spark.sql(f"CREATE TABLE {name} (id BIGINT, s STRING, p STRING)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 'x')")
    (root / "data" / "escape").symlink_to(outside, target_is_directory=True)
    foreign = [
        next(str(p) for p in (sibling(warehouse, namespace) / "data").rglob("*.parquet")),
        str(outside / "precious.parquet"),
        str(root / "data" / "escape" / "precious.parquet"),
    ]
    if poison == "link":  # inside the table's folder by name, outside it through the link
        foreign = foreign[2:]
    append_foreign_files(spark, warehouse, namespace, "t", foreign)
    spark.sql(f"INSERT OVERWRITE {name} VALUES (2, 'b', 'x')")  # only expired snapshots reach them
    before = walk(loc)
    assert {normalized(p) for p in foreign} <= set(before.files)
    wire = tripwire(outside, sibling(warehouse, namespace))
    t2_rows = rows(spark, f"SELECT * FROM floe.{namespace}.t2")
    age(root)
    table = f"table => '{namespace}.t'"

    with pytest.raises(Exception, match="Refusing") as refused:
        call(spark, "expire_snapshots", f"{table}, older_than => {FUTURE}, retain_last => 1")
    assert "not inside the table location" in str(refused.value) or "symbolic link" in str(
        refused.value
    )
    check_kept(before, loc)
    check_tripwire(wire, outside, sibling(warehouse, namespace))

    try:
        call(spark, "remove_orphan_files", table)
    except Exception as e:  # refusing, because of the link out of the table, is fine too
        assert "symbolic link" in str(e), e
    check_kept(before, loc)
    check_tripwire(wire, outside, sibling(warehouse, namespace))

    spark.sql(f"DROP TABLE {name} PURGE")
    count(scenarios=1)
    check_tripwire(wire, outside, sibling(warehouse, namespace))
    assert rows(spark, f"SELECT * FROM floe.{namespace}.t2") == t2_rows
    count(seconds=round(time.monotonic() - started, 1))


def test_path_spellings_in_metadata_name_the_same_files(
    spark: SparkSession, warehouse: Path, namespace: str, outside: Path
) -> None:
    """``file:/x``, ``file:///x`` and repeated slashes in the metadata name the table's own files:
    orphan removal and expire keep what they reach (or refuse), and delete nothing outside."""
    started = time.monotonic()
    name, loc = f"floe.{namespace}.t", location(warehouse, namespace, "t")
    root = local_path(loc)
    spark.sql(f"CREATE TABLE {name} (id BIGINT)")
    for k in range(3):
        spark.sql(f"INSERT INTO {name} VALUES ({k})")
    spark.sql(f"ANALYZE TABLE {name} COMPUTE STATISTICS FOR ALL COLUMNS")
    current = inspect.metadata_file(loc)
    metadata = json.loads(current.read_text())
    spellings: list[Callable[[str], str]] = [
        lambda p: f"file:{p}",
        lambda p: f"file://{p}",
        lambda p: "file://" + p.replace("/", "//"),
    ]
    for snap, spell in zip(metadata["snapshots"], spellings, strict=True):
        snap["manifest-list"] = spell(str(local_path(snap["manifest-list"])))
    for stats in metadata.get("statistics", []):
        stats["statistics-path"] = spellings[2](str(local_path(stats["statistics-path"])))
    log = metadata.setdefault("metadata-log", [])
    log.append(
        {"timestamp-ms": metadata["last-updated-ms"], "metadata-file": spellings[0](str(current))}
    )
    version = int(current.name.split(".")[0][1:]) + 1
    (current.parent / f"v{version}.metadata.json").write_text(json.dumps(metadata))
    (current.parent / "version-hint.text").write_text(str(version))
    expected = rows(spark, f"SELECT * FROM {name}")
    before = walk(loc)
    orphan = plant(root, "data/orphan.parquet")
    age(root)
    wire = tripwire(outside, sibling(warehouse, namespace))
    table = f"table => '{namespace}.t'"
    try:
        removed = {
            local_path(r.orphan_file_location) for r in call(spark, "remove_orphan_files", table)
        }
    except Exception as e:  # a prefix mismatch refuses, deleting nothing
        assert "Nothing was deleted" in str(e), e
    else:
        assert removed == {orphan}
        count(orphans_removed=1)
    check_kept(before, loc)
    call(spark, "expire_snapshots", f"{table}, older_than => {FUTURE}, retain_last => 1")
    check_kept(before, loc)
    assert rows(spark, f"SELECT * FROM {name}") == expected
    check_tripwire(wire, outside, sibling(warehouse, namespace))
    count(orphans_planted=1, seconds=round(time.monotonic() - started, 1))


# --- expire racing commits from another process ------------------------------------------------

RACE_APPENDS = 12


def current_snapshot_missing(table_location: str) -> list[str]:
    """Files of the current snapshot that do not exist, when it is still current after the check
    (a snapshot replaced and expired meanwhile is not the current one any more)."""
    snapshot = inspect.find_snapshot(inspect.load_table_metadata(table_location))
    if snapshot is None:
        return []
    try:
        paths = [snapshot["manifest-list"]]
        paths += [m["manifest_path"] for m in inspect.read_manifest_list(snapshot["manifest-list"])]
        paths += [
            f["file_path"] for f in inspect.table_files(table_location, snapshot["snapshot-id"])
        ]
        missing = [p for p in paths if not local_path(p).exists()]
    except Exception as e:  # a file vanished while reading it
        missing = [str(e)]
    now = inspect.find_snapshot(inspect.load_table_metadata(table_location))
    return missing if now is not None and now["snapshot-id"] == snapshot["snapshot-id"] else []


def test_expire_racing_appends_from_another_process(
    spark: SparkSession, warehouse: Path, namespace: str, tmp_path: Path
) -> None:
    started = time.monotonic()
    table, loc = f"floe.{namespace}.race", location(warehouse, namespace, "race")
    spark.sql(
        f"CREATE TABLE {table} (value BIGINT, writer INT) TBLPROPERTIES ("
        "'commit.retry.num-retries'='20', 'commit.retry.min-wait-ms'='10', "
        "'commit.retry.max-wait-ms'='1000')"
    )
    spark.sql(f"INSERT INTO {table} VALUES (0, 0)")
    go = tmp_path / "go"
    worker = subprocess.Popen(
        [sys.executable, str(WORKER), str(warehouse), table, "1", str(RACE_APPENDS), str(go)],
        stdout=subprocess.PIPE,
        stderr=(tmp_path / "worker.log").open("w"),
        text=True,
        env=worker_env(),
    )
    violations: list[str] = []
    expires = 0
    try:
        assert worker.stdout is not None
        line = "-"
        while line and line.strip() != "READY":
            line = worker.stdout.readline()
        assert line.strip() == "READY", (tmp_path / "worker.log").read_text()[-2000:]
        go.touch()
        while worker.poll() is None:
            call(
                spark,
                "expire_snapshots",
                f"table => '{namespace}.race', older_than => {FUTURE}, retain_last => 1",
            )
            expires += 1
            violations += current_snapshot_missing(loc)
        out, _ = worker.communicate(timeout=120)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    acks = [line for line in out.splitlines() if line.startswith("ACK ")]
    fails = [line for line in out.splitlines() if line.startswith("FAIL ")]
    count(
        race_commits=len(acks),
        race_expires=expires,
        race_file_not_found=len(violations) + len(fails),
    )
    assert fails == [] and violations == []
    assert len(acks) == RACE_APPENDS and expires >= 2
    assert walk(loc).missing() == []
    values = sorted(r[0] for r in spark.sql(f"SELECT value FROM {table}").collect())
    assert values == [0, *sorted(1000 + i for i in range(RACE_APPENDS))]
    count(scenarios=1, seconds=round(time.monotonic() - started, 1))
