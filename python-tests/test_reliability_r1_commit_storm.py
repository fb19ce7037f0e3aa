"""R1, commit storm (docs/reliability.md): racing appends through the format API lose nothing.

R1a: 8 OS processes (a JVM each) x 250 appends; R1b: 16 threads x 50 appends in one JVM; R1c, the
negative control: the same race with a check-then-rename publisher, which the oracle must catch
losing commits. Every race runs against one table on the local file system with the retry settings
below; reliability_commit_storm.check_storm is the oracle. The S3 and
HDFS storms run in test_s3_warehouse.py and test_hdfs_warehouse.py, on those modules' stores.
"""

from __future__ import annotations

import time
from pathlib import Path

from commit_race import RaceResult, create_local_table, run_append_race
from conftest import scaled
from reliability_commit_storm import StormVerdict, assert_no_loss, check_storm, record_storm

#: Iceberg's concurrency-test backoff (10 ms to 1 s) with 50 retries rather than its 20: 8 JVMs
#: on 2 cores can starve one writer for 20 lost races (a failure reported, never a loss), and the
#: storm must not turn a busy CI machine into a flaky failure.
STORM_PROPERTIES = {
    "commit.retry.num-retries": "50",
    "commit.retry.min-wait-ms": "10",
    "commit.retry.max-wait-ms": "1000",
}
TIMEOUT_S = 300


def _storm(
    tmp: Path, *, processes: int, threads: int, appends: int, publisher: str = "safe"
) -> tuple[RaceResult, StormVerdict]:
    warehouse = f"file://{tmp}/warehouse"
    create_local_table(warehouse, "storm", "t", STORM_PROPERTIES)
    race = run_append_race(
        warehouse=warehouse,
        namespace="storm",
        table="t",
        processes=processes,
        threads=threads,
        appends=appends,
        tmp=tmp,
        timeout_s=TIMEOUT_S,
        publisher=publisher,
    )
    metadata = tmp / "warehouse" / "storm" / "t" / "metadata"
    verdict = check_storm(
        race.acks,
        metadata_dir=f"file://{metadata}",
        metadata_names=[p.name for p in metadata.iterdir()],
        read=lambda location: Path(location.removeprefix("file:")).read_bytes(),
    )
    return race, verdict


def test_r1a_eight_processes_lose_no_commit(tmp_path: Path) -> None:
    """8 OS processes x 250 appends: 2,000 acknowledged commits, every one in the final table."""
    started = time.monotonic()
    appends = scaled(250, 100)
    race, verdict = _storm(tmp_path, processes=8, threads=1, appends=appends)
    record_storm("local_processes", race, verdict, started)
    assert_no_loss(race, verdict, writers=8, total=8 * appends)


def test_r1b_sixteen_threads_lose_no_commit(tmp_path: Path) -> None:
    """16 threads x 50 appends in one JVM, each thread with its own table operations."""
    started = time.monotonic()
    race, verdict = _storm(tmp_path, processes=1, threads=16, appends=50)
    record_storm("local_threads", race, verdict, started)
    assert_no_loss(race, verdict, writers=16, total=800)


def test_r1c_oracle_catches_check_then_rename_losses(tmp_path: Path) -> None:
    """The negative control: exists() then an overwriting rename loses commits, and the oracle
    says so (lost files, versions claimed by two writers, versions without the writer's commit)."""
    started = time.monotonic()
    race, verdict = _storm(
        tmp_path, processes=1, threads=8, appends=25, publisher="check-then-rename"
    )
    record_storm("negative_control", race, verdict, started)
    assert race.failures == []
    assert verdict.acked == 200
    assert verdict.lost > 0
    assert verdict.claimed_twice > 0
    assert verdict.foreign_versions > 0
    assert verdict.missing_snapshots == verdict.lost
    assert not verdict.ok
