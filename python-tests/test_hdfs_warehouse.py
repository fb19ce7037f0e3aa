"""A warehouse on HDFS: Floe over Spark's own HDFS client against a real MiniDFSCluster (127.0.0.1).

One module, one cluster (a NameNode and a DataNode in their own JVM, hdfs_runtime.py), the shared
Spark session with a second catalog ``floe_hdfs`` whose warehouse is ``hdfs://127.0.0.1:<port>/
warehouse``. Commits there publish ``v<N+1>.metadata.json`` by FileContext's rename without
overwrite, which the NameNode performs as one atomic operation that fails when the name exists; the
race below proves it loses no commit. Every check of stored files goes through Hadoop's own
``FileSystem`` client in the session's JVM, not through Floe's Java code.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from commit_race import RACE_PROPERTIES, run_append_race, version_numbers
from conftest import scaled
from reliability_commit_storm import assert_no_loss, check_storm, record_storm
from warehouse_checks import check_rewrite_and_expire, check_row_level_dml, rows

if TYPE_CHECKING:
    from hdfs_runtime import MiniHdfs
    from pyspark.sql import SparkSession

CATALOG = "floe_hdfs"
WRITERS = 4
APPENDS_PER_WRITER = scaled(50, 10)
WORKER_TIMEOUT_S = 400


class HdfsFiles:
    """Hadoop's FileSystem client for ``uri`` in the session's JVM, for checks made outside Floe."""

    def __init__(self, spark: SparkSession, uri: str) -> None:
        jvm = spark.sparkContext._jvm
        assert jvm is not None
        self.jvm = jvm
        self.uri = uri
        hadoop = spark.sparkContext._jsc.hadoopConfiguration()
        self.fs = jvm.org.apache.hadoop.fs.FileSystem.newInstance(jvm.java.net.URI(uri), hadoop)

    def _path(self, location: str) -> Any:
        return self.jvm.org.apache.hadoop.fs.Path(location)

    def list(self, directory: str) -> list[str]:
        """Every file below ``directory`` (a path on this file system), as absolute paths."""
        if not self.fs.exists(self._path(directory)):
            return []
        found = self.fs.listFiles(self._path(directory), True)
        out = []
        while found.hasNext():
            out.append(str(found.next().getPath().toUri().getPath()))
        return sorted(out)

    def read(self, location: str) -> bytes:
        stream = self.fs.open(self._path(location))
        try:
            data: bytes = self.jvm.org.apache.commons.io.IOUtils.toByteArray(stream)
        finally:
            stream.close()
        return data

    def write(self, location: str, data: bytes) -> None:
        out = self.fs.create(self._path(location), False)
        out.write(bytearray(data))
        out.close()

    def close(self) -> None:
        self.fs.close()


@pytest.fixture(scope="module")
def hdfs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MiniHdfs]:
    from hdfs_runtime import MiniHdfs, find_minicluster_jar

    found = find_minicluster_jar()
    if found.jar is None:
        message = f"Hadoop's minicluster unavailable: {found.problem}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + " (CI=true: a failed download is a failure, not a skip)")
        pytest.skip(message)
    cluster = MiniHdfs(found.jar, tmp_path_factory.mktemp("hdfs"))
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def hdfs_catalog(spark: SparkSession, hdfs: MiniHdfs) -> str:
    """Catalog ``floe_hdfs`` on the cluster; HDFS's client is in Spark's own Hadoop jars."""
    spark.conf.set(f"spark.sql.catalog.{CATALOG}", "io.floe.spark.FloeCatalog")
    spark.conf.set(f"spark.sql.catalog.{CATALOG}.warehouse", f"{hdfs.uri}/warehouse")
    return CATALOG


@pytest.fixture(scope="module")
def files(spark: SparkSession, hdfs: MiniHdfs) -> Iterator[HdfsFiles]:
    client = HdfsFiles(spark, hdfs.uri)
    yield client
    client.close()


def _table_files(files: HdfsFiles, table: str, sub: str = "") -> list[str]:
    namespace, name = table.split(".")
    return files.list(f"/warehouse/{namespace}/{name}/{sub}")


def _current_metadata(files: HdfsFiles, table: str) -> dict[str, Any]:
    namespace, name = table.split(".")
    newest = version_numbers(_table_files(files, table, "metadata"))[-1]
    loaded: dict[str, Any] = json.loads(
        files.read(f"/warehouse/{namespace}/{name}/metadata/v{newest}.metadata.json")
    )
    return loaded


def test_namespaces_tables_insert_select(
    spark: SparkSession, hdfs_catalog: str, files: HdfsFiles, hdfs: MiniHdfs
) -> None:
    spark.sql(f"CREATE NAMESPACE {hdfs_catalog}.empty_ns")
    spark.sql(f"CREATE NAMESPACE {hdfs_catalog}.basic")
    namespaces = {r[0] for r in spark.sql(f"SHOW NAMESPACES IN {hdfs_catalog}").collect()}
    assert {"empty_ns", "basic"} <= namespaces
    spark.sql(f"CREATE TABLE {hdfs_catalog}.basic.t (id BIGINT, name STRING) USING floe")
    spark.sql(f"INSERT INTO {hdfs_catalog}.basic.t VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {hdfs_catalog}.basic.t VALUES (3, 'c')")
    assert rows(spark, f"SELECT * FROM {hdfs_catalog}.basic.t ORDER BY id") == [
        (1, "a"),
        (2, "b"),
        (3, "c"),
    ]
    assert [r[1] for r in spark.sql(f"SHOW TABLES IN {hdfs_catalog}.basic").collect()] == ["t"]
    stored = _table_files(files, "basic.t")
    assert version_numbers(stored) == [1, 2, 3]
    assert files.read("/warehouse/basic/t/metadata/version-hint.text") == b"3"
    assert not [f for f in stored if ".tmp" in f], stored  # every temporary version was renamed
    data = [f for f in stored if "/data/" in f]
    assert data and all(f.endswith(".parquet") for f in data)
    location = spark.sql(f"DESCRIBE TABLE EXTENDED {hdfs_catalog}.basic.t").collect()
    assert f"{hdfs.uri}/warehouse/basic/t" in {r[1] for r in location}
    spark.sql(f"DROP NAMESPACE {hdfs_catalog}.empty_ns")
    namespaces = {r[0] for r in spark.sql(f"SHOW NAMESPACES IN {hdfs_catalog}").collect()}
    assert "empty_ns" not in namespaces


@pytest.mark.parametrize("mode", ["copy-on-write", "merge-on-read"])
def test_row_level_dml(spark: SparkSession, hdfs_catalog: str, mode: str) -> None:
    check_row_level_dml(spark, hdfs_catalog, mode)


def test_procedures_and_analyze(
    spark: SparkSession, hdfs_catalog: str, files: HdfsFiles, hdfs: MiniHdfs
) -> None:
    table = check_rewrite_and_expire(spark, hdfs_catalog)
    assert len([f for f in _table_files(files, "procs.t", "data") if f.endswith(".parquet")]) == 1
    orphan = "/warehouse/procs/t/data/orphan.parquet"
    files.write(orphan, b"not referenced by any metadata")
    removed = spark.sql(
        f"CALL {hdfs_catalog}.system.remove_orphan_files(table => 'procs.t', "
        "older_than => TIMESTAMP '2999-01-01 00:00:00', allow_short_interval => true)"
    ).collect()
    assert [r.orphan_file_location for r in removed] == [f"{hdfs.uri}{orphan}"]
    assert orphan not in _table_files(files, "procs.t")
    assert rows(spark, f"SELECT * FROM {table} ORDER BY id") == [(i, f"v{i}") for i in range(5)]
    spark.sql(f"ANALYZE TABLE {table} COMPUTE STATISTICS FOR ALL COLUMNS")
    stats = [f for f in _table_files(files, "procs.t", "metadata") if f.endswith(".stats")]
    assert stats, "ANALYZE wrote no statistics file"


def test_indexes(spark: SparkSession, hdfs_catalog: str, files: HdfsFiles) -> None:
    table = f"{hdfs_catalog}.idx.t"
    spark.sql(f"CREATE NAMESPACE {hdfs_catalog}.idx")
    spark.sql(f"CREATE TABLE {table} (id BIGINT, user_id BIGINT) USING floe")

    # file i holds user ids i and 100 - i: min/max bounds cannot skip files 0..3 for user_id = 3
    def insert_file(i: int) -> None:  # one data file
        spark.sql(
            f"INSERT INTO {table} SELECT /*+ COALESCE(1) */ * "
            f"FROM VALUES ({i}, {i}), ({i + 10}, {100 - i}) AS v(id, user_id)"
        )

    for i in range(4):
        insert_file(i)
    spark.sql(f"CREATE INDEX by_user ON {table} USING btree (user_id)")
    insert_file(4)  # a sync index covers it at commit
    index = spark.sql(f"SELECT covered_files, live_files, problem FROM {table}.indexes").collect()
    assert [tuple(r) for r in index] == [(5, 5, None)]
    plan = spark.sql(f"EXPLAIN SELECT * FROM {table} WHERE user_id = 3").collect()[0][0]
    assert "by_user (pruned 3 of 4 covered files)" in plan, plan
    assert rows(spark, f"SELECT id FROM {table} WHERE user_id = 3") == [(3,)]
    segments = _table_files(files, "idx.t", "metadata/_floe_indexes")
    assert segments, "no index files on HDFS"


def test_rename_and_drop_purge(
    spark: SparkSession, hdfs_catalog: str, files: HdfsFiles, hdfs: MiniHdfs
) -> None:
    """HDFS moves a folder in one step, so RENAME (refused on object stores) works here."""
    spark.sql(f"CREATE NAMESPACE {hdfs_catalog}.ddl")
    spark.sql(f"CREATE TABLE {hdfs_catalog}.ddl.t (id BIGINT) USING floe")
    spark.sql(f"INSERT INTO {hdfs_catalog}.ddl.t VALUES (1)")
    spark.sql(f"ALTER TABLE {hdfs_catalog}.ddl.t RENAME TO {hdfs_catalog}.ddl.u")
    assert rows(spark, f"SELECT * FROM {hdfs_catalog}.ddl.u") == [(1,)]
    assert _table_files(files, "ddl.t") == []
    moved = version_numbers(_table_files(files, "ddl.u", "metadata"))
    spark.sql(f"INSERT INTO {hdfs_catalog}.ddl.u VALUES (2)")
    assert rows(spark, f"SELECT * FROM {hdfs_catalog}.ddl.u ORDER BY id") == [(1,), (2,)]
    assert version_numbers(_table_files(files, "ddl.u", "metadata")) == [*moved, moved[-1] + 1]
    spark.sql(f"DROP TABLE {hdfs_catalog}.ddl.u PURGE")
    assert _table_files(files, "ddl.u") == []
    assert [r[1] for r in spark.sql(f"SHOW TABLES IN {hdfs_catalog}.ddl").collect()] == []


def test_publish_is_a_rename_that_never_overwrites(
    spark: SparkSession, hdfs_catalog: str, files: HdfsFiles, hdfs: MiniHdfs
) -> None:
    """HadoopFileIO.publishIfAbsent on HDFS: the NameNode's rename without overwrite moves the
    file, and fails with "already exists", leaving both files as they were, when the name is
    taken."""
    from py4j.protocol import Py4JJavaError

    jvm = spark.sparkContext._jvm
    assert jvm is not None
    io = jvm.io.floe.spark.HadoopFileIO(spark.sparkContext._jsc.hadoopConfiguration())
    assert not io.createsIfAbsent(f"{hdfs.uri}/publish/v1.metadata.json")  # rename, not a create
    files.write("/publish/first.tmp", b"first")
    files.write("/publish/second.tmp", b"second")
    io.publishIfAbsent(f"{hdfs.uri}/publish/first.tmp", f"{hdfs.uri}/publish/v1.metadata.json")
    assert files.list("/publish") == ["/publish/second.tmp", "/publish/v1.metadata.json"]
    with pytest.raises(Py4JJavaError) as refused:
        io.publishIfAbsent(f"{hdfs.uri}/publish/second.tmp", f"{hdfs.uri}/publish/v1.metadata.json")
    assert refused.value.java_exception.getClass().getName() == (
        "java.nio.file.FileAlreadyExistsException"
    )
    assert files.read("/publish/v1.metadata.json") == b"first"
    assert files.read("/publish/second.tmp") == b"second"


def test_commit_race_loses_nothing(
    spark: SparkSession, hdfs_catalog: str, files: HdfsFiles, hdfs: MiniHdfs, tmp_path: Path
) -> None:
    """R1 on HDFS: 4 processes x 50 appends, each with its own JVM and HDFS client."""
    started = time.monotonic()
    spark.sql(f"CREATE NAMESPACE {hdfs_catalog}.race")
    spark.sql(
        f"CREATE TABLE {hdfs_catalog}.race.t (id BIGINT) USING floe "
        f"TBLPROPERTIES ({RACE_PROPERTIES})"
    )
    race = run_append_race(
        warehouse=f"{hdfs.uri}/warehouse",
        namespace="race",
        table="t",
        processes=WRITERS,
        appends=APPENDS_PER_WRITER,
        tmp=tmp_path,
        timeout_s=WORKER_TIMEOUT_S,
    )
    verdict = check_storm(
        race.acks,
        metadata_dir="/warehouse/race/t/metadata",
        metadata_names=_table_files(files, "race.t", "metadata"),
        read=files.read,
    )
    total = WRITERS * APPENDS_PER_WRITER
    record_storm("hdfs", race, verdict, started)
    assert_no_loss(race, verdict, writers=WRITERS, total=total)
    assert not [f for f in _table_files(files, "race.t", "metadata") if ".tmp" in f]
