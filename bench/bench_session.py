"""Spark settings every benchmark shares, so their numbers are comparable."""

from __future__ import annotations

import datetime as dt
import json
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


def only_scan_node(plan: Any, kinds: tuple[str, ...] = ("BatchScanExec",)) -> Any:
    """The one scan node of a physical plan (a JVM ``SparkPlan``) whose class is among ``kinds``,
    looking through adaptive execution's wrappers; exits when there is not exactly one."""
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
    if len(found) != 1:
        raise SystemExit(f"Expected one {' or '.join(kinds)} in the plan, found {len(found)}")
    return found[0]
