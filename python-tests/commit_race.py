"""The commit race shared by the warehouse suites (S3, HDFS): writer processes and the checks.

``run_append_race`` starts ``writers`` OS processes (helpers/commit_race_worker.py), each with its
own JVM and file-system client, waits until all have loaded the table, releases them at once and
collects what each acknowledged. ``live_data_files`` reads the current snapshot's manifests with
fastavro, through a ``read`` function of the store's own client (not Floe's Java code).
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

WORKER = Path(__file__).parent / "helpers" / "commit_race_worker.py"
VERSION_FILE = re.compile(r"v(\d+)\.metadata\.json$")
#: Table properties that let every racing append retry until it lands.
RACE_PROPERTIES = (
    "'commit.retry.num-retries'='200', 'commit.retry.min-wait-ms'='5', "
    "'commit.retry.max-wait-ms'='100', 'commit.retry.total-timeout-ms'='600000'"
)


@dataclass(frozen=True)
class RaceResult:
    """Each acknowledged append as (data file path, version it committed), and failure lines."""

    acks: list[tuple[str, int]]
    failures: list[str]


def run_append_race(
    *,
    warehouse: str,
    namespace: str,
    table: str,
    mode: str,
    writers: int,
    appends: int,
    tmp: Path,
    timeout_s: float,
    endpoint: str = "-",
    extra_jars: Iterable[Path] = (),
) -> RaceResult:
    """Race ``writers`` processes of ``appends`` metadata-only appends each on an existing table."""
    go_file = tmp / f"go-{table}-{mode}"
    env = dict(os.environ)
    env["FLOE_S3_JARS"] = os.pathsep.join(str(j) for j in extra_jars)
    env.setdefault("FLOE_JAR", _floe_jar())
    logs = [tmp / f"{table}-{mode}-writer-{w}.log" for w in range(writers)]
    workers = []
    for w in range(writers):
        args = [endpoint, warehouse, namespace, table, str(w), str(appends), str(go_file), mode]
        with logs[w].open("wb") as log:
            workers.append(
                subprocess.Popen(
                    [sys.executable, str(WORKER), *args],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env=env,
                )
            )
    deadline = time.monotonic() + timeout_s
    try:
        while not all("READY" in p.read_text(errors="replace") for p in logs):
            assert all(wk.poll() is None for wk in workers), [p.read_text()[-3000:] for p in logs]
            assert time.monotonic() < deadline, "workers did not start"
            time.sleep(0.2)
        go_file.touch()
        for worker in workers:
            worker.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        for worker in workers:
            if worker.poll() is None:
                os.kill(worker.pid, 9)
                worker.wait()
    acks, failures = [], []
    for p in logs:
        for line in p.read_text(errors="replace").splitlines():
            if line.startswith("ACK "):
                _, path, version = line.split()
                acks.append((path, int(version)))
            elif line.startswith("FAIL "):
                failures.append(line)
    return RaceResult(acks, failures)


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


def _floe_jar() -> str:
    import floe

    return str(floe.jar_path())
