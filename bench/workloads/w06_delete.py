"""W6 DELETE (BENCH.md 9.2; ported from bench/row_level.py's W6): DELETEs on the row-level table
(``workloads/row_table.py``: 1,000,000 rows in 8 files of contiguous keys; quick: 100,000), each
timed on the same un-deleted table.

Cases: ``scatter 0.01%``, ``scatter 0.1%``, ``scatter 1%``, ``scatter 10%`` (a hash of the key:
every file holds matches) and ``cluster 1%`` (a 10-day range of ``ss_sold_date``, inside one
file); quick: ``scatter 0.1%``, ``scatter 10%`` and ``cluster 1%``. Engines, each in its own
configuration: Iceberg default (v2 copy-on-write), Iceberg best (v3 merge-on-read, deletion
vectors), Delta (deletion vectors), Floe (v3 merge-on-read: deletion vectors, as for W7); plain
Parquet has no DELETE.

Before each DELETE (untimed) the table goes back to its first version: ``CALL
<catalog>.system.rollback_to_snapshot`` (Iceberg, Floe); Delta's table is written again (its
``RESTORE TABLE ... TO VERSION AS OF 0`` is 3x slower than that). One untimed warm-up DELETE per
engine, then ``REPS`` measured DELETEs per case (not ``ctx.reps``: copy-on-write rewrites the
whole table at every scattered point, and 5 reps of it would not fit the budget). Extras: bytes
and files the last DELETE added (data files, position delete files, deletion vectors; not
metadata). Answer: the checksum (``count(*)``, ``bit_xor(xxhash64(*))``) of the table after the
DELETE; the row count is checked against the generated rows.
Goal: Floe / min(Iceberg modes) <= 0.7 at every point.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from store_sales import cluster_predicate, scatter_predicate, source_sql
from suite_api import NAMESPACE, Case, Context, Workload, answer_digest, catalog_of

from workloads import row_table
from workloads.row_table import CHECKSUM, FILES, rows_of

ENGINES_W6 = ("iceberg-default", "iceberg-best", "delta", "floe")
#: measured DELETEs per case (quick: 2)
REPS = 3
REPS_QUICK = 2
GOAL = 0.7
#: Folders (and prefixes) of table metadata, not counted as written data.
METADATA_PARTS = ("metadata", "_delta_log")


def cases(quick: bool) -> dict[str, str]:
    """Case name -> DELETE predicate."""
    scatter = {"scatter 0.01%": 1, "scatter 0.1%": 10, "scatter 1%": 100, "scatter 10%": 1000}
    if quick:
        scatter = {k: v for k, v in scatter.items() if k in ("scatter 0.1%", "scatter 10%")}
    found = {name: scatter_predicate(n) for name, n in scatter.items()}
    found["cluster 1%"] = cluster_predicate(FILES)
    return found


def written_files(location: Path) -> dict[str, int]:
    """Relative path -> size of the table's data and delete files (metadata excluded)."""
    found: dict[str, int] = {}
    for path in location.rglob("*"):
        parts = path.relative_to(location).parts
        if any(p in METADATA_PARTS or p.startswith((".", "_")) for p in parts):
            continue
        if path.is_file():
            found[str(path.relative_to(location))] = path.stat().st_size
    return found


class Restorer:
    """Takes table ``name`` back to its first version: Iceberg and Floe by
    ``CALL <catalog>.system.rollback_to_snapshot``, Delta by writing it again (``RESTORE TABLE ...
    TO VERSION AS OF 0`` takes 8-12 s on 100,000 rows here, a new write 3 s). A no-op until
    :meth:`changed` says a statement changed the table."""

    def __init__(self, ctx: Context, table: str, name: str) -> None:
        self.ctx = ctx
        self.name = name
        self.statement: str | None = None
        catalog = catalog_of(ctx.engine)
        if catalog is not None:
            first = ctx.spark.sql(
                f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at LIMIT 1"
            ).collect()[0][0]
            # Iceberg's procedures resolve a name without catalog as catalog.table first (and
            # log a warning when that fails); Floe's take the name inside their catalog
            target = (
                f"{catalog}.{NAMESPACE}.{name}" if catalog == "iceberg" else f"{NAMESPACE}.{name}"
            )
            self.statement = f"CALL {catalog}.system.rollback_to_snapshot('{target}', {first})"
        self.dirty = False

    def changed(self) -> None:
        self.dirty = True

    def restore(self) -> None:
        if not self.dirty:
            return
        if self.statement is None:
            row_table.create(self.ctx, self.name)
        else:
            self.ctx.spark.sql(self.statement).collect()
        self.dirty = False


def run(ctx: Context) -> list[Case]:
    rows = rows_of(ctx.quick)
    table = row_table.create(ctx, "w6")
    restorer = Restorer(ctx, table, "w6")
    location = ctx.table_location("w6")
    reps = REPS_QUICK if ctx.quick else REPS
    all_cases = cases(ctx.quick)
    # one untimed warm-up DELETE per engine (not one per case: see the module's docstring)
    restorer.changed()
    ctx.spark.sql(f"DELETE FROM {table} WHERE {next(iter(all_cases.values()))}").collect()
    restorer.restore()
    found: list[Case] = []
    before: dict[str, int] = {}  # the table's files before the last measured DELETE

    def setup() -> None:
        restorer.restore()
        before.clear()
        before.update(written_files(location))

    for name, predicate in all_cases.items():
        expected = rows - int(
            ctx.spark.sql(
                f"SELECT count(*) FROM ({source_sql(rows, FILES)}) WHERE {predicate}"
            ).collect()[0][0]
        )

        def delete(predicate: str = predicate) -> None:
            restorer.changed()
            ctx.spark.sql(f"DELETE FROM {table} WHERE {predicate}").collect()

        seconds = timed(ctx, delete, setup, reps)
        added = {p: size for p, size in written_files(location).items() if p not in before}
        checksum = ctx.spark.sql(CHECKSUM.format(src=table)).collect()
        count = int(checksum[0][0])
        if count != expected:
            raise RuntimeError(
                f"W6 {ctx.engine} {name}: {count} rows after the DELETE, expected {expected}"
            )
        found.append(
            ctx.case(
                name,
                seconds,
                answer=answer_digest(checksum),
                bytes_written=sum(added.values()),
                files_written=len(added),
                rows_deleted=rows - count,
                rows=rows,
            )
        )
    restorer.restore()
    return found


def timed(
    ctx: Context, action: Callable[[], object], setup: Callable[[], object], reps: int
) -> list[float]:
    """``ctx.time`` with ``reps`` measured runs and no warm-up (run() warmed up once)."""
    saved = (ctx.reps, ctx.warmups)
    ctx.reps, ctx.warmups = reps, 0
    try:
        return ctx.time(action, setup=setup)
    finally:
        ctx.reps, ctx.warmups = saved


WORKLOAD = Workload(
    id="W6",
    title="DELETE, scattered and clustered",
    family="row-level",
    engines=ENGINES_W6,
    prepare=row_table.base,
    run=run,
    goals={name: {"iceberg": GOAL} for name in cases(quick=False)},
)
