"""Spark settings every benchmark shares, so their numbers are comparable."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DRIVER_MEMORY = "8g"
#: Where benchmarks write their reports (ignored by git).
OUT = Path(__file__).resolve().parent / "out"


def spark_conf(workdir: Path, shuffle_partitions: int | None = 4) -> dict[str, str]:
    """Settings for a benchmark session writing under ``workdir``: a large driver heap, no UI or
    progress bars, UTC, and few shuffle partitions (``None`` keeps Spark's default)."""
    conf = {
        "spark.driver.memory": DRIVER_MEMORY,
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.warehouse.dir": str(workdir / "spark-warehouse"),
    }
    if shuffle_partitions is not None:
        conf["spark.sql.shuffle.partitions"] = str(shuffle_partitions)
    return conf


def write_report(
    report: dict[str, Any], name: str, finished: dt.datetime, out: Path | None = None
) -> Path:
    """Writes ``report`` as JSON to ``out``, or to ``bench/out/<name>-<finished time>.json``."""
    path = out or OUT / f"{name}-{finished.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return path


#: Physical scan nodes: Spark's DSv2 scan, and Floe's read on the driver (``FloeLocalReadExec``,
#: for scans under its local-read limits: its second product element is its ``FloeScan``, and it
#: carries the same scan metrics, ``resultDataFiles`` and the others).
SCAN_NODES = ("BatchScanExec", "FloeLocalReadExec")


def scan_nodes(plan: Any, kinds: tuple[str, ...] = SCAN_NODES) -> list[Any]:
    """The nodes of a physical plan (a JVM ``SparkPlan``) whose class is among ``kinds``, looking
    through adaptive execution's wrappers (after a run: the final plan)."""
    found: list[Any] = []

    def walk(node: Any) -> None:
        kind = node.getClass().getSimpleName()
        if kind == "AdaptiveSparkPlanExec":
            walk(node.executedPlan())
            return
        if kind.endswith("QueryStageExec"):
            walk(node.plan())
            return
        if kind in kinds:
            found.append(node)
        children = node.children()
        for i in range(children.size()):
            walk(children.apply(i))

    walk(plan)
    return found


def only_scan_node(plan: Any, kinds: tuple[str, ...] = SCAN_NODES) -> Any:
    """The one scan node of a physical plan whose class is among ``kinds`` (:func:`scan_nodes`);
    exits when there is not exactly one."""
    found = scan_nodes(plan, kinds)
    if len(found) != 1:
        raise SystemExit(f"Expected one {' or '.join(kinds)} in the plan, found {len(found)}")
    return found[0]


def progress(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def run_worker_process(
    script: str, worker: str, argv: list[str], worker_args: list[str]
) -> dict[str, Any]:
    """Runs ``script`` again as ``--worker worker`` in a fresh process; returns the JSON it writes
    to ``--result``, with ``process_seconds`` added (or ``error`` when the worker failed)."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        result_file = Path(handle.name)
    command = [sys.executable, str(Path(script).resolve()), *argv]
    command += ["--worker", worker, *worker_args, "--result", str(result_file)]
    progress(f"starting {worker}")
    started = time.perf_counter()
    done = subprocess.run(command, check=False)
    seconds = time.perf_counter() - started
    try:
        if done.returncode != 0:
            return {"engine": worker, "error": f"worker exited with {done.returncode}"}
        loaded: dict[str, Any] = json.loads(result_file.read_text(encoding="utf-8"))
        loaded["process_seconds"] = seconds
        return loaded
    finally:
        result_file.unlink(missing_ok=True)


def gc_seconds(spark: Any) -> float:
    """Seconds the driver JVM of ``spark`` has spent collecting garbage since it started (every
    collector's ``getCollectionTime``); the difference of two calls is the GC time between them."""
    beans = spark._jvm.java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()
    return sum(max(0, int(b.getCollectionTime())) for b in beans) / 1000.0


def ratio(a: float | None, b: float | None) -> float | None:
    """``a / b``, or None when either is missing or ``b`` is 0."""
    if a is None or b is None or b == 0:
        return None
    return a / b


def engine_list(parser: argparse.ArgumentParser, text: str, known: Sequence[str]) -> list[str]:
    """The comma-separated ``--engines`` value, each name checked against ``known`` (a usage
    error otherwise)."""
    engines = [e.strip() for e in text.split(",") if e.strip()]
    unknown = [e for e in engines if e not in known]
    if unknown:
        parser.error(f"unknown engines {unknown}; choose from {', '.join(known)}")
    return engines
