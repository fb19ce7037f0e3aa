"""Every workload of the benchmark suite, in W order (bench/suite.py runs them).

To add a workload: write ``bench/workloads/wNN_name.py`` with ``WORKLOAD = Workload(...)``
(bench/suite_api.py) and add one import line and one REGISTRY entry below.
"""

from __future__ import annotations

from suite_api import Workload

from workloads import w01_full_scan, w07_merge

REGISTRY: list[Workload] = [
    w01_full_scan.WORKLOAD,
    w07_merge.WORKLOAD,
]


def by_id() -> dict[str, Workload]:
    return {w.id: w for w in REGISTRY}
