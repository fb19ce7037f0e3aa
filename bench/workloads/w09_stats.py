"""W9 NDV statistics on D1 (BENCH.md 9.2; ported from bench/analyze_stats.py): theta sketches of
every column into Puffin, in full, then again after each 1% append.

Cases, per engine:

* ``a full``: Floe and Iceberg ``CALL <catalog>.system.compute_table_stats`` on all 12 columns
  (each rep replaces the same snapshot's file); plain Parquet: Spark's own ``ANALYZE TABLE ...
  COMPUTE STATISTICS FOR ALL COLUMNS`` on a session-catalog table over the same files.
* ``b after 1% append``: before each rep (untimed) 1% of D1's rows are appended again with new
  ticket numbers and comments (new distinct values); then the same statement. Floe merges the
  previous sketches with sketches of the appended files only (incremental); Iceberg and Spark
  compute everything again. ``extra.incremental_vs_full`` is the engine's median b / median a:
  Floe's goal is <= 0.1 (BENCH.md W9), which the report's peer ratios cannot express, so it is
  one of Floe's ``own_goal`` lines.

Floe's estimates after the last rep are checked against exact ``count(DISTINCT c)``:
``extra.max_relative_error`` and ``extra.columns_within_tolerance`` (|err| <= 3.13%, 2 RSE at
lgK 12; goal, Floe's other ``own_goal`` line: at least 11 of 12).
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import TYPE_CHECKING, Any

from suite_api import NAMESPACE, Case, Context, Workload, quote_path, ratio

from workloads import datasets

if TYPE_CHECKING:
    pass

APPEND_FRACTION = 0.01
TOLERANCE = 0.0313
INCREMENTAL_GOAL = 0.1
#: Floe's estimates: all columns but this many within TOLERANCE of the exact count.
MAX_COLUMNS_OUTSIDE = 1
ENGINES = ("parquet", "iceberg-default", "iceberg-best", "floe")
COLUMNS = datasets.D1_COLUMNS
SPARK_TABLE = "spark_catalog.default.w09_d1"


def _table(ctx: Context, src: Path) -> str:
    """The table the statements run on: the engine's import of D1, or for plain Parquet a
    session-catalog table over the same (linked) files, which ANALYZE needs."""
    table = ctx.import_parquet("d1", src, partition_cols=(datasets.D1_PARTITION,))
    if ctx.engine != "parquet":
        return table
    ctx.spark.sql(f"DROP TABLE IF EXISTS {SPARK_TABLE}")
    # The path as an argument, not in SQL text: a --dir with a quote stays a path.
    ctx.spark.catalog.createTable(SPARK_TABLE, path=str(ctx.table_path("d1")), source="parquet")
    return SPARK_TABLE


def _statement(ctx: Context, table: str) -> str:
    if ctx.engine == "parquet":
        return f"ANALYZE TABLE {table} COMPUTE STATISTICS FOR ALL COLUMNS"
    catalog = table.split(".")[0]
    return f"CALL {catalog}.system.compute_table_stats(table => '{NAMESPACE}.d1')"


def _append(ctx: Context, table: str, rows: int, round_: int) -> None:
    """1% of D1's rows again, with new ticket numbers and comments (new distinct values)."""
    src = f"parquet.{quote_path(ctx.table_path('d1'))}"
    select = ", ".join(
        f"ss_ticket_number + {(round_ + 1) * 10**9} AS ss_ticket_number"
        if c == "ss_ticket_number"
        else f"concat(ss_comment, '-{round_}') AS ss_comment"
        if c == "ss_comment"
        else c
        for c in COLUMNS
    )
    ctx.spark.sql(
        f"INSERT INTO {table} SELECT {select} FROM {src} WHERE ss_ticket_number < {rows // 400}"
    )
    if ctx.engine == "parquet":
        ctx.spark.sql(f"REFRESH TABLE {table}")


def _accuracy(ctx: Context, table: str) -> dict[str, Any]:
    """Floe's NDVs in the current statistics file against exact distinct counts."""
    from floe.inspect import table_statistics

    location = ""
    for row in ctx.spark.sql(f"DESCRIBE TABLE EXTENDED {table}").collect():
        if row[0] == "Location":
            location = str(row[1])
    stats = table_statistics(location)
    ndv = {c.name: c.ndv for c in stats.columns if c.name is not None}
    select = ", ".join(f"count(DISTINCT {c}) AS {c}" for c in COLUMNS)
    exact = ctx.spark.sql(f"SELECT {select} FROM {table}").collect()[0]
    errors = {c: (float(ndv[c]) - exact[c]) / exact[c] for c in COLUMNS if c in ndv}
    return {
        "relative_error": errors,
        "max_relative_error": max((abs(e) for e in errors.values()), default=None),
        "columns_within_tolerance": sum(abs(e) <= TOLERANCE for e in errors.values()),
        "puffin_bytes": stats.file_size,
    }


def run(ctx: Context) -> list[Case]:
    src = datasets.d1(ctx.spark, ctx.inputs, ctx.quick)
    table = _table(ctx, src)
    statement = _statement(ctx, table)
    rows = datasets.d1_rows(ctx.quick)

    def compute() -> None:
        ctx.spark.sql(statement).collect()

    full = ctx.time(compute)
    appended = [0]

    def append() -> None:
        _append(ctx, table, rows, appended[0])
        appended[0] += 1

    after = ctx.time(compute, setup=append)
    cases = [ctx.case("a full", full, rows=rows)]
    extra: dict[str, object] = {
        "appended_rows_per_rep": rows // 100,
        "incremental_vs_full": ratio(statistics.median(after), statistics.median(full)),
    }
    if ctx.engine == "floe":
        accuracy = _accuracy(ctx, table)
        extra |= accuracy
        extra["own_goal"] = [
            {"metric": "incremental / full", "value": extra["incremental_vs_full"],
             "goal": INCREMENTAL_GOAL},
            {"metric": f"columns with NDV error over {TOLERANCE:.2%}",
             "value": len(COLUMNS) - accuracy["columns_within_tolerance"],
             "goal": MAX_COLUMNS_OUTSIDE},
        ]  # fmt: skip
    cases.append(ctx.case("b after 1% append", after, **extra))
    return cases


WORKLOAD = Workload(
    id="W9",
    title="NDV statistics, full and after a 1% append",
    family="statistics",
    engines=ENGINES,
    prepare=datasets.d1,
    run=run,
    goals={"a full": {"iceberg": 0.5, "parquet": 1.0}},
)
