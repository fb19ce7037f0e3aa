"""One process of the reliability soak (R7), with its own JVM and Floe session.

    python soak_worker.py ROLE WAREHOUSE TABLE SECONDS

ROLE is one of:

- ``appender``: INSERTs of 5 zero-amount rows (``grp`` 1, keys from 1,000,000 up) and 2 rows of
  ``grp`` 2 that the mutator deletes later; prints ``ACK <first key> <last key>`` after each
  statement returned.
- ``mutator``: zero-sum transfers between the 100 accounts (``grp`` 0) by MERGE and by UPDATE, and
  DELETEs of ``grp`` 2 rows.
- ``maintainer``: in turn, one every 7.5 s: rewrite_data_files (partial progress),
  expire_snapshots (retain_last 5), remove_orphan_files (older_than 60 s ago) and ANALYZE TABLE.
- ``checker``: every 2 s, reads the table and checks the invariants: the balances sum to 10,000,
  there are exactly 100 accounts, no key appears twice, every key the appender acknowledged before
  the read is present and no key of a failed append is, and the metadata folder holds at most
  previous-versions-max + 1 + 3 version files (3 writers may each have published before cleaning
  up).

Every role prints ``STAT <elapsed s> <heap bytes used after a full GC> <open file descriptors of
the JVM>`` every 10 s, between operations; ``OK <what>`` / ``CONFLICT <what>`` for each operation
(a typed FLOE_*_CONFLICT error is an allowed outcome of a concurrent operation); and
``VIOLATION <what>`` for anything else: an untyped error, a failed read, a broken invariant.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

import floe

CONFLICT_CLASSES = ("FLOE_COMMIT_CONFLICT", "FLOE_CONCURRENT_CHANGE_CONFLICT")
STAT_EVERY_S = 10.0


def main(argv: list[str]) -> int:
    role, warehouse, table, seconds_arg = argv
    seconds = float(seconds_arg)
    spark = floe.session(
        warehouse,
        app_name=f"floe-soak-{role}",
        master="local[1]",
        conf={
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "1",
            "spark.sql.session.timeZone": "UTC",
            "spark.driver.memory": "768m",
            # the heap after a full GC then holds only what is strongly reachable: soft references
            # (caches the JVM frees under pressure) are cleared at every GC
            "spark.driver.extraJavaOptions": "-XX:SoftRefLRUPolicyMSPerMB=0",
            # a long-running driver keeps this much history of finished work (not a leak)
            "spark.sql.ui.retainedExecutions": "20",
            "spark.ui.retainedJobs": "20",
            "spark.ui.retainedStages": "20",
            "spark.ui.retainedTasks": "200",
        },
    )
    spark.sparkContext.setLogLevel("ERROR")
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    pid = int(jvm.java.lang.ProcessHandle.current().pid())
    runtime = jvm.java.lang.Runtime.getRuntime()

    def stat(start: float) -> None:
        jvm.java.lang.System.gc()
        used = int(runtime.totalMemory()) - int(runtime.freeMemory())
        fds = sum(1 for _ in Path(f"/proc/{pid}/fd").iterdir())
        print(f"STAT {time.monotonic() - start:.1f} {used} {fds}", flush=True)

    step = ROLES[role]
    rng = random.Random(f"soak-{role}")
    start = time.monotonic()
    next_stat = start
    i = 0
    print("READY", flush=True)
    while time.monotonic() - start < seconds:
        if time.monotonic() >= next_stat:
            stat(start)
            next_stat += STAT_EVERY_S
        try:
            step(spark, table, i, rng)
        except Exception as e:  # classify: a typed conflict is allowed, anything else is not
            text = str(e)
            first = text.splitlines()[0] if text else type(e).__name__
            kind = "CONFLICT" if any(c in text for c in CONFLICT_CLASSES) else "VIOLATION"
            print(f"{kind} {role} {i}: {first[:400]}", flush=True)
        i += 1
    stat(start)
    spark.stop()
    return 0


def append(spark: object, table: str, i: int, rng: random.Random) -> None:
    first = 1_000_000 + i * 5
    keys = range(first, first + 5)
    rows = [f"({k}, 1, 0)" for k in keys] + [f"({-(i * 2 + j + 1)}, 2, 0)" for j in range(2)]
    _sql(spark, f"INSERT INTO {table} VALUES {', '.join(rows)}")
    print(f"ACK {first} {first + 4}", flush=True)
    time.sleep(0.2)


def mutate(spark: object, table: str, i: int, rng: random.Random) -> None:
    a, b = rng.sample(range(100), 2)
    amount = rng.randint(1, 50)
    if i % 3 == 0:
        _sql(
            spark,
            f"MERGE INTO {table} t USING (SELECT * FROM VALUES ({a}, {-amount}), ({b}, {amount}) "
            "AS s(k, delta)) s ON t.k = s.k AND t.grp = 0 "
            "WHEN MATCHED THEN UPDATE SET amount = t.amount + s.delta",
        )
        print(f"OK merge {a}->{b} {amount}", flush=True)
    elif i % 3 == 1:
        _sql(
            spark,
            f"UPDATE {table} SET amount = amount + CASE WHEN k = {a} THEN {-amount} ELSE {amount} "
            f"END WHERE grp = 0 AND k IN ({a}, {b})",
        )
        print(f"OK update {a}->{b} {amount}", flush=True)
    else:
        _sql(spark, f"DELETE FROM {table} WHERE grp = 2")
        print("OK delete grp 2", flush=True)
    time.sleep(1.0)


def maintain(spark: object, table: str, i: int, rng: random.Random) -> None:
    """One maintenance operation per call, in turn, so that a compaction that loses to a
    concurrent DELETE (a typed conflict) does not skip the others; each runs every 30 s."""
    time.sleep(MAINTENANCE_EVERY_S / len(MAINTENANCE))
    name = table.split(".", 1)[1]
    what, statement = MAINTENANCE[i % len(MAINTENANCE)]
    _sql(spark, statement.format(name=name, table=table))
    print(f"OK {what}", flush=True)


MAINTENANCE_EVERY_S = 30.0
MAINTENANCE = (
    # partial progress: each partition's group commits on its own, so the groups that no concurrent
    # MERGE, UPDATE or DELETE touched land (the table's file count stays bounded) while the others
    # fail with a typed conflict
    (
        "rewrite_data_files",
        "CALL floe.system.rewrite_data_files(table => '{name}', "
        "options => map('partial-progress.enabled', 'true'))",
    ),
    (
        "expire_snapshots",
        "CALL floe.system.expire_snapshots(table => '{name}', older_than => current_timestamp(), "
        "retain_last => 5)",
    ),
    (
        "remove_orphan_files",
        "CALL floe.system.remove_orphan_files(table => '{name}', "
        "older_than => current_timestamp() - INTERVAL 60 SECONDS, allow_short_interval => true)",
    ),
    ("analyze", "ANALYZE TABLE {table} COMPUTE STATISTICS FOR ALL COLUMNS"),
)


def check(spark: object, table: str, i: int, rng: random.Random) -> None:
    time.sleep(2.0)
    acked = _acked_keys()
    rows = _sql(
        spark,
        f"SELECT count(*) AS n, count(DISTINCT k) AS keys, "
        f"sum(CASE WHEN grp = 0 THEN amount ELSE 0 END) AS balance, "
        f"sum(CASE WHEN grp = 0 THEN 1 ELSE 0 END) AS accounts, "
        f"sum(amount) AS total FROM {table}",
    )
    n, keys, balance, accounts, total = rows[0]
    problems = []
    if n != keys:
        problems.append(f"{n - keys} duplicate keys")
    if balance != 10_000 or total != 10_000:
        problems.append(f"balance {balance}, total {total} (expected 10000)")
    if accounts != 100:
        problems.append(f"{accounts} accounts (expected 100)")
    if acked:
        present = _sql(
            spark,
            f"SELECT count(*) FROM {table} "
            f"WHERE grp = 1 AND k BETWEEN {min(acked)} AND {max(acked)}",
        )[0][0]
        if present != len(acked):  # an append that failed must have left nothing
            problems.append(f"{present} appended rows where {len(acked)} were acknowledged")
    folder = Path(os.environ["FLOE_SOAK_TABLE_FOLDER"])
    versions = len(list((folder / "metadata").glob("v*.metadata.json")))
    if versions > METADATA_VERSIONS_MAX + 1 + 3:
        problems.append(f"{versions} metadata version files (max {METADATA_VERSIONS_MAX} + 1 + 3)")
    if problems:
        print(f"VIOLATION checker {i}: {'; '.join(problems)}", flush=True)
    else:
        print(f"OK check {n} rows, {len(acked)} acked", flush=True)


#: The table's write.metadata.previous-versions-max (set by the test that creates it).
METADATA_VERSIONS_MAX = 10
ROLES = {"appender": append, "mutator": mutate, "maintainer": maintain, "checker": check}


def _sql(spark: object, statement: str) -> list[tuple[int, ...]]:
    result = spark.sql(statement).collect()  # type: ignore[attr-defined]
    return [tuple(row) for row in result]


def _acked_keys() -> list[int]:
    """Keys of every append the appender acknowledged so far (its log, read before the query)."""
    log = Path(os.environ["FLOE_SOAK_APPENDER_LOG"])
    keys: list[int] = []
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("ACK "):
            _, first, last = line.split()
            keys.extend(range(int(first), int(last) + 1))
    return keys


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
