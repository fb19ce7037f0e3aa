"""Every workload of the benchmark suite, in W order (bench/suite.py runs them).

To add a workload: write ``bench/workloads/wNN_name.py`` with ``WORKLOAD = Workload(...)``
(bench/suite_api.py) and add one import line and one REGISTRY entry below.
"""

from __future__ import annotations

from suite_api import Workload

from workloads import (
    w01_full_scan,
    w02_selective,
    w03_planning,
    w04_commits,
    w05_expire,
    w07_merge,
    w09_stats,
    w10_index,
    w11_tpch,
)

REGISTRY: list[Workload] = [
    w01_full_scan.WORKLOAD,
    w02_selective.WORKLOAD,
    w03_planning.WORKLOAD,
    w04_commits.WORKLOAD,
    w05_expire.WORKLOAD,
    w07_merge.WORKLOAD,
    w09_stats.WORKLOAD,
    w10_index.WORKLOAD,
    w11_tpch.WORKLOAD,
]


def by_id() -> dict[str, Workload]:
    return {w.id: w for w in REGISTRY}
