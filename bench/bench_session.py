"""Spark settings every benchmark shares, so their numbers are comparable."""

from __future__ import annotations

from pathlib import Path

DRIVER_MEMORY = "8g"


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
