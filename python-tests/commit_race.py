"""The commit race shared by the commit storm (R1) and the warehouse suites (S3, HDFS).

``run_append_race`` starts ``processes`` OS processes, each a JVM running
``io.floe.testing.CommitStormWriter`` (python-tests/jvm) with ``threads`` writers that commit
metadata-only appends of one data file each through Floe's format API (no Spark, no py4j round
trip per commit). It waits until every process has loaded the table, releases them at once and
collects what each writer acknowledged: a writer prints an ACK line only after ``commit()``
returned. ``live_data_files`` reads the current snapshot's manifests with fastavro, through a
``read`` function of the store's own client (not Floe's Java code); reliability_commit_storm.py
checks a race's outcome against the files it left.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

WRITER_CLASS = "io.floe.testing.CommitStormWriter"
TABLE_CLASS = "io.floe.testing.CommitStormTable"
VERSION_FILE = re.compile(r"v(\d+)\.metadata\.json$")
#: Table properties that let every racing append retry until it lands.
RACE_PROPERTIES = (
    "'commit.retry.num-retries'='200', 'commit.retry.min-wait-ms'='5', "
    "'commit.retry.max-wait-ms'='100', 'commit.retry.total-timeout-ms'='600000'"
)
#: One writer JVM: a small heap and one GC thread, as up to 8 of them share 2 cores.
JVM_OPTIONS = ("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")


@dataclass(frozen=True)
class Ack:
    """One acknowledged append: its data file, the version it published, that version's commit id
    (written into the version file) and the snapshot it added."""

    path: str
    version: int
    commit_id: str
    snapshot_id: int


@dataclass(frozen=True)
class RaceResult:
    """What the writers acknowledged, their failure lines, the lost races they retried, the commits
    that gave up (retries exhausted), how many writers finished, and the race's wall time."""

    acks: list[Ack]
    failures: list[str]
    retries: int
    exhausted: int
    writers_done: int
    seconds: float


def java_command(main_class: str, extra_jars: Iterable[Path] = ()) -> list[str]:
    """``java -cp ... main_class``: the test-only classes, Floe's jar, pyspark's jars and
    ``extra_jars``."""
    import pyspark
    from jvm_support import floe_jar, support_classpath

    jars = Path(pyspark.__file__).parent / "jars"
    entries = [str(support_classpath()), str(floe_jar()), f"{jars}/*", *map(str, extra_jars)]
    java_home = os.environ.get("JAVA_HOME")
    java = str(Path(java_home) / "bin" / "java") if java_home else "java"
    return [java, *JVM_OPTIONS, "-cp", os.pathsep.join(entries), main_class]


def create_local_table(
    warehouse: str, namespace: str, table: str, properties: Mapping[str, str]
) -> None:
    """Create ``namespace.table`` (one BIGINT column) under a ``file:`` warehouse, without Spark."""
    settings = [f"{k}={v}" for k, v in properties.items()]
    command = [*java_command(TABLE_CLASS), warehouse, namespace, table, *settings]
    subprocess.run(command, check=True, capture_output=True, timeout=120)


def run_append_race(
    *,
    warehouse: str,
    namespace: str,
    table: str,
    processes: int,
    threads: int = 1,
    appends: int,
    tmp: Path,
    timeout_s: float,
    publisher: str = "safe",
    hadoop_conf: Mapping[str, str] | None = None,
    extra_jars: Iterable[Path] = (),
) -> RaceResult:
    """Race ``processes`` x ``threads`` writers of ``appends`` appends each on an existing table.

    ``publisher`` is ``safe`` (Floe's own publish), ``unsafe-rename`` (an object store's opt-in
    rename) or ``check-then-rename`` (the negative control); ``hadoop_conf`` configures the writers'
    Hadoop client for an ``s3a://`` or ``hdfs://`` warehouse."""
    go_file = tmp / f"go-{table}-{publisher}"
    command = java_command(WRITER_CLASS, extra_jars)
    settings = [f"{k}={v}" for k, v in (hadoop_conf or {}).items()]
    logs = [tmp / f"{table}-{publisher}-writer-{w}.log" for w in range(processes)]
    workers = []
    for w in range(processes):
        args = [warehouse, namespace, table, f"w{w}", str(threads), str(appends), str(go_file)]
        with logs[w].open("wb") as log:
            workers.append(
                subprocess.Popen(
                    [*command, *args, publisher, *settings], stdout=log, stderr=subprocess.STDOUT
                )
            )
    deadline = time.monotonic() + timeout_s
    try:
        while not all("READY" in p.read_text(errors="replace") for p in logs):
            assert all(wk.poll() is None for wk in workers), [p.read_text()[-3000:] for p in logs]
            assert time.monotonic() < deadline, "writers did not start"
            time.sleep(0.05)
        started = time.monotonic()
        go_file.touch()
        for worker in workers:
            worker.wait(timeout=max(1.0, deadline - time.monotonic()))
        seconds = time.monotonic() - started
    finally:
        for worker in workers:
            if worker.poll() is None:
                os.kill(worker.pid, 9)
                worker.wait()
    return _parse(logs, seconds)


def _parse(logs: list[Path], seconds: float) -> RaceResult:
    acks, failures = [], []
    retries = exhausted = done = 0
    for p in logs:
        for line in p.read_text(errors="replace").splitlines():
            if line.startswith("ACK "):
                _, path, version, commit_id, snapshot_id = line.split()
                acks.append(Ack(path, int(version), commit_id, int(snapshot_id)))
            elif line.startswith("FAIL "):
                failures.append(line)
            elif line.startswith("DONE "):
                _, _, lost_races, gave_up = line.split()
                retries += int(lost_races)
                exhausted += int(gave_up)
                done += 1
    return RaceResult(acks, failures, retries, exhausted, done, seconds)


def version_numbers(names: Iterable[str]) -> list[int]:
    """The sorted N of every ``v<N>.metadata.json`` among file names or paths."""
    return sorted(int(m.group(1)) for n in names if (m := VERSION_FILE.search(n)))


def live_data_files(read: Callable[[str], bytes], metadata: dict[str, Any]) -> list[str]:
    """Paths of the data files live in the current snapshot's manifests (read with fastavro);
    ``read`` returns the bytes of a file given its location as the metadata writes it."""
    import fastavro

    current = metadata.get("current-snapshot-id")
    snapshot = next(s for s in metadata["snapshots"] if s["snapshot-id"] == current)
    paths = []
    for record in fastavro.reader(io.BytesIO(read(snapshot["manifest-list"]))):
        manifest = cast("dict[str, Any]", record)
        for item in fastavro.reader(io.BytesIO(read(manifest["manifest_path"]))):
            entry = cast("dict[str, Any]", item)
            if entry["status"] != 2 and entry["data_file"].get("content", 0) == 0:
                paths.append(entry["data_file"]["file_path"])
    return paths
