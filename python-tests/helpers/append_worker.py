"""One writer of the concurrent-append test, run as its own OS process (own JVM, own session).

    python append_worker.py WAREHOUSE TABLE WRITER COUNT GO_FILE

Starts a Floe session on ``WAREHOUSE`` (local[1], UI off), prints ``READY`` and waits until
``GO_FILE`` exists, so that every writer starts appending at the same moment. Then runs COUNT
``INSERT INTO TABLE VALUES (value, writer)`` statements, one row each, with the distinct values
WRITER * 1000 + i, and prints ``ACK <value>`` only after the statement has returned. A failed
statement prints ``FAIL <value> <error>`` and the worker exits with status 1.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from worker_conf import CDS_ENV, class_data_sharing_conf

import floe

READY_TIMEOUT_S = 120.0


def main(argv: list[str]) -> int:
    warehouse, table, writer_arg, count_arg, go_file = argv
    writer, count = int(writer_arg), int(count_arg)
    spark = floe.session(
        warehouse,
        app_name=f"floe-append-worker-{writer}",
        master="local[1]",
        conf={
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "1",
            "spark.sql.session.timeZone": "UTC",
            "spark.driver.extraJavaOptions": os.environ.get(CDS_ENV, ""),
        }
        | class_data_sharing_conf(),
    )
    spark.sparkContext.setLogLevel("ERROR")
    # Warm up the JVM on a read, so that the appends themselves overlap as much as possible.
    spark.sql(f"SELECT count(*) FROM {table}").collect()
    print("READY", flush=True)
    deadline = time.monotonic() + READY_TIMEOUT_S
    while not Path(go_file).exists():
        if time.monotonic() > deadline:
            print(f"FAIL - no {go_file} after {READY_TIMEOUT_S} s", flush=True)
            return 1
        time.sleep(0.01)
    status = 0
    for i in range(count):
        value = writer * 1000 + i
        try:
            spark.sql(f"INSERT INTO {table} VALUES ({value}, {writer})")
        except Exception as e:  # report and keep going: the test checks every acked value
            first_line = str(e).splitlines()[0] if str(e) else type(e).__name__
            print(f"FAIL {value} {first_line}", flush=True)
            status = 1
            continue
        print(f"ACK {value}", flush=True)
    spark.stop()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
