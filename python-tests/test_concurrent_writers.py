"""The commit protocol end to end: separate Spark applications appending to one table at once,
and the commit.retry.* settings under a forced conflict (docs/architecture.md, 'Commits and
retries').

Every check reads the table's files directly (json, fastavro, os), not through Floe's Java code.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pytest
from class_data_sharing import worker_env
from conftest import scaled
from jvm_tables import (
    InterceptedOps,
    data_file,
    field,
    python_callbacks,
    table_ops,
    write_parquet,
)
from py4j.protocol import Py4JJavaError

from floe import inspect

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

WORKER = Path(__file__).parent / "helpers" / "append_worker.py"
WRITERS = 3
APPENDS_PER_WRITER = scaled(15, 5)
WORKER_TIMEOUT_S = 240
VERSION_FILE = re.compile(r"^v(\d+)\.metadata\.json$")


def _table_dir(warehouse: Path, namespace: str, name: str) -> Path:
    return warehouse / namespace / name


def _versions(metadata_dir: Path) -> dict[int, Path]:
    found = {}
    for path in metadata_dir.iterdir():
        match = VERSION_FILE.match(path.name)
        if match:
            found[int(match.group(1))] = path
    return found


def _snapshot_chain(metadata: dict[str, Any]) -> list[dict[str, Any]]:
    """The current snapshot and its ancestors, newest first."""
    by_id = {s["snapshot-id"]: s for s in metadata["snapshots"]}
    chain = []
    current = metadata.get("current-snapshot-id")
    while current is not None and current != -1:
        snapshot = by_id[current]
        chain.append(snapshot)
        current = snapshot.get("parent-snapshot-id")
    return chain


def _referenced_metadata_files(metadata: dict[str, Any]) -> set[str]:
    """Names of every manifest list and manifest reachable from any snapshot."""
    names = set()
    for snapshot in metadata["snapshots"]:
        names.add(Path(inspect._paths.local_path(snapshot["manifest-list"])).name)
        for manifest in inspect.read_manifest_list(snapshot["manifest-list"]):
            names.add(Path(inspect._paths.local_path(manifest["manifest_path"])).name)
    return names


def _start_worker(
    warehouse: Path, table: str, writer: int, go_file: Path, log: Path
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            str(WORKER),
            str(warehouse),
            table,
            str(writer),
            str(APPENDS_PER_WRITER),
            str(go_file),
        ],
        stdout=subprocess.PIPE,
        stderr=log.open("w"),
        text=True,
        env=worker_env(),
    )


def test_concurrent_spark_applications_lose_no_append(
    spark: SparkSession, warehouse: Path, namespace: str, tmp_path: Path
) -> None:
    name = "appends"
    table = f"floe.{namespace}.{name}"
    # Iceberg's own concurrency-test retry settings (docs/architecture.md, 'Commits and retries').
    spark.sql(
        f"CREATE TABLE {table} (value BIGINT, writer INT) TBLPROPERTIES ("
        "'commit.retry.num-retries'='20', 'commit.retry.min-wait-ms'='10', "
        "'commit.retry.max-wait-ms'='1000')"
    )
    table_dir = _table_dir(warehouse, namespace, name)
    metadata_dir = table_dir / "metadata"
    created_version = max(_versions(metadata_dir))

    go_file = tmp_path / "go"
    workers = [
        _start_worker(warehouse, table, w, go_file, tmp_path / f"worker-{w}.log")
        for w in range(1, WRITERS + 1)
    ]
    outputs: list[str] = []
    try:
        for worker in workers:
            assert worker.stdout is not None
            line = "-"
            while line and line.strip() != "READY":  # "" is the end of the output
                line = worker.stdout.readline()
            assert line.strip() == "READY", f"a worker did not start (exit {worker.poll()})"
        go_file.touch()
        deadline = time.monotonic() + WORKER_TIMEOUT_S
        for worker in workers:
            out, _ = worker.communicate(timeout=max(1.0, deadline - time.monotonic()))
            outputs.append(out)
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    logs = "\n".join(
        (tmp_path / f"worker-{w}.log").read_text()[-2000:] for w in range(1, WRITERS + 1)
    )
    lines = [line for out in outputs for line in out.splitlines()]
    failures = [line for line in lines if line.startswith("FAIL")]
    assert not failures, f"appends failed: {failures}\n{logs}"
    assert [w.returncode for w in workers] == [0] * WRITERS, logs
    acked = [int(line.split()[1]) for line in lines if line.startswith("ACK")]
    appends = WRITERS * APPENDS_PER_WRITER
    assert len(acked) == appends
    assert len(set(acked)) == appends

    # Every acked value is in the table exactly once: through Spark and through the files alone.
    through_spark = [row.value for row in spark.sql(f"SELECT value FROM {table}").collect()]
    through_files = inspect.read_table(str(table_dir)).column("value").to_pylist()
    for values in (through_spark, through_files):
        counts = Counter(values)
        assert sorted(counts) == sorted(acked)
        assert set(counts.values()) == {1}, [v for v, n in counts.items() if n > 1]

    # One snapshot per append, in one linear history with sequence numbers 1..N.
    metadata = inspect.load_table_metadata(str(table_dir))
    assert len(metadata["snapshots"]) == appends + 0
    chain = _snapshot_chain(metadata)
    assert len(chain) == appends
    assert [s["sequence-number"] for s in reversed(chain)] == list(range(1, appends + 1))
    assert {s["summary"]["operation"] for s in chain} == {"append"}
    assert metadata["last-sequence-number"] == appends

    # v1..vN contiguous, one version per commit, each parses and holds one snapshot more.
    versions = _versions(metadata_dir)
    newest = max(versions)
    assert sorted(versions) == list(range(1, newest + 1))
    assert newest == created_version + appends
    for version, path in versions.items():
        parsed = json.loads(path.read_bytes())
        assert isinstance(parsed, dict), path
        assert len(parsed.get("snapshots", [])) == max(0, version - created_version), path
    assert inspect.metadata_file(str(table_dir)) == versions[newest]

    # The last summary's totals match what is in the table.
    summary = chain[0]["summary"]
    files = inspect.table_files(str(table_dir))
    assert int(summary["total-records"]) == len(through_files) == appends
    assert int(summary["total-data-files"]) == len(files)
    assert int(summary["total-files-size"]) == sum(f["file_size_in_bytes"] for f in files)

    # Nothing left behind: no temporary files, no manifest list of a lost attempt, no data file
    # that is not in the table.
    leftovers = [p.name for p in metadata_dir.iterdir() if p.name.startswith(".floe-")]
    assert leftovers == []
    avro = {p.name for p in metadata_dir.iterdir() if p.suffix == ".avro"}
    assert avro == _referenced_metadata_files(metadata)
    on_disk = {p.resolve() for p in (table_dir / "data").rglob("*.parquet")}
    assert on_disk == {inspect._paths.local_path(f["file_path"]).resolve() for f in files}


# --- commit.retry.* under a forced conflict -------------------------------------------------------


def _one_row_file(table_dir: Path, value: int) -> Path:
    schema = pa.schema([field("value", pa.int64(), 1), field("writer", pa.int32(), 2)])
    rows = pa.table({"value": [value], "writer": [0]}, schema=schema)
    return write_parquet(table_dir / "data", rows)


def _race(
    spark: SparkSession, warehouse: Path, namespace: str, name: str
) -> tuple[InterceptedOps, Any, set[str]]:
    """Two appends of one file each from the same base; the winner publishes while the loser is
    between building its snapshot and publishing it. Returns the loser's ops, its producer and
    the names in metadata/ just before the loser's commit started."""
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    table_dir = _table_dir(warehouse, namespace, name)
    loser_ops = table_ops(spark, warehouse, namespace, name)
    winner_ops = table_ops(spark, warehouse, namespace, name)
    base = loser_ops.refresh()
    winner = jvm.io.floe.format.commit.AppendFiles(winner_ops).appendFile(
        data_file(spark, base, _one_row_file(table_dir, 1), 1)
    )
    intercepted = InterceptedOps(loser_ops, lambda: winner.commit())
    loser = jvm.io.floe.format.commit.AppendFiles(intercepted).appendFile(
        data_file(spark, base, _one_row_file(table_dir, 2), 1)
    )
    before = {p.name for p in (table_dir / "metadata").iterdir()}
    return intercepted, loser, before


def test_conflict_without_retries_fails_cleanly(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    name = "no_retries"
    table = f"floe.{namespace}.{name}"
    spark.sql(
        f"CREATE TABLE {table} (value BIGINT, writer INT) "
        "TBLPROPERTIES ('commit.retry.num-retries'='0')"
    )
    table_dir = _table_dir(warehouse, namespace, name)
    metadata_dir = table_dir / "metadata"
    with python_callbacks(spark):
        intercepted, loser, before = _race(spark, warehouse, namespace, name)
        with pytest.raises(Py4JJavaError) as failure:
            loser.commit()
    java_error = failure.value.java_exception
    assert java_error.getClass().getName() == "io.floe.format.commit.CommitFailedException"
    message = str(java_error.getMessage())
    assert f"{namespace}.{name}" in message
    assert "gave up after 1 attempts" in message
    assert intercepted.commit_calls == 1  # no retry

    # Only the winner's commit is in the table, and the loser left no file in metadata/.
    metadata = inspect.load_table_metadata(str(table_dir))
    assert len(metadata["snapshots"]) == 1
    assert [f["record_count"] for f in inspect.table_files(str(table_dir))] == [1]
    assert [r.value for r in spark.sql(f"SELECT value FROM {table}").collect()] == [1]
    after = {p.name for p in metadata_dir.iterdir()}
    new_files = after - before
    winner_files = _referenced_metadata_files(metadata)
    assert {n for n in new_files if n.endswith(".avro")} == winner_files
    assert not [n for n in after if n.startswith(".floe-")]
    assert {n for n in after if n.endswith(".avro")} == winner_files


def test_conflict_is_retried_with_retries(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    name = "with_retries"
    table = f"floe.{namespace}.{name}"
    spark.sql(
        f"CREATE TABLE {table} (value BIGINT, writer INT) TBLPROPERTIES ("
        "'commit.retry.num-retries'='2', 'commit.retry.min-wait-ms'='1')"
    )
    table_dir = _table_dir(warehouse, namespace, name)
    with python_callbacks(spark):
        intercepted, loser, _ = _race(spark, warehouse, namespace, name)
        snapshot = loser.commit()
    assert intercepted.commit_calls == 2  # lost once, then published on a refreshed base

    metadata = inspect.load_table_metadata(str(table_dir))
    chain = _snapshot_chain(metadata)
    assert chain[0]["snapshot-id"] == snapshot.snapshotId()
    assert [s["sequence-number"] for s in chain] == [2, 1]
    assert sorted(r.value for r in spark.sql(f"SELECT value FROM {table}").collect()) == [1, 2]
    assert chain[0]["summary"]["total-records"] == "2"
    # The manifest list of the lost attempt is gone; the retry reused the written manifest.
    avro = {p.name for p in (table_dir / "metadata").iterdir() if p.suffix == ".avro"}
    assert avro == _referenced_metadata_files(metadata)
