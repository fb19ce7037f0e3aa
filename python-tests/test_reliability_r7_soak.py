"""R7, the soak (goal G9): 4 processes mix appends, MERGE/UPDATE/DELETE, compaction, expiry, orphan
removal, ANALYZE and invariant-checking reads on one table for 5 minutes (FLOE_SOAK_SECONDS).

Runs only with ``pytest --soak`` (not in CI). Passes when no process reported a violation (an
untyped error, a failed read or a broken invariant; see helpers/soak_worker.py); when, in every
process, the heap after a full GC grew by less than 10 % and the open file descriptors moved by at
most 5 % (the means of the samples of minutes 2 to 3 against those of the last minute); and when
the table ends with at most previous-versions-max + 1 metadata files.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import CATALOG
from pyspark.sql import SparkSession
from reliability_figures import record

WORKER = Path(__file__).parent / "helpers" / "soak_worker.py"
ROLES = ("appender", "mutator", "maintainer", "checker")
SECONDS = float(os.environ.get("FLOE_SOAK_SECONDS", "300"))
HEAP_GROWTH_MAX = 0.10
FD_DRIFT_MAX = 0.05
PREVIOUS_VERSIONS_MAX = 10  # soak_worker.METADATA_VERSIONS_MAX


@pytest.mark.soak
def test_soak(spark: SparkSession, warehouse: Path, namespace: str, tmp_path: Path) -> None:
    table = f"{CATALOG}.{namespace}.ledger"
    spark.sql(
        f"""CREATE TABLE {table} (k BIGINT, grp INT, amount BIGINT) USING floe
        PARTITIONED BY (grp) TBLPROPERTIES (
          'write.delete.mode'='merge-on-read', 'write.merge.mode'='merge-on-read',
          'write.update.mode'='copy-on-write',
          'write.metadata.delete-after-commit.enabled'='true',
          'write.metadata.previous-versions-max'='{PREVIOUS_VERSIONS_MAX}',
          'commit.retry.num-retries'='50', 'commit.retry.min-wait-ms'='10',
          'commit.retry.max-wait-ms'='500')"""
    )
    spark.sql(f"INSERT INTO {table} SELECT id, 0, 100 FROM range(100)")
    logs = {role: tmp_path / f"{role}.log" for role in ROLES}
    env = dict(os.environ)
    env["FLOE_SOAK_APPENDER_LOG"] = str(logs["appender"])
    env["FLOE_SOAK_TABLE_FOLDER"] = str(warehouse / namespace / "ledger")
    logs["appender"].touch()
    workers = {}
    for role in ROLES:
        with logs[role].open("ab") as log:
            workers[role] = subprocess.Popen(
                [sys.executable, str(WORKER), role, str(warehouse), table, str(SECONDS)],
                stdout=log, stderr=subprocess.STDOUT, env=env,
            )  # fmt: skip
    deadline = time.monotonic() + SECONDS + 180
    try:
        for role, worker in workers.items():
            status = worker.wait(timeout=max(1.0, deadline - time.monotonic()))
            assert status == 0, f"{role} exited {status}: {logs[role].read_text()[-3000:]}"
    finally:
        for worker in workers.values():
            if worker.poll() is None:
                os.kill(worker.pid, 9)
                worker.wait()

    lines = {role: logs[role].read_text(errors="replace").splitlines() for role in ROLES}
    violations = [line for role in ROLES for line in lines[role] if line.startswith("VIOLATION")]
    conflicts = sum(line.startswith("CONFLICT") for role in ROLES for line in lines[role])
    ops = sum(line.startswith(("OK ", "ACK ")) for role in ROLES for line in lines[role])
    checks = sum(line.startswith("OK check") for line in lines["checker"])
    growth, drift = {}, {}
    for role in ROLES:
        stats = [tuple(map(float, ln.split()[1:])) for ln in lines[role] if ln.startswith("STAT ")]
        heap_from, fds_from = _mean(stats, SECONDS * 0.4, SECONDS * 0.6)
        heap_to, fds_to = _mean(stats, SECONDS * 0.8, SECONDS + 60)
        growth[role] = heap_to / heap_from - 1
        drift[role] = abs(fds_to / fds_from - 1)
    versions = len(list((warehouse / namespace / "ledger" / "metadata").glob("v*.metadata.json")))
    final = spark.sql(
        f"SELECT count(*), count(DISTINCT k), sum(amount) FROM {table}"
    ).collect()[0]
    record(
        "R7",
        seconds=SECONDS,
        processes=len(ROLES),
        operations=ops,
        typed_conflicts=conflicts,
        invariant_checks=checks,
        violations=len(violations),
        max_heap_growth_pct=round(100 * max(growth.values()), 1),
        max_fd_drift_pct=round(100 * max(drift.values()), 1),
        metadata_version_files=versions,
    )
    assert violations == [], violations[:20]
    assert checks >= SECONDS / 4, f"only {checks} invariant checks in {SECONDS} s"
    assert final[0] == final[1] and final[2] == 10_000, final
    assert versions <= PREVIOUS_VERSIONS_MAX + 1, versions
    assert max(growth.values()) < HEAP_GROWTH_MAX, growth
    assert max(drift.values()) <= FD_DRIFT_MAX, drift


def _mean(stats: list[tuple[float, ...]], start: float, end: float) -> tuple[float, float]:
    """Mean heap after GC and mean FD count of the samples taken from ``start`` to ``end`` s (the
    heap after a full GC still varies by tens of MB between samples: Spark's soft references)."""
    window = [s for s in stats if start <= s[0] < end]
    assert window, f"no STAT sample from {start} s to {end} s"
    return sum(s[1] for s in window) / len(window), sum(s[2] for s in window) / len(window)
