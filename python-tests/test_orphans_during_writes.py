"""remove_orphan_files running in a loop with ``older_than => current_timestamp()`` while another
thread of the same session INSERTs and merge-on-read DELETEs: nothing committed or in flight is
lost. Issue 10, point 7: before in-flight markers were honoured, 116 of 192 live data files were
deleted in 40 s and every read failed with FileNotFoundException.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from conftest import scaled

import floe.inspect as inspect
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CATALOG = "floe"
DURATION_SECONDS = float(scaled(25, 15))


def remove_orphans(spark: SparkSession, table: str) -> int:
    rows = spark.sql(
        f"CALL {CATALOG}.system.remove_orphan_files(table => '{table}', "
        "older_than => current_timestamp(), allow_short_interval => true)"
    ).collect()
    return len(rows)


def test_orphan_removal_in_a_loop_never_deletes_committed_or_in_flight_files(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    t = f"{CATALOG}.{namespace}.orf"
    spark.sql(
        f"""CREATE TABLE {t} (id BIGINT, p STRING) PARTITIONED BY (p)
        TBLPROPERTIES ('write.delete.mode' = 'merge-on-read')"""
    )
    expected: set[int] = set()
    write_errors: list[str] = []
    orphan_errors: list[str] = []
    orphan_runs = 0
    stop = threading.Event()

    def orphan_loop() -> None:
        nonlocal orphan_runs
        while not stop.is_set():
            try:
                remove_orphans(spark, f"{namespace}.orf")
                orphan_runs += 1
            except Exception as e:
                orphan_errors.append(str(e)[:1500])

    remover = threading.Thread(target=orphan_loop, name="orphan-remover", daemon=True)
    remover.start()
    statements = 0
    next_id = 0
    deadline = time.monotonic() + DURATION_SECONDS
    try:
        while time.monotonic() < deadline:
            ids = list(range(next_id, next_id + 6))
            next_id += 6
            values = ", ".join(f"({i}, '{'ab'[i % 2]}')" for i in ids)
            try:
                spark.sql(f"INSERT INTO {t} VALUES {values}")
                expected.update(ids)
                statements += 1
            except Exception as e:
                write_errors.append(f"INSERT: {str(e)[:500]}")
            if next_id % 12 == 0 and expected:
                victim = min(expected)
                try:
                    spark.sql(f"DELETE FROM {t} WHERE id = {victim}")
                    expected.discard(victim)
                    statements += 1
                except Exception as e:
                    write_errors.append(f"DELETE: {str(e)[:500]}")
    finally:
        stop.set()
        remover.join(timeout=300)

    assert not remover.is_alive()
    assert write_errors == []
    assert orphan_errors == []
    assert statements >= 10, statements
    assert orphan_runs >= 3, orphan_runs

    location = str(warehouse / namespace / "orf")
    live = inspect.table_files(location)
    missing = [f["file_path"] for f in live if not local_path(f["file_path"]).exists()]
    assert missing == []
    assert any(f["content"] == 1 for f in live), "the merge-on-read DELETEs wrote delete files"
    rows = sorted(r[0] for r in spark.table(t).collect())
    assert rows == sorted(expected)
    assert spark.table(t).count() == len(expected)

    # with the writers stopped, one more run deletes no live file: the table reads the same
    remove_orphans(spark, f"{namespace}.orf")
    assert sorted(r[0] for r in spark.table(t).collect()) == sorted(expected)
    markers = [p for p in (warehouse / namespace / "orf").rglob("_floe-writing-*")]
    assert markers == [], "every write and commit removed its in-flight marker"
