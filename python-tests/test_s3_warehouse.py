"""A warehouse on S3: Floe over Hadoop's S3A against a real S3 API server (moto) on 127.0.0.1.

One module, one moto server, the shared Spark session with a second catalog ``floe_s3`` whose
warehouse is ``s3a://floe-test/warehouse``. Commits there publish ``v<N+1>.metadata.json`` with a
conditional create (``If-None-Match: *``), never a rename; the race below proves it loses no commit,
and its negative control (``object-store-commits=unsafe-rename``) shows the rename losing some.
Every check of stored files reads them from the server over HTTP, not through Floe's Java code.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import pytest
from conftest import FULL_SCALE, S3_FIXTURE, scaled
from warehouse_checks import check_rewrite_and_expire, check_row_level_dml, rows

if TYPE_CHECKING:
    from commit_race import RaceResult
    from pyspark.sql import SparkSession
    from reliability_commit_storm import StormVerdict
    from s3_runtime import MotoS3, S3Jars

BUCKET = "floe-test"
NO_CONDITIONAL_BUCKET = "floe-no-conditional"
WAREHOUSE = f"s3a://{BUCKET}/warehouse"
CATALOG = "floe_s3"
WRITERS = 4
APPENDS_PER_WRITER = scaled(50, 10)
#: The negative control needs fewer appends to show losses (it lost 66 of 200 in a 4 x 50 run).
CONTROL_APPENDS_PER_WRITER = scaled(20, 10)
WORKER_TIMEOUT_S = 400
VERSION_FILE = re.compile(r"v(\d+)\.metadata\.json$")
RACE_PROPERTIES = (
    "'commit.retry.num-retries'='200', 'commit.retry.min-wait-ms'='5', "
    "'commit.retry.max-wait-ms'='100', 'commit.retry.total-timeout-ms'='600000'"
)

assert S3_FIXTURE == "s3_catalog"


@pytest.fixture(scope="module")
def moto_s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MotoS3]:
    from s3_runtime import MotoS3

    server = MotoS3(tmp_path_factory.mktemp("moto") / "requests.log")
    try:
        server.create_bucket(BUCKET)
        server.create_bucket(NO_CONDITIONAL_BUCKET)
        yield server
    finally:
        server.stop()


def _require(jars: S3Jars) -> None:
    if jars.jars:
        return
    message = f"S3A jars unavailable: {jars.problem}"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message + " (CI=true: a failed download is a failure, not a skip)")
    pytest.skip(message)


@pytest.fixture(scope="module")
def s3_catalog(spark: SparkSession, s3_jars: S3Jars, moto_s3: MotoS3) -> str:
    """Catalog ``floe_s3`` on the moto bucket; S3A is configured in the session's Hadoop conf."""
    from s3_runtime import hadoop_s3a_conf

    _require(s3_jars)
    hadoop = spark.sparkContext._jsc.hadoopConfiguration()
    for key, value in hadoop_s3a_conf(moto_s3.endpoint).items():
        hadoop.set(key, value)
    # a store without conditional writes, as S3A sees it (per-bucket setting)
    hadoop.set(f"fs.s3a.bucket.{NO_CONDITIONAL_BUCKET}.create.conditional.enabled", "false")
    for name, warehouse, extra in [
        (CATALOG, WAREHOUSE, {}),
        ("floe_s3_nocond", f"s3a://{NO_CONDITIONAL_BUCKET}/warehouse", {}),
        (
            "floe_s3_unsafe",
            f"s3a://{NO_CONDITIONAL_BUCKET}/unsafe",
            {"object-store-commits": "unsafe-rename"},
        ),
    ]:
        spark.conf.set(f"spark.sql.catalog.{name}", "io.floe.spark.FloeCatalog")
        spark.conf.set(f"spark.sql.catalog.{name}.warehouse", warehouse)
        for key, value in extra.items():
            spark.conf.set(f"spark.sql.catalog.{name}.{key}", value)
    return CATALOG


def _keys(moto: MotoS3, table: str, sub: str = "") -> list[str]:
    namespace, name = table.split(".")
    return moto.list_keys(BUCKET, f"warehouse/{namespace}/{name}/{sub}")


def _key(location: str) -> str:
    return location.split(f"s3a://{BUCKET}/", 1)[1]


def _versions(moto: MotoS3, table: str) -> list[int]:
    return sorted(
        int(m.group(1)) for k in _keys(moto, table, "metadata/") if (m := VERSION_FILE.search(k))
    )


def _current_metadata(moto: MotoS3, table: str) -> dict[str, Any]:
    namespace, name = table.split(".")
    newest = _versions(moto, table)[-1]
    key = f"warehouse/{namespace}/{name}/metadata/v{newest}.metadata.json"
    loaded: dict[str, Any] = json.loads(moto.get(BUCKET, key))
    return loaded


def _live_data_files(moto: MotoS3, metadata: dict[str, Any]) -> list[str]:
    """Paths of the data files live in the current snapshot's manifests (read with fastavro)."""
    from commit_race import live_data_files

    return live_data_files(lambda location: moto.get(BUCKET, _key(location)), metadata)


def test_namespaces_tables_insert_select(
    spark: SparkSession, s3_catalog: str, moto_s3: MotoS3
) -> None:
    spark.sql(f"CREATE NAMESPACE {s3_catalog}.empty_ns")
    spark.sql(f"CREATE NAMESPACE {s3_catalog}.basic")
    namespaces = {r[0] for r in spark.sql(f"SHOW NAMESPACES IN {s3_catalog}").collect()}
    assert {"empty_ns", "basic"} <= namespaces  # an empty namespace is listed: S3A keeps a marker
    spark.sql(f"CREATE TABLE {s3_catalog}.basic.t (id BIGINT, name STRING) USING floe")
    spark.sql(f"INSERT INTO {s3_catalog}.basic.t VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {s3_catalog}.basic.t VALUES (3, 'c')")
    assert rows(spark, f"SELECT * FROM {s3_catalog}.basic.t ORDER BY id") == [
        (1, "a"),
        (2, "b"),
        (3, "c"),
    ]
    assert [r[1] for r in spark.sql(f"SHOW TABLES IN {s3_catalog}.basic").collect()] == ["t"]
    keys = _keys(moto_s3, "basic.t")
    assert _versions(moto_s3, "basic.t") == [1, 2, 3]
    assert "warehouse/basic/t/metadata/version-hint.text" in keys
    assert moto_s3.get(BUCKET, "warehouse/basic/t/metadata/version-hint.text") == b"3"
    assert not [k for k in keys if ".tmp" in k], keys  # published in place, no temporary files
    # the shared session's other catalog is untouched
    assert "basic" not in {r[0] for r in spark.sql("SHOW NAMESPACES IN floe").collect()}


@pytest.mark.parametrize("mode", ["copy-on-write", "merge-on-read"])
def test_row_level_dml(spark: SparkSession, s3_catalog: str, mode: str) -> None:
    check_row_level_dml(spark, s3_catalog, mode)


def test_procedures_and_analyze(spark: SparkSession, s3_catalog: str, moto_s3: MotoS3) -> None:
    table = check_rewrite_and_expire(spark, s3_catalog)
    orphan = "warehouse/procs/t/data/orphan.parquet"
    moto_s3.put(BUCKET, orphan, b"not referenced by any metadata")
    time.sleep(1.5)
    removed = spark.sql(
        f"CALL {s3_catalog}.system.remove_orphan_files(table => 'procs.t', "
        "older_than => current_timestamp(), allow_short_interval => true)"
    ).collect()
    assert [r.orphan_file_location for r in removed] == [f"s3a://{BUCKET}/{orphan}"]
    assert orphan not in _keys(moto_s3, "procs.t")
    assert rows(spark, f"SELECT * FROM {table} ORDER BY id") == [(i, f"v{i}") for i in range(5)]
    spark.sql(f"ANALYZE TABLE {table} COMPUTE STATISTICS FOR ALL COLUMNS")
    stats = [k for k in _keys(moto_s3, "procs.t", "metadata/") if k.endswith(".stats")]
    assert stats, "ANALYZE wrote no statistics file"


def test_rename_refused_and_drop_purge(
    spark: SparkSession, s3_catalog: str, moto_s3: MotoS3
) -> None:
    spark.sql(f"CREATE NAMESPACE {s3_catalog}.ddl")
    spark.sql(f"CREATE TABLE {s3_catalog}.ddl.t (id BIGINT) USING floe")
    spark.sql(f"INSERT INTO {s3_catalog}.ddl.t VALUES (1)")
    with pytest.raises(Exception, match=r"object store.*CREATE TABLE"):
        spark.sql(f"ALTER TABLE {s3_catalog}.ddl.t RENAME TO {s3_catalog}.ddl.u")
    assert rows(spark, f"SELECT * FROM {s3_catalog}.ddl.t") == [(1,)]
    assert not _keys(moto_s3, "ddl.u")
    spark.sql(f"DROP TABLE {s3_catalog}.ddl.t PURGE")
    assert _keys(moto_s3, "ddl.t") == []
    assert [r[1] for r in spark.sql(f"SHOW TABLES IN {s3_catalog}.ddl").collect()] == []


def test_store_without_conditional_writes(spark: SparkSession, s3_catalog: str) -> None:
    spark.sql("CREATE NAMESPACE floe_s3_nocond.ns")
    with pytest.raises(Exception, match=r"conditional writes.*object-store-commits=unsafe-rename"):
        spark.sql("CREATE TABLE floe_s3_nocond.ns.t (id BIGINT) USING floe")
    assert spark.sql("SHOW TABLES IN floe_s3_nocond.ns").collect() == []
    # the explicit opt-in commits by rename (unsafe with concurrent writers; see the race below)
    spark.sql("CREATE NAMESPACE floe_s3_unsafe.ns")
    spark.sql("CREATE TABLE floe_s3_unsafe.ns.t (id BIGINT) USING floe")
    spark.sql("INSERT INTO floe_s3_unsafe.ns.t VALUES (7)")
    assert rows(spark, "SELECT * FROM floe_s3_unsafe.ns.t") == [(7,)]


def test_request_counts(spark: SparkSession, s3_catalog: str, moto_s3: MotoS3) -> None:
    """The S3 requests of one append commit and of one cold table load (docs/object-stores.md)."""
    spark.sql(f"CREATE NAMESPACE {s3_catalog}.counted")
    spark.sql(f"CREATE TABLE {s3_catalog}.counted.t (id BIGINT) USING floe")
    spark.sql(f"INSERT INTO {s3_catalog}.counted.t VALUES (1)")
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    fmt = jvm.io.floe.format
    hadoop = spark.sparkContext._jsc.hadoopConfiguration()
    ident = fmt.catalog.TableIdentifier.of(jvm.java.util.List.of("counted"), "t")

    def fresh_catalog() -> Any:
        return fmt.catalog.FileSystemCatalog(jvm.io.floe.spark.HadoopFileIO(hadoop), WAREHOUSE)

    start = moto_s3.log_offset()
    ops = fresh_catalog().loadTable(ident)
    load = moto_s3.requests_since(start)
    data_file = (
        fmt.manifest.DataFile.builder(ops.current().spec())
        .withPath(f"{WAREHOUSE}/counted/t/data/extra.parquet")
        .withFormat("PARQUET")
        .withRecordCount(1)
        .withFileSizeInBytes(100)
        .build()
    )
    start = moto_s3.log_offset()
    fmt.commit.AppendFiles(ops).appendFile(data_file).commit()
    commit = moto_s3.requests_since(start)
    print(
        f"\nS3 requests of a cold table load ({len(load)}): {Counter(r.split()[0] for r in load)}"
    )
    print("  " + "\n  ".join(load))
    print(
        f"S3 requests of an append commit ({len(commit)}): {Counter(r.split()[0] for r in commit)}"
    )
    print("  " + "\n  ".join(commit))
    puts = [r for r in commit if r.startswith("PUT ") and VERSION_FILE.search(r)]
    assert len(puts) == 1  # the new version: one conditional PUT, no copy, no rename
    assert not [r for r in commit if "x-amz-copy-source" in r or r.startswith("POST ")]
    assert len(load) <= 6, load
    assert len(commit) <= 16, commit


def test_planning_reads_each_manifest_with_one_get(
    spark: SparkSession, s3_catalog: str, moto_s3: MotoS3
) -> None:
    """Planning a scan reads each manifest with one GET and no HEAD (its length comes from the
    manifest list); planning the same snapshot again reads no manifest at all (ManifestCache)."""
    spark.sql(f"CREATE NAMESPACE {s3_catalog}.planned")
    spark.sql(f"CREATE TABLE {s3_catalog}.planned.t (id BIGINT) USING floe")
    for i in range(3):
        spark.sql(f"INSERT INTO {s3_catalog}.planned.t VALUES ({i})")
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    fmt = jvm.io.floe.format
    hadoop = spark.sparkContext._jsc.hadoopConfiguration()
    catalog = fmt.catalog.FileSystemCatalog(jvm.io.floe.spark.HadoopFileIO(hadoop), WAREHOUSE)
    ops = catalog.loadTable(fmt.catalog.TableIdentifier.of(jvm.java.util.List.of("planned"), "t"))
    metadata = ops.current()
    listed = fmt.manifest.ManifestLists.read(
        ops.io().newInputFile(metadata.currentSnapshot().manifestListLocation())
    )
    manifests = [_key(m.path()) for m in listed]
    assert len(manifests) == 3
    cache = fmt.scan.ManifestCache(1 << 26)

    def plan() -> tuple[int, list[str]]:
        start = moto_s3.log_offset()
        tasks = fmt.scan.TableScan.of(ops.io(), metadata).manifestCache(cache).planFiles().tasks()
        return int(tasks.size()), moto_s3.requests_since(start)

    files, cold = plan()
    assert files == 3
    for key in manifests:
        assert [r.split()[0] for r in cold if key in r] == ["GET"], cold
    files, warm = plan()
    assert files == 3
    assert not [r for r in warm if any(key in r for key in manifests)], warm


@pytest.mark.parametrize("name", ["t", "`t é $x`"])
def test_a_scan_opens_each_data_file_without_a_head(
    spark: SparkSession, s3_catalog: str, moto_s3: MotoS3, name: str
) -> None:
    """A scan reads each data file with GETs alone: the file's length comes from the manifest,
    so no HEAD request is made to learn it (on S3, a round trip per file and task); and a file
    smaller than the tail Floe reads at once (64 KB) costs a single GET. Also for a table whose
    name needs quoting in keys (space, `$`, non-ASCII)."""
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {s3_catalog}.scanned")
    table = f"{s3_catalog}.scanned.{name}"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, s STRING) USING floe")
    rows = spark.range(300).selectExpr("id", "CAST(id AS STRING) AS s").repartition(3)
    rows.writeTo(table).append()
    files = spark.sql(f"SELECT file_path, file_size_in_bytes FROM {table}.files").collect()
    assert len(files) == 3 and all(f.file_size_in_bytes < 64 * 1024 for f in files)
    keys = [_key(f.file_path) for f in files]
    start = moto_s3.log_offset()
    answer = spark.sql(f"SELECT count(*), sum(id), max(s) FROM {table}").collect()[0]
    requests = moto_s3.requests_since(start)
    assert tuple(answer) == (300, 44850, "99")
    for key in keys:  # moto logs the request path percent-encoded as the client sent it
        assert [r.split()[0] for r in requests if key in unquote(r)] == ["GET"], (key, requests)


def test_add_files_reads_each_footer_with_one_get(
    spark: SparkSession, s3_catalog: str, moto_s3: MotoS3
) -> None:
    """add_files takes each file's length from the listing and reads its footer with the tail of
    the file in one GET: no HEAD, one GET per file."""
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {s3_catalog}.imported")
    table = f"{s3_catalog}.imported.t"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, s STRING) USING floe")
    source = f"{WAREHOUSE}/imported/t/data/imported"
    rows = spark.range(300).selectExpr("id", "CAST(id AS STRING) AS s")
    rows.repartition(3).write.parquet(source)
    keys = [k for k in _keys(moto_s3, "imported.t", "data/imported/") if k.endswith(".parquet")]
    assert len(keys) == 3
    start = moto_s3.log_offset()
    row = spark.sql(
        f"CALL {s3_catalog}.system.add_files(table => 'imported.t', "
        f"source_table => '`parquet`.`{source}`')"
    ).collect()[0]
    requests = moto_s3.requests_since(start)
    assert row.added_files_count == 3
    for key in keys:
        assert [r.split()[0] for r in requests if key in r] == ["GET"], requests
    assert spark.sql(f"SELECT count(*), sum(id) FROM {table}").collect()[0] == (300, 44850)


@pytest.mark.parametrize("version", [2, 3])
def test_a_scan_opens_delete_files_without_a_head(
    spark: SparkSession, s3_catalog: str, moto_s3: MotoS3, version: int
) -> None:
    """The delete files a scan applies (v2: Parquet position deletes; v3: deletion vectors in
    Puffin files) are opened with their manifest lengths too: GETs, no HEAD."""
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {s3_catalog}.deleted")
    table = f"{s3_catalog}.deleted.t{version}"
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT) USING floe TBLPROPERTIES ('format-version'='{version}', "
        "'write.delete.mode'='merge-on-read')"
    )
    spark.range(300).repartition(3).writeTo(table).append()
    spark.sql(f"DELETE FROM {table} WHERE id % 10 = 0")
    deletes = [
        _key(r.file_path)
        for r in spark.sql(f"SELECT file_path FROM {table}.delete_files").collect()
    ]
    assert deletes
    start = moto_s3.log_offset()
    answer = spark.sql(f"SELECT count(*), sum(id) FROM {table}").collect()[0]
    requests = moto_s3.requests_since(start)
    assert tuple(answer) == (270, 44850 - 4350)
    for key in deletes:
        methods = [r.split()[0] for r in requests if key in r]
        assert methods and set(methods) == {"GET"}, requests


def _race(
    moto: MotoS3,
    spark: SparkSession,
    s3_jars: S3Jars,
    table: str,
    publisher: str,
    tmp: Path,
    appends: int = APPENDS_PER_WRITER,
) -> tuple[RaceResult, StormVerdict]:
    """Race WRITERS processes of ``appends`` appends each (the R1 storm's writers and oracle)."""
    from commit_race import run_append_race
    from reliability_commit_storm import check_storm
    from s3_runtime import hadoop_s3a_conf

    namespace, name = table.split(".")
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {CATALOG}.{namespace}")
    spark.sql(
        f"CREATE TABLE {CATALOG}.{table} (id BIGINT) USING floe TBLPROPERTIES ({RACE_PROPERTIES})"
    )
    race = run_append_race(
        warehouse=WAREHOUSE,
        namespace=namespace,
        table=name,
        processes=WRITERS,
        appends=appends,
        tmp=tmp,
        timeout_s=WORKER_TIMEOUT_S,
        publisher=publisher,
        hadoop_conf=hadoop_s3a_conf(moto.endpoint),
        extra_jars=s3_jars.jars,
    )
    verdict = check_storm(
        race.acks,
        metadata_dir=f"{WAREHOUSE}/{namespace}/{name}/metadata",
        metadata_names=_keys(moto, table, "metadata/"),
        read=lambda location: moto.get(BUCKET, _key(location)),
    )
    return race, verdict


def test_commit_race_loses_nothing(
    spark: SparkSession, s3_catalog: str, s3_jars: S3Jars, moto_s3: MotoS3, tmp_path: Path
) -> None:
    """R1 on S3: 4 processes x 50 appends, each with its own JVM and S3A client."""
    from reliability_commit_storm import assert_no_loss, record_storm

    started = time.monotonic()
    race, verdict = _race(moto_s3, spark, s3_jars, "race.safe", "safe", tmp_path)
    total = WRITERS * APPENDS_PER_WRITER
    record_storm("s3", race, verdict, started)
    assert_no_loss(race, verdict, writers=WRITERS, total=total)


@pytest.mark.skipif(
    not FULL_SCALE, reason="runs with FLOE_TEST_SCALE=full (R1c's local negative control always)"
)
def test_commit_race_negative_control_unsafe_rename(
    spark: SparkSession, s3_catalog: str, s3_jars: S3Jars, moto_s3: MotoS3, tmp_path: Path
) -> None:
    """Without conditional creates (unsafe-rename), racing writers overwrite each other."""
    from reliability_figures import record

    _, verdict = _race(
        moto_s3, spark, s3_jars, "race.unsafe", "unsafe-rename", tmp_path,
        CONTROL_APPENDS_PER_WRITER,
    )  # fmt: skip
    record("R1", s3_unsafe_rename_acked=verdict.acked, s3_unsafe_rename_lost=verdict.lost)
    print(f"\nunsafe-rename: {verdict.acked} acknowledged, {verdict.lost} lost, "
          f"{verdict.claimed_twice} versions claimed by two writers")  # fmt: skip
    assert verdict.lost and verdict.claimed_twice


def _index_keys(moto: MotoS3, table: str) -> list[str]:
    return _keys(moto, table, "metadata/_floe_indexes/")


def _index_requests(requests: list[str]) -> list[str]:
    return [r for r in requests if "/_floe_indexes/" in r]


def test_indexes(spark: SparkSession, s3_catalog: str, moto_s3: MotoS3) -> None:
    """CREATE INDEX, a pruned lookup, an append keeping it current, DROP INDEX, expiry and orphan
    removal on S3: index files are written in place (each PUT once to its final key, nothing
    copied, renamed or deleted on the way) and read back through S3A."""
    table = f"{s3_catalog}.idx.t"
    spark.sql(f"CREATE NAMESPACE {s3_catalog}.idx")
    spark.sql(f"CREATE TABLE {table} (id BIGINT, k INT) USING floe")
    for f in range(3):  # file f holds the ids and the k = id % 39 that are f modulo 3
        spark.sql(
            f"INSERT INTO {table} SELECT /*+ COALESCE(1) */ id * 3 + {f}, "
            f"CAST((id * 3 + {f}) % 39 AS INT) FROM range(40)"
        )
    start = moto_s3.log_offset()
    spark.sql(f"CREATE INDEX by_k ON {table} (k)")
    spark.sql(f"CREATE INDEX gone ON {table} USING btree (id)")
    requests = _index_requests(moto_s3.requests_since(start))
    keys = _index_keys(moto_s3, "idx.t")
    puts = [r.split()[1].split("?")[0] for r in requests if r.startswith("PUT ")]
    assert sorted(p.split(f"/{BUCKET}/", 1)[1] for p in puts) == sorted(keys), requests
    assert not [r for r in requests if r.startswith(("DELETE ", "POST "))], requests
    assert len([k for k in keys if k.endswith(".puffin")]) == 2
    assert len([k for k in keys if "/index-list-" in k]) == 2

    def lookup(where: str) -> tuple[list[int], int]:
        ids = sorted(r[0] for r in spark.sql(f"SELECT id FROM {table} WHERE {where}").collect())
        report = spark._jvm.io.floe.spark.source.ScanReports.lastAsJson(table)  # type: ignore[union-attr]
        return ids, sum(json.loads(str(report))["index-pruned-files"].values())

    # every file's bounds hold the value: only the index skips the two files without it
    assert lookup("k = 13") == ([13, 52, 91], 2)
    assert lookup("k = 14") == ([14, 53, 92], 2)
    assert lookup("id = 7") == ([7], 2)
    assert lookup("k = 20 AND id < 100") == ([20, 59, 98], 2)
    # one more file whose k bounds span every value; its commit adds a segment per index
    spark.sql(
        f"INSERT INTO {table} SELECT /*+ COALESCE(1) */ * FROM VALUES (1000L, 0), (1001L, 38)"
    )
    coverage = f"SELECT name, covered_files, live_files, segments, problem FROM {table}.indexes"
    assert sorted(rows(spark, coverage)) == [("by_k", 4, 4, 2, None), ("gone", 4, 4, 2, None)]
    assert lookup("k = 13") == ([13, 52, 91], 3)
    assert lookup("k = 2") == ([2, 41, 80, 119], 3)
    assert lookup("k = 38") == ([38, 77, 116, 1001], 0)  # bounds skip files 0 and 1

    spark.sql(f"DROP INDEX gone ON {table}")
    spark.sql(f"CALL {s3_catalog}.system.rewrite_index('idx.t', 'by_k')").collect()
    spark.sql(
        f"ALTER TABLE {table} SET TBLPROPERTIES ('write.metadata.previous-versions-max' = '1', "
        "'write.metadata.delete-after-commit.enabled' = 'true')"
    )
    spark.sql(
        f"CALL {s3_catalog}.system.expire_snapshots(table => 'idx.t', retain_last => 1, "
        "older_than => TIMESTAMP '2999-01-01 00:00:00')"
    ).collect()
    # what the current index list names is all that is left, and every file it names is there
    metadata = _current_metadata(moto_s3, "idx.t")
    index_list = json.loads(moto_s3.get(BUCKET, _key(metadata["properties"]["floe.indexes"])))
    (by_k,) = index_list["indexes"]
    live = {_key(metadata["properties"]["floe.indexes"])} | {
        _key(s["path"]) for s in by_k["segments"]
    }
    # (S3A writes an empty marker "gone/" when it deletes the last file under that prefix)
    left = [k for k in _index_keys(moto_s3, "idx.t") if not k.endswith("/")]
    assert sorted(left) == sorted(live)
    assert rows(spark, coverage) == [("by_k", 4, 4, 1, None)]
    assert lookup("k = 13") == ([13, 52, 91], 3)
    time.sleep(1.5)
    spark.sql(
        f"CALL {s3_catalog}.system.remove_orphan_files(table => 'idx.t', "
        "older_than => current_timestamp(), allow_short_interval => true)"
    ).collect()
    assert sorted(k for k in _index_keys(moto_s3, "idx.t") if not k.endswith("/")) == sorted(live)
    assert lookup("k = 13") == ([13, 52, 91], 3)
