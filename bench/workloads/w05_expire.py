"""W5 expire snapshots (BENCH.md 9.2; ported from bench/commits_expire.py): a table of sequential
one-row appends plus copy-on-write MERGEs (each replacing the data file of one of the oldest
appends), then (a) ``expire_snapshots`` of the oldest 10 snapshots, (b) of all but the current one,
through each engine's own procedure (Iceberg's Spark action, Floe's).

Cases: ``a expire oldest 10`` and ``b expire all but 1``, one measurement each per run (an expiry
cannot be repeated on the same table). The answer of each is the count of files it deleted by kind
(data, manifest, manifest list, metadata json, statistics), so the report flags an engine that
deletes other files than the others. Afterwards the table must still read all its rows, and no
file the current snapshot references may be missing.

Sizes, to fit issue 17's budget (2 min full, 15 s quick, all engines): 100 appends and 10 MERGEs;
``--quick`` 15 appends and 2 MERGEs (BENCH.md's table is W4's 2,000 commits: see
``bench/commits_expire.py``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from suite_api import Case, Context, Workload, answer_digest, catalog_of

FULL = {"commits": 100, "window": 50, "warmup": 10, "merges": 10}
QUICK = {"commits": 15, "window": 5, "warmup": 2, "merges": 2}
ENGINES = ("iceberg-default", "iceberg-best", "floe")


def prepare(spark: object, inputs: Path, quick: bool) -> None:
    """Nothing shared: every engine writes its own table."""


def run(ctx: Context) -> list[Case]:
    from commits_expire import Worker

    catalog = catalog_of(ctx.engine)
    assert catalog is not None
    chosen = QUICK if ctx.quick else FULL
    args = argparse.Namespace(
        commits=chosen["commits"], window=chosen["window"], warmup=chosen["warmup"],
        merges=chosen["merges"], load_reps=1, jfr=None, dir=str(ctx.work), keep=False,
    )  # fmt: skip
    worker = Worker(ctx.spark, catalog, args)
    worker.run_commits()
    w5 = worker.run_expire()
    after = w5["after_expire"]
    if after["referenced_manifests_missing"] or after["referenced_data_files_missing"]:
        raise RuntimeError(
            f"{worker.table}: files the current snapshot references were deleted: {after}"
        )
    cases = []
    for name, key in (
        ("a expire oldest 10", "expire_oldest_10"),
        ("b expire all but 1", "expire_all_but_1"),
    ):
        result = w5[key]
        deleted = result["deleted_by_kind"]
        cases.append(ctx.case(
            name, [result["seconds"]], answer=answer_digest(sorted(deleted.items())),
            files_deleted=deleted, snapshots_left=result["snapshots_left"],
            merges=chosen["merges"], commits=chosen["commits"], after_expire=after,
        ))  # fmt: skip
    return cases


WORKLOAD = Workload(
    id="W5",
    title="Expire snapshots",
    family="metadata",
    engines=ENGINES,
    prepare=prepare,
    run=run,
    goals={"a expire oldest 10": {"iceberg": 0.1}, "b expire all but 1": {"iceberg": 0.5}},
)
