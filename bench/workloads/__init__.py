"""Every workload of the benchmark suite, in W order (bench/suite.py runs them).

To add a workload: write ``bench/workloads/wNN_name.py`` with ``WORKLOAD = Workload(...)``
(bench/suite_api.py), then add ONE import line (``from workloads.wNN_name import WORKLOAD as
WNN``, one module per line so that merges of parallel additions do not conflict and ruff's
import sorting stays happy) and ONE entry ``WNN,`` in REGISTRY, in W order.
"""

from __future__ import annotations

from suite_api import Workload

from workloads.w01_full_scan import WORKLOAD as W01
from workloads.w02_selective import WORKLOAD as W02
from workloads.w03_planning import WORKLOAD as W03
from workloads.w04_commits import WORKLOAD as W04
from workloads.w05_expire import WORKLOAD as W05
from workloads.w06_delete import WORKLOAD as W06
from workloads.w07_merge import WORKLOAD as W07
from workloads.w08_delete_read import WORKLOAD as W08
from workloads.w09_stats import WORKLOAD as W09
from workloads.w10_index import WORKLOAD as W10
from workloads.w11_tpch import WORKLOAD as W11
from workloads.w12_bulk_load import WORKLOAD as W12

REGISTRY: list[Workload] = [
    W01,
    W02,
    W03,
    W04,
    W05,
    W06,
    W07,
    W08,
    W09,
    W10,
    W11,
    W12,
]


def by_id() -> dict[str, Workload]:
    return {w.id: w for w in REGISTRY}
