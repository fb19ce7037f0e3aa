#!/usr/bin/env python3
"""Scanning many small files on S3: Floe's requests and time (docs/object-stores.md).

    python bench/s3_scan.py [--files 200] [--rows 1000] [--reps 10] [--warm 3]

A moto S3 server on 127.0.0.1 (jars and settings from python-tests/s3_runtime.py), one Spark
session (``local[2]``, Floe's jar: ``$FLOE_JAR`` or the installed package's) with its warehouse
on the bucket, one table of ``--files`` data files of ``--rows`` rows (``id BIGINT, s STRING``).
``SELECT sum(id), max(s)`` runs ``--warm`` times, then ``--reps`` times timed, as a Spark job
(``spark.floe.read.local-max-rows`` 0). Prints the median and every time, and the requests the
last timed scan sent to the data files, by method, from moto's log. Run it with two jars to
compare them; the answer is checked against the rows written.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUCKET = "floe-bench"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--rows", type=int, default=1000, help="rows per file")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--warm", type=int, default=3)
    args = parser.parse_args(argv)
    if min(args.files, args.rows, args.reps) < 1 or args.warm < 0:
        parser.error("--files, --rows and --reps must be at least 1, --warm at least 0")

    sys.path.insert(0, str(ROOT / "python-tests"))
    from s3_runtime import MotoS3, find_s3_jars, hadoop_s3a_conf

    import floe

    jars = find_s3_jars()
    if not jars.jars:
        print(f"S3A jars unavailable: {jars.problem}", file=sys.stderr)
        return 1
    moto = MotoS3(Path(tempfile.mkdtemp(prefix="floe-s3-scan-")) / "requests.log")
    try:
        moto.create_bucket(BUCKET)
        conf = {
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "2",
            "spark.driver.extraClassPath": os.pathsep.join(str(j) for j in jars.jars),
            "spark.floe.read.local-max-rows": "0",
        }
        conf |= {f"spark.hadoop.{k}": v for k, v in hadoop_s3a_conf(moto.endpoint).items()}
        spark = floe.session(f"s3a://{BUCKET}/warehouse", master="local[2]", conf=conf)
        try:
            spark.sql("CREATE NAMESPACE floe.bench")
            spark.sql("CREATE TABLE floe.bench.t (id BIGINT, s STRING)")
            rows = args.files * args.rows
            spark.range(rows).selectExpr("id", "CAST(id AS STRING) AS s").repartition(
                args.files
            ).writeTo("floe.bench.t").append()
            query = "SELECT sum(id), max(s) FROM floe.bench.t"
            expected = (rows * (rows - 1) // 2, max(str(i) for i in range(rows)))
            for _ in range(args.warm):
                spark.sql(query).collect()
            seconds: list[float] = []
            methods: Counter[str] = Counter()
            for _ in range(args.reps):
                offset = moto.log_offset()
                started = time.perf_counter()
                answer = tuple(spark.sql(query).collect()[0])
                seconds.append(time.perf_counter() - started)
                if answer != expected:
                    print(f"wrong answer {answer}, expected {expected}", file=sys.stderr)
                    return 1
                logged = moto.requests_since(offset)
                methods = Counter(r.split()[0] for r in logged if "/bench/t/data/" in r)
            print(
                f"jar {os.environ.get('FLOE_JAR', '(installed)')}: {args.files} files of "
                f"{args.rows} rows, scan median {statistics.median(seconds):.3f} s "
                f"{[round(s, 3) for s in seconds]}; requests to the data files in the last scan: "
                f"{dict(sorted(methods.items()))}"
            )
        finally:
            spark.stop()
    finally:
        moto.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
