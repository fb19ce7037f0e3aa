"""Floe through Spark Connect (docs/connect.md): `floe connect` and a `floe.connect(...)` client.

One `floe connect` server for the module (stopped by the last test, with SIGINT to its pid, as
Ctrl-C would): DDL, INSERT, writeTo create/append/overwritePartitions, a partitioned copy of a
table without the shuffle, DataFrame mergeInto,
DELETE/UPDATE/MERGE, CALL, ANALYZE, CREATE INDEX, time travel, metadata tables and classed errors,
all from a Connect client. The launcher's rules (loopback only unless authenticated) and the
missing-client-packages error need no server.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import sql_runner
from class_data_sharing import with_archive

import floe
from floe import cli
from floe.errors import FloeError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

RUNNER = sql_runner.load()


@dataclass(frozen=True)
class Server:
    process: subprocess.Popen[bytes]
    url: str
    warehouse: Path
    log: Path


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`floe connect` on a free port of 127.0.0.1 (its default --host), Floe the default catalog."""
    workdir = tmp_path_factory.mktemp("connect")
    port = RUNNER._free_port()
    log_path = workdir / "connect-server.log"
    command = [
        sys.executable, "-m", "floe.cli", "connect",
        "--port", str(port),
        "--warehouse", str(workdir / "warehouse"),
        "--master", "local[2]",
        "--conf", f"spark.sql.warehouse.dir={workdir / 'spark-warehouse'}",
        *[a for k, v in with_archive(RUNNER.SESSION_CONF).items() for a in ("--conf", f"{k}={v}")],
    ]  # fmt: skip
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=workdir, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            RUNNER._wait_for_port(port, process, log_path)
            yield Server(process, f"sc://localhost:{port}", workdir / "warehouse", log_path)
        finally:
            RUNNER._stop(process)


@pytest.fixture(scope="module")
def remote(server: Server) -> Iterator[SparkSession]:
    """A Spark Connect session on the module's server (PySpark's Connect mode only meanwhile)."""
    with RUNNER.connect_mode():
        session = floe.connect(server.url, conf={"spark.sql.session.timeZone": "UTC"})
        session.sql("CREATE NAMESPACE IF NOT EXISTS db")
        yield session
        if not getattr(session, "is_stopped", False):  # the last test stops it first
            session.stop()


def _rows(session: SparkSession, sql: str) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in session.sql(sql).collect()]


def test_ddl_insert_and_write_to(remote: SparkSession) -> None:
    remote.sql("CREATE TABLE db.w (id BIGINT, part STRING) USING floe PARTITIONED BY (part)")
    remote.sql("INSERT INTO db.w VALUES (1, 'a'), (2, 'b')")
    assert _rows(remote, "SELECT current_catalog()") == [("floe",)]
    df = remote.createDataFrame([(3, "c")], "id bigint, part string")
    df.writeTo("db.w").append()
    df.writeTo("db.w_copy").using("floe").partitionedBy("part").create()
    replacement = remote.createDataFrame([(10, "a"), (11, "a")], "id bigint, part string")
    replacement.writeTo("db.w").overwritePartitions()
    assert _rows(remote, "SELECT id, part FROM floe.db.w ORDER BY id") == [
        (2, "b"), (3, "c"), (10, "a"), (11, "a"),
    ]  # fmt: skip
    assert _rows(remote, "SELECT * FROM db.w_copy") == [(3, "c")]
    operations = remote.table("db.w.snapshots").orderBy("committed_at").select("operation")
    assert [r[0] for r in operations.collect()] == ["append", "append", "overwrite"]
    # overwritePartitions replaced the file of partition a only
    assert _rows(remote, "SELECT partition.part FROM db.w.files ORDER BY 1") == [
        ("a",), ("b",), ("c",),
    ]  # fmt: skip
    described = _rows(remote, "DESCRIBE TABLE db.w")
    assert ("part", "string", None) in described


def test_a_partitioned_copy_of_a_floe_table_skips_the_shuffle(remote: SparkSession) -> None:
    # README "Writing": each key's files read together by one task, no Exchange in the write
    remote.sql("CREATE TABLE db.src (id BIGINT, part STRING) USING floe PARTITIONED BY (part)")
    for i in range(2):  # two files in each partition
        remote.sql(
            "INSERT INTO db.src SELECT id, "
            f"element_at(array('a', 'b', 'c'), CAST(id % 3 AS INT) + 1) FROM range({i}, 300, 2)"
        )
    assert len(_rows(remote, "SELECT * FROM db.src.files")) == 6
    remote.conf.set("spark.floe.read.local-max-rows", "0")  # read by a Spark job, not the driver
    try:
        plan = _rows(remote, "EXPLAIN INSERT INTO db.src SELECT * FROM db.src")[0][0]
        assert "Exchange" not in plan and "groupedBy=[part]" in plan, plan
        remote.table("db.src").writeTo("db.src_copy").using("floe").partitionedBy("part").create()
    finally:
        remote.conf.unset("spark.floe.read.local-max-rows")
    per_file = "SELECT partition.part, record_count FROM db.src_copy.files ORDER BY 1"
    assert _rows(remote, per_file) == [("a", 100), ("b", 100), ("c", 100)]
    assert _rows(remote, "SELECT count(*), sum(id) FROM db.src_copy") == [(300, sum(range(300)))]


def test_row_level_statements_and_merge_into(remote: SparkSession) -> None:
    from pyspark.sql.functions import col

    remote.sql("CREATE TABLE db.r (id BIGINT, v STRING) TBLPROPERTIES ('write.delete.mode' = "
               "'merge-on-read', 'write.update.mode' = 'copy-on-write')")  # fmt: skip
    rows = remote.createDataFrame([(1, "one"), (2, "two"), (3, "three")], "id bigint, v string")
    rows.coalesce(1).writeTo("db.r").append()  # one file, so DELETE cannot drop a whole file
    remote.sql("DELETE FROM db.r WHERE id = 1")
    assert remote.table("db.r.delete_files").count() == 1  # merge-on-read: a deletion vector
    remote.sql("UPDATE db.r SET v = 'TWO' WHERE id = 2")
    remote.sql(
        "MERGE INTO db.r t USING (SELECT 3 AS id, 'drei' AS v UNION ALL SELECT 4, 'vier') s "
        "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    )
    source = remote.createDataFrame([(4, "four"), (5, "five")], "id bigint, v string")
    (
        source.alias("s")
        .mergeInto("db.r", col("db.r.id") == col("s.id"))
        .whenMatched()
        .updateAll()
        .whenNotMatched()
        .insertAll()
        .merge()
    )
    assert _rows(remote, "SELECT * FROM db.r ORDER BY id") == [
        (2, "TWO"), (3, "drei"), (4, "four"), (5, "five"),
    ]  # fmt: skip


def test_procedures_analyze_indexes_and_time_travel(remote: SparkSession, server: Server) -> None:
    from floe import inspect

    remote.sql("CREATE TABLE db.p (id BIGINT, name STRING)")
    remote.sql("INSERT INTO db.p VALUES (1, 'a')")
    first = remote.table("db.p.snapshots").select("snapshot_id").first()
    assert first is not None
    first_id = int(first[0])
    first_ms = remote.sql(
        f"SELECT unix_millis(committed_at) FROM db.p.snapshots WHERE snapshot_id = {first_id}"
    ).first()
    assert first_ms is not None
    remote.sql("INSERT INTO db.p VALUES (2, 'b')")

    by_id = remote.read.option("snapshot-id", str(first_id)).table("db.p")
    assert [tuple(r) for r in by_id.collect()] == [(1, "a")]
    by_time = remote.read.option("as-of-timestamp", str(first_ms[0])).table("db.p")
    assert by_time.count() == 1
    assert _rows(remote, f"SELECT id FROM db.p VERSION AS OF {first_id}") == [(1,)]

    remote.sql("ANALYZE TABLE db.p COMPUTE STATISTICS FOR ALL COLUMNS")
    metadata = inspect.load_table_metadata(str(server.warehouse / "db" / "p"))
    analyzed = [s["snapshot-id"] for s in metadata.get("statistics", [])]
    assert analyzed == [metadata["current-snapshot-id"]]
    remote.sql("CREATE INDEX by_id ON db.p USING btree (id)")
    indexes = _rows(remote, "SELECT name, type, live_files FROM db.p.indexes")
    assert indexes == [("by_id", "btree", 2)]

    rolled = _rows(remote, f"CALL floe.system.rollback_to_snapshot('db.p', {first_id})")
    assert rolled[0][1] == first_id
    assert _rows(remote, "SELECT id FROM db.p") == [(1,)]


def _classed(action: Callable[[], object]) -> tuple[str | None, str | None, str]:
    """Run ``action``; return the condition, SQLSTATE and message of the Connect error it raises."""
    from pyspark.errors.exceptions.connect import AnalysisException

    with pytest.raises(AnalysisException) as raised:
        action()
    error = raised.value
    return error.getCondition(), error.getSqlState(), error.getMessage()


def test_errors_arrive_classed_with_floes_message(remote: SparkSession) -> None:
    remote.sql("CREATE TABLE db.e (id INT, day DATE) PARTITIONED BY (day)")
    remote.sql("INSERT INTO db.e VALUES (1, DATE '2024-01-01')")
    version = _classed(lambda: remote.sql("SELECT * FROM db.e VERSION AS OF 12345").collect())
    assert version[:2] == ("FLOE_SNAPSHOT_NOT_FOUND", "42704")
    assert version[2].startswith(
        "[FLOE_SNAPSHOT_NOT_FOUND] Cannot time travel table floe.db.e to version 12345"
    ), version[2]
    option = _classed(lambda: remote.read.option("as-of-timestamp", "soon").table("db.e").count())
    assert option[:2] == ("FLOE_OPTION_INVALID", "22023")
    assert "as-of-timestamp" in option[2] and "'soon'" in option[2]
    call = _classed(lambda: remote.sql("CALL floe.system.set_current_snapshot(table => 'db.e')"))
    assert call[:2] == ("FLOE_PROCEDURE_ARGUMENT_INVALID", "22023")
    assert "set_current_snapshot" in call[2] and "snapshot_id" in call[2]
    missing = _classed(lambda: remote.table("db.e.nope").count())
    assert missing[:2] == ("FLOE_METADATA_TABLE_NOT_FOUND", "42P01")
    assert "floe.db.e.nope" in missing[2]
    # Spark's own class where one fits
    assert _classed(lambda: remote.table("db.none").count())[0] == "TABLE_OR_VIEW_NOT_FOUND"
    # the failed statements changed nothing
    assert _rows(remote, "SELECT count(*) FROM db.e.snapshots") == [(1,)]


def test_connect_without_the_client_packages_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "grpc", None)  # `import grpc` fails as if not installed
    with pytest.raises(FloeError, match=r"pip install 'floe-spark\[connect\]'") as raised:
        floe.connect("sc://localhost:1")
    assert "grpcio" in str(raised.value)
    with pytest.raises(FloeError, match="Invalid Spark Connect URL 'localhost:15002'"):
        floe.connect("localhost:15002")


def test_launcher_listens_on_loopback_unless_authenticated(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SPARK_CONNECT_AUTHENTICATE_TOKEN", raising=False)
    command = cli.connect_command("/w", "floe", 15002, "127.0.0.1", [])
    assert command[command.index("--class") + 1] == cli.CONNECT_SERVER_CLASS
    assert "spark.connect.grpc.binding.address=127.0.0.1" in command
    assert "spark.connect.grpc.binding.port=15002" in command
    assert "spark.sql.defaultCatalog=floe" in command
    assert "spark.sql.catalog.floe.warehouse=file:///w" in command
    for host in ("0.0.0.0", "::", "192.0.2.10"):
        with pytest.raises(FloeError, match="without authentication") as err:
            cli.connect_command("/w", "floe", 15002, host, [])
        assert repr(host) in str(err.value) and "--allow-unauthenticated" in str(err.value)
    assert cli.main(["connect", "--host", "0.0.0.0", "--warehouse", "/w"]) == 1
    assert "Refusing to start the Spark Connect server on '0.0.0.0'" in capsys.readouterr().err
    # --host and --port are the only way to choose the address
    with pytest.raises(FloeError, match=r"spark\.connect\.grpc\.binding\.address"):
        cli.connect_command(
            "/w", "floe", 1, "127.0.0.1", ["--conf", "spark.connect.grpc.binding.address=0.0.0.0"]
        )
    # a token, or the explicit opt-out, allow other interfaces
    token = ["--conf", "spark.connect.authenticate.token=s3cret"]
    assert "spark.connect.grpc.binding.address=0.0.0.0" in cli.connect_command(
        "/w", "floe", 1, "0.0.0.0", token
    )
    assert cli.connect_command("/w", "floe", 1, "0.0.0.0", [], allow_unauthenticated=True)
    monkeypatch.setenv("SPARK_CONNECT_AUTHENTICATE_TOKEN", "s3cret")
    assert cli.connect_command("/w", "floe", 1, "0.0.0.0", [])


def test_sigint_stops_the_server_cleanly(server: Server, remote: SparkSession) -> None:
    """Last test of the module: Ctrl-C (SIGINT to `floe connect`) stops the server, exit code 0."""
    assert _rows(remote, "SELECT 1") == [(1,)]
    remote.stop()  # a client left open would retry against the stopped server for minutes
    os.kill(server.process.pid, signal.SIGINT)
    assert server.process.wait(timeout=90) == 0
    port = int(server.url.rsplit(":", 1)[1])
    log = server.log.read_text(encoding="utf-8", errors="replace")
    assert f"floe: Spark Connect server listening on sc://127.0.0.1:{port}" in log
    assert "floe: server stopped" in log
    assert "Successfully stopped SparkContext" in log
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2)
