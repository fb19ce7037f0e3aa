"""W10 point lookups on D2 (BENCH.md 9.2; ported from bench/indexes.py's lookups): the same
Parquet files imported into every engine; Floe then builds a ``btree`` index on ``id`` and an
``inverted`` index on ``tag`` (case ``index build``, timed once per rep after a DROP).

Lookups (answers checked equal across engines): (a) ``id = needle`` (an id D2 holds), (b) ``id =
miss`` (an id it does not hold), (c) ``id IN (100 ids)``, (d) ``tag = x`` aggregated. D2's ids are
``datasets.d2_id(n)`` for row ``n``, so needles are computed, not read. Iceberg-best would add
Parquet bloom filters on ``id``; ``import_parquet`` keeps the files as they are, so here it
differs from Iceberg-default only by its table settings.
"""

from __future__ import annotations

from suite_api import Case, Context, Workload

from workloads import datasets

ENGINES = ("parquet", "iceberg-default", "iceberg-best", "floe")
TAG = "tag-4242"


def queries(table: str, rows: int) -> dict[str, str]:
    needle = datasets.d2_id(rows // 2)
    miss = datasets.d2_id(rows + 7)  # a bijection: no row below `rows` has this id
    many = ", ".join(str(datasets.d2_id(k * rows // 100 + 3)) for k in range(100))
    return {
        "a needle": f"SELECT * FROM {table} WHERE id = {needle}",
        "b miss": f"SELECT * FROM {table} WHERE id = {miss}",
        "c in 100": f"SELECT * FROM {table} WHERE id IN ({many})",
        "d tag": f"SELECT count(*), sum(p_int), min(id), max(id) FROM {table} WHERE tag = '{TAG}'",
    }


def run(ctx: Context) -> list[Case]:
    src = datasets.d2(ctx.spark, ctx.inputs, ctx.quick)
    table = ctx.import_parquet("d2", src)
    cases = []
    if ctx.engine == "floe":
        built = [False]

        def drop() -> None:
            if built[0]:
                ctx.spark.sql(f"DROP INDEX by_id ON {table}")

        def build() -> None:
            ctx.spark.sql(f"CREATE INDEX by_id ON {table} USING btree (id)")
            built[0] = True

        cases.append(ctx.case("index build", ctx.time(build, setup=drop)))
        ctx.spark.sql(f"CREATE INDEX by_tag ON {table} USING inverted (tag)")
    for name, sql in queries(table, datasets.d2_rows(ctx.quick)).items():
        cases.append(ctx.query_case(name, sql))
    return cases


WORKLOAD = Workload(
    id="W10",
    title="Point lookups via the index",
    family="index",
    engines=ENGINES,
    prepare=datasets.d2,
    run=run,
    goals={
        "a needle": {"iceberg": 0.05},
        "b miss": {"iceberg": 0.02},
        "c in 100": {"iceberg": 0.1},
        "d tag": {"iceberg": 0.2},
    },
)
