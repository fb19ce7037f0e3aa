"""One writer of a commit race (S3, HDFS), run as its own OS process with its own JVM and client.

    python commit_race_worker.py ENDPOINT WAREHOUSE NAMESPACE TABLE WRITER COUNT GO_FILE MODE

Starts a JVM (pyspark's gateway, no SparkContext) with Floe's jar and any extra jars on its class
path (FLOE_JAR; FLOE_S3_JARS, the S3A jars, for an ``s3a://`` WAREHOUSE), loads the table through
Floe's FileSystemCatalog over HadoopFileIO, prints ``READY`` and waits for GO_FILE. ENDPOINT is the
S3 endpoint S3A is pointed at for an ``s3a://`` WAREHOUSE and ``-`` otherwise (an ``hdfs://``
WAREHOUSE names its NameNode). MODE ``safe`` is Floe's own publish (a conditional create on an
object store, a no-overwrite rename on HDFS); ``unsafe`` is ``withUnsafeObjectStoreCommits`` (a
rename on an object store). Then commits COUNT appends of one data file each (a metadata-only
append of ``data/w<WRITER>-<i>.parquet``) and prints ``ACK <path> <version>`` once a commit
returned.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from pyspark import SparkConf
from pyspark.java_gateway import launch_gateway

READY_TIMEOUT_S = 120.0


def main(argv: list[str]) -> int:
    endpoint, warehouse, namespace, table, writer_arg, count_arg, go_file, mode = argv
    writer, count = int(writer_arg), int(count_arg)
    sys.path.insert(0, str(Path(__file__).parent.parent))
    from s3_runtime import hadoop_s3a_conf

    jars = [os.environ["FLOE_JAR"], os.environ.get("FLOE_S3_JARS", "")]
    class_path = os.pathsep.join(j for j in jars if j)
    conf = SparkConf().set("spark.driver.extraClassPath", class_path)
    gateway = launch_gateway(conf)  # type: ignore[no-untyped-call]
    jvm = gateway.jvm
    hadoop = jvm.org.apache.hadoop.conf.Configuration()
    if warehouse.startswith("s3a://"):
        for key, value in hadoop_s3a_conf(endpoint).items():
            hadoop.set(key, value)
    spark_io = jvm.io.floe.spark.HadoopFileIO
    io = spark_io(hadoop) if mode == "safe" else spark_io.withUnsafeObjectStoreCommits(hadoop)
    fmt = jvm.io.floe.format
    catalog = fmt.catalog.FileSystemCatalog(io, warehouse)
    ident = fmt.catalog.TableIdentifier.of(jvm.java.util.List.of(namespace), table)
    ops = catalog.loadTable(ident)
    print("READY", flush=True)
    deadline = time.monotonic() + READY_TIMEOUT_S
    while not Path(go_file).exists():
        if time.monotonic() > deadline:
            print(f"FAIL - no {go_file} after {READY_TIMEOUT_S} s", flush=True)
            return 1
        time.sleep(0.01)
    status = 0
    for i in range(count):
        path = f"{warehouse}/{namespace}/{table}/data/w{writer}-{i}.parquet"
        data_file = (
            fmt.manifest.DataFile.builder(ops.current().spec())
            .withPath(path)
            .withFormat("PARQUET")
            .withRecordCount(1)
            .withFileSizeInBytes(100)
            .build()
        )
        try:
            fmt.commit.AppendFiles(ops).appendFile(data_file).commit()
        except Exception as e:  # report and keep going: the test checks every acked file
            first_line = str(e).splitlines()[0] if str(e) else type(e).__name__
            print(f"FAIL {path} {first_line}", flush=True)
            status = 1
            continue
        print(f"ACK {path} {ops.currentVersion()}", flush=True)
    gateway.shutdown()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
