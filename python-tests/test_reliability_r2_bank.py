"""R2c (docs/reliability.md, 'R2: conflicts'): the bank-balance invariant, Jepsen style.

100 accounts hold 100 each (total 10,000). Four threads of the one shared Spark session transfer
random amounts between random accounts under serializable isolation, alternating a MERGE
(merge-on-read) and an UPDATE (copy-on-write), while a fifth thread appends zero-sum pairs of new
accounts. A transfer that fails must fail with a classed conflict error; it is then retried (at
most ``ATTEMPTS`` times). The oracle:

- after every operation (success or failure) a read sees sum = 10,000 and no duplicate key;
- at the end, every snapshot in the history has sum = 10,000 and no duplicate key;
- the final balances equal the model that applies each acknowledged transfer once (a failed
  attempt left no trace, an acknowledged one was not lost), and no file is orphaned.

``FLOE_R2_BANK_OPS`` sets the transfers per thread (CI: 6; the plan's full size is 25).
"""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from reliability_figures import record
from row_level_tables import (
    COW,
    MOR,
    error_condition,
    error_text,
    location,
    orphan_files,
    snapshots,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ACCOUNTS, START, TOTAL = 100, 100, 10_000
STREAMS = 4
OPS = int(os.environ.get("FLOE_R2_BANK_OPS", "6"))
APPENDS = 6
ATTEMPTS = 6
CONFLICTS = {"FLOE_CONCURRENT_CHANGE_CONFLICT", "FLOE_COMMIT_CONFLICT"}


def _check(spark: SparkSession, sql_from: str) -> str | None:
    total, rows, keys = spark.sql(
        f"SELECT sum(balance), count(*), count(DISTINCT id) FROM {sql_from}"
    ).collect()[0]
    if total != TOTAL or rows != keys:
        return f"{sql_from}: sum {total}, {rows} rows, {keys} keys"
    return None


def _transfer_sql(name: str, k: int, src: int, dst: int, amount: int) -> str:
    if k % 2 == 0:
        return (
            f"MERGE INTO {name} b USING (SELECT * FROM VALUES ({src}, {-amount}), "
            f"({dst}, {amount}) AS s(id, d)) s ON b.id = s.id "
            "WHEN MATCHED THEN UPDATE SET balance = b.balance + s.d"
        )
    return (
        f"UPDATE {name} SET balance = balance + CASE WHEN id = {src} THEN {-amount} "
        f"ELSE {amount} END WHERE id IN ({src}, {dst})"
    )


def test_bank_balance_invariant_under_concurrent_merges(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    started = time.monotonic()
    name, loc = f"floe.{namespace}.bank", location(warehouse, namespace, "bank")
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, balance BIGINT) USING floe TBLPROPERTIES ("
        f"'format-version'='2', 'write.merge.mode'='{MOR}', 'write.update.mode'='{COW}', "
        "'write.merge.isolation-level'='serializable', "
        "'write.update.isolation-level'='serializable')"
    )
    spark.range(0, ACCOUNTS, 1, 2).selectExpr("id", f"CAST({START} AS BIGINT) AS balance").writeTo(
        name
    ).append()
    model = {i: START for i in range(ACCOUNTS)}
    lock = threading.Lock()
    counts = {"ops": 0, "successes": 0, "retries": 0, "failures": 0, "appends": 0}
    violations: list[str] = []

    def note(problem: str | None) -> None:
        if problem is not None:
            with lock:
                violations.append(problem)

    def attempt(sql: str) -> str | None:
        """Runs ``sql``; None on success, else the conflict class (other errors: violations)."""
        try:
            spark.sql(sql)
            return None
        except Exception as e:
            condition, state = error_condition(e)
            if condition not in CONFLICTS or state != "40001" or f"{namespace}.bank" not in str(e):
                note(f"unclassed failure of {sql}: {error_text(e)[:400]}")
            return condition or "unclassed"

    def stream(seed: int) -> None:
        rng = random.Random(seed)
        for k in range(OPS):
            src, dst = rng.sample(range(ACCOUNTS), 2)
            amount = rng.randint(1, 50)
            sql = _transfer_sql(name, k + seed, src, dst, amount)
            for tries in range(ATTEMPTS):
                failed = attempt(sql)
                note(_check(spark, name))
                with lock:
                    counts["ops"] += 1
                    if failed is None:
                        counts["successes"] += 1
                        model[src] -= amount
                        model[dst] += amount
                        break
                    if tries + 1 < ATTEMPTS:
                        counts["retries"] += 1
                    else:
                        counts["failures"] += 1

    def appender() -> None:
        for k in range(APPENDS):
            amount = 10 + k
            sql = f"INSERT INTO {name} VALUES ({1000 + k}, {amount}), ({2000 + k}, {-amount})"
            failed = attempt(sql)
            note(_check(spark, name))
            with lock:
                counts["ops"] += 1
                if failed is None:
                    counts["appends"] += 1
                    model[1000 + k], model[2000 + k] = amount, -amount
                else:
                    note(f"a blind append failed: {failed}")

    threads = [threading.Thread(target=stream, args=(s,)) for s in range(STREAMS)]
    threads.append(threading.Thread(target=appender))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert not any(t.is_alive() for t in threads), "a stream did not finish"

    history = snapshots(loc)
    for snap in history:
        note(_check(spark, f"{name} VERSION AS OF {snap['snapshot-id']}"))
    final = {int(r[0]): int(r[1]) for r in spark.sql(f"SELECT id, balance FROM {name}").collect()}
    if final != model:
        diff = {k: (final.get(k), model.get(k)) for k in set(final) | set(model)}
        note(
            f"final balances differ from the acknowledged transfers: "
            f"{ {k: d for k, d in diff.items() if d[0] != d[1]} }"
        )
    leftovers = orphan_files(loc)
    if leftovers:
        note(f"failed attempts left files: {leftovers[:5]}")
    record(
        "R2",
        bank_streams=STREAMS,
        bank_transfers=STREAMS * OPS,
        bank_ops=counts["ops"],
        bank_successes=counts["successes"],
        bank_retries=counts["retries"],
        bank_failures=counts["failures"],
        bank_appends=counts["appends"],
        bank_snapshots_checked=len(history),
        bank_violations=len(violations),
        bank_seconds=round(time.monotonic() - started, 1),
    )
    assert not violations, "\n".join(violations)
    assert counts["successes"] + counts["failures"] == STREAMS * OPS
    assert counts["successes"] > 0 and counts["appends"] == APPENDS
