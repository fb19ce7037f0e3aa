"""W11 query mix (BENCH.md 9.2): the 22 TPC-H queries (bench/workloads/tpch_queries.py, the
specification's text with its validation substitution values) over the same Parquet files in every
engine, each engine's answers checked equal (decimals and doubles rounded, see tpch_answers.py).
One case per query plus ``geomean`` (the geometric mean of the query times of each repetition).
Goals: geomean Floe/Parquet <= 1.02 and Floe/Iceberg <= 0.95; no query over 1.05x Iceberg.

Data: ``tpchgen-cli`` (a TPC-H dbgen port, from PyPI) installed into its own virtualenv under the
Floe cache (``$FLOE_CACHE`` or ~/.cache/floe), never into the project's environment; one zstd
Parquet file per table, without field ids (as plain Spark writes them). Scale factor 0.1 (about
25 MB, 600K lineitem rows) keeps the full run of five engines near its 6-minute budget on two
cores; ``--quick`` runs SF 0.01 and only :data:`QUICK_QUERIES`, as all 22 queries on five
engines cannot fit 40 seconds.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from suite_api import ENGINES, Case, Context, Workload

from workloads.tpch_answers import digest
from workloads.tpch_queries import QUERIES, TABLES, render

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SCALE_FACTOR = 0.1
SCALE_FACTOR_QUICK = 0.01
#: One query per shape: scan+aggregate, joins, a selective scan, a big join, a subquery.
QUICK_QUERIES = ("q01", "q03", "q05", "q06", "q09", "q18")
TPCHGEN = "tpchgen-cli==4.0.0"
DATA_VERSION = 1
MARKER = "_DATASET.json"


def scale_factor(quick: bool) -> float:
    return SCALE_FACTOR_QUICK if quick else SCALE_FACTOR


def queries(quick: bool) -> list[str]:
    return list(QUICK_QUERIES) if quick else sorted(QUERIES)


def tpchgen() -> Path:
    """The ``tpchgen-cli`` executable, installed on first use into a virtualenv of its own."""
    cache = Path(os.environ.get("FLOE_CACHE", Path.home() / ".cache" / "floe"))
    venv = cache / "tpchgen-venv"
    exe = venv / "bin" / "tpchgen-cli"
    if not exe.is_file():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", TPCHGEN],
                       check=True)  # fmt: skip
    return exe


def data(inputs: Path, quick: bool) -> Path:
    """The TPC-H tables at this run's scale factor, one directory per table, generating them
    when missing (idempotent)."""
    sf = scale_factor(quick)
    path = inputs / f"tpch-sf{sf:g}"
    params = {"dataset": "TPC-H", "version": DATA_VERSION, "sf": sf, "generator": TPCHGEN}
    marker = path / MARKER
    if marker.is_file() and json.loads(marker.read_text(encoding="utf-8")) == params:
        return path
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    subprocess.run(
        [str(tpchgen()), "parquet", "-s", f"{sf:g}", "-c", "ZSTD(1)", "--field-ids", "false",
         "-o", str(path)],
        check=True,
    )  # fmt: skip
    for table in TABLES:
        (path / table).mkdir()
        (path / f"{table}.parquet").rename(path / table / f"{table}.parquet")
    marker.write_text(json.dumps(params), encoding="utf-8")
    return path


def prepare(spark: SparkSession, inputs: Path, quick: bool) -> None:
    data(inputs, quick)


def run(ctx: Context) -> list[Case]:
    src = data(ctx.inputs, ctx.quick)
    sf = scale_factor(ctx.quick)
    tables = {t: ctx.import_parquet(f"tpch_{t}", src / t) for t in TABLES}
    cases = []
    for q in queries(ctx.quick):
        cases.append(ctx.query_case(q, render(q, tables, sf), digest=digest, scale_factor=sf))
    reps = len(cases[0].seconds)
    geomean = [
        math.exp(sum(math.log(c.seconds[i]) for c in cases) / len(cases)) for i in range(reps)
    ]  # fmt: skip
    cases.append(ctx.case("geomean", geomean, scale_factor=sf, queries=len(cases)))
    return cases


WORKLOAD = Workload(
    id="W11",
    title="TPC-H query mix (SF 0.1; --quick SF 0.01)",
    family="query-mix",
    engines=ENGINES,
    prepare=prepare,
    run=run,
    goals={"geomean": {"parquet": 1.02, "iceberg": 0.95}}
    | {q: {"iceberg": 1.05} for q in sorted(QUERIES)},
)
