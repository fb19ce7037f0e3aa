"""A tiny workload for python-tests/test_bench_suite.py: 100 rows imported into each engine."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from suite_api import Case, Context, Workload, answer_digest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def prepare(spark: SparkSession, inputs: Path, quick: bool) -> None:
    target = inputs / "tiny"
    if not target.exists():
        spark.range(100).selectExpr("id", "id % 7 AS k").repartition(2).write.parquet(str(target))


def run(ctx: Context) -> list[Case]:
    table = ctx.import_parquet("tiny", ctx.inputs / "tiny")
    query = f"SELECT count(*), sum(k) FROM {table}"
    rows = ctx.spark.sql(query).collect()
    seconds = ctx.time(lambda: ctx.spark.sql(query).collect())
    return [ctx.case("count", seconds, answer=answer_digest(rows), rows=rows[0][0])]


WORKLOAD = Workload(
    id="W99",
    title="Tiny",
    family="scan",
    engines=("parquet", "floe"),
    prepare=prepare,
    run=run,
    goals={"count": {"parquet": 1000.0}},
)
