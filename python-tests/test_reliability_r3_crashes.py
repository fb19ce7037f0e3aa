"""R3: crashes at the named points of a commit, kill -9 of writer processes, I/O faults.

Goals G4-G5 (docs/reliability.md): after any crash or fault the table loads at the last
acknowledged snapshot or at exactly one landed-unacknowledged one, every file its metadata names
exists and parses, no acknowledged commit is missing, the next commit succeeds, nothing of a commit
whose outcome is unknown is deleted, and orphan removal, once past its grace period, deletes every
leftover and no referenced file. The runs use Floe's format API in plain JVMs (no Spark); the
assertions are made by io.floe.testing.TableInvariants through a clean FileIO.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from pathlib import Path

import reliability_figures
from conftest import scaled
from reliability_crashes import java_command, parse_runs, parse_summary, run_java

POINTS = (
    "AFTER_DATA_FILE", "AFTER_DV_PUFFIN", "AFTER_INDEX_WRITE", "AFTER_MANIFEST",
    "AFTER_MANIFEST_LIST", "AFTER_METADATA_TEMP", "MID_PUBLISH", "AFTER_PUBLISH_BEFORE_ACK",
    "AFTER_HINT_TEMP", "AFTER_OLD_HINT_DELETE", "AFTER_HINT_REPLACE",
    "DURING_OLD_METADATA_CLEANUP", "DURING_STATS_WRITE", "DURING_EXPIRE_DELETES",
    "DURING_ORPHAN_DELETES", "DURING_ABORT_CLEANUP",
)  # fmt: skip
OPS = ("APPEND", "ROW_DELTA", "OVERWRITE")
#: Mode A repetitions: "after each manifest" and the deletion loops crash at a later event.
REPETITIONS = 3
KILL_ROUNDS = scaled(20, 8)
KILL_WRITERS = 4
FAULT_ATTEMPTS = 500


def test_every_crash_point_in_process(tmp_path: Path) -> None:
    """Mode A: each point x operation x repetition throws SimulatedCrash in one JVM."""
    started = time.monotonic()
    out = run_java("CrashMatrix", "in-process", str(tmp_path), str(REPETITIONS), timeout_s=300)
    runs = parse_runs(out)
    points = {point for point, _, _ in runs.runs}
    assert points == set(POINTS), f"crash points not run: {set(POINTS) - points}"
    # the deletion-vector point is on the row delta's path only
    assert len(runs.runs) == (len(POINTS) * len(OPS) - 2) * REPETITIONS
    assert runs.violations == []
    # a crash after publishing leaves the landed, unacknowledged snapshot current
    assert runs.landed_unacked >= 5 * len(OPS) * REPETITIONS
    reliability_figures.record(
        "R3",
        crash_points=len(POINTS),
        crash_point_op_pairs=len({(point, op) for point, op, _ in runs.runs}),
        mode_a_runs=len(runs.runs),
        mode_a_landed_unacked=runs.landed_unacked,
        mode_a_orphans_cleaned=runs.orphans,
        mode_a_violations=len(runs.violations),
        mode_a_seconds=round(time.monotonic() - started, 1),
    )


def test_every_crash_point_as_process_death(tmp_path: Path) -> None:
    """Mode B: a child JVM halts (status 137) at each point; its table is checked from its log."""
    started = time.monotonic()
    dirs = []
    for i, point in enumerate(POINTS):
        op = "ROW_DELTA" if point == "AFTER_DV_PUFFIN" else OPS[i % len(OPS)]
        run_dir = tmp_path / f"{point}~{op}~1"
        child = subprocess.run(
            java_command("CrashMatrix", "child", str(run_dir), point, op, "1"),
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert child.returncode == 137, f"{point}/{op} did not halt: {child.stderr[-2000:]}"
        dirs.append(str(run_dir))
    runs = parse_runs(run_java("CrashMatrix", "check", *dirs, timeout_s=120))
    assert len(runs.runs) == len(POINTS)
    assert runs.violations == []
    reliability_figures.record(
        "R3",
        mode_b_runs=len(runs.runs),
        mode_b_landed_unacked=runs.landed_unacked,
        mode_b_orphans_cleaned=runs.orphans,
        mode_b_violations=len(runs.violations),
        mode_b_seconds=round(time.monotonic() - started, 1),
    )


def test_kill_9_of_writers_at_random_moments(tmp_path: Path) -> None:
    """20 rounds x 4 writer processes on one table, each killed by SIGKILL at a random moment."""
    started = time.monotonic()
    table = tmp_path / "kill"
    run_java("KillOracle", "create", str(table), timeout_s=60)
    rng = random.Random(14)
    logs: list[Path] = []
    kills = 0
    for round_number in range(KILL_ROUNDS):
        go = tmp_path / f"go-{round_number}"
        round_logs = [tmp_path / f"round{round_number}-writer{w}.log" for w in range(KILL_WRITERS)]
        writers = []
        for w, log in enumerate(round_logs):
            with log.open("wb") as out:
                command = java_command(
                    "KillRoundWriter", str(table), str(w), str(round_number), str(go)
                )
                writers.append(subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT))
        try:
            deadline = time.monotonic() + 60
            while not all("READY" in log.read_text(errors="replace") for log in round_logs):
                assert all(p.poll() is None for p in writers), [
                    log.read_text()[-2000:] for log in round_logs
                ]
                assert time.monotonic() < deadline, "writers did not load the table"
                time.sleep(0.02)
            go.touch()
            released = time.monotonic()
            for at, w in sorted((rng.uniform(0.1, 1.2), w) for w in range(KILL_WRITERS)):
                time.sleep(max(0.0, released + at - time.monotonic()))
                assert writers[w].poll() is None, (
                    f"writer {w} stopped by itself: {round_logs[w].read_text()[-2000:]}"
                )
                os.kill(writers[w].pid, signal.SIGKILL)
                kills += 1
        finally:
            for p in writers:
                if p.poll() is None:
                    p.kill()
                p.wait()
        logs.extend(round_logs)
    figures, violations = parse_summary(
        run_java("KillOracle", "check", str(table), *map(str, logs), timeout_s=120)
    )
    assert violations == []
    assert kills == KILL_ROUNDS * KILL_WRITERS
    assert figures["acked"] > 0, "the writers must have committed between kills"
    assert figures["landed_unacked"] <= kills
    reliability_figures.record(
        "R3",
        kills=kills,
        kill_acked=figures["acked"],
        kill_landed_unacked=figures["landed_unacked"],
        kill_orphans_cleaned=figures["orphans"],
        kill_violations=len(violations),
        kill_seconds=round(time.monotonic() - started, 1),
    )


def test_io_faults_and_publish_that_landed_but_failed(tmp_path: Path) -> None:
    """500 commits through a FileIO failing writes, probes, deletes, replaces, publishes (p=0.1)."""
    started = time.monotonic()
    figures, violations = parse_summary(
        run_java("FaultCommits", str(tmp_path / "faults"), str(FAULT_ATTEMPTS), "14", timeout_s=300)
    )
    assert violations == []
    assert figures["attempts"] == FAULT_ATTEMPTS
    landed_but_failed = sum(v for k, v in figures.items() if k.startswith("fault.publish-landed-"))
    assert landed_but_failed > 0 and figures.get("fault.write", 0) > 0
    assert figures.get("acked", 0) > 0
    reliability_figures.record(
        "R3",
        fault_commits=FAULT_ATTEMPTS,
        fault_acked=figures.get("acked", 0),
        fault_failed_cleanly=figures.get("failed", 0),
        fault_unknown_landed=figures.get("unknown-landed", 0),
        fault_unknown_not_landed=figures.get("unknown-not-landed", 0),
        faults_injected=sum(v for k, v in figures.items() if k.startswith("fault.")),
        fault_publish_landed_but_error=landed_but_failed,
        fault_orphans_cleaned=figures["orphans"],
        fault_violations=len(violations),
        fault_seconds=round(time.monotonic() - started, 1),
    )
