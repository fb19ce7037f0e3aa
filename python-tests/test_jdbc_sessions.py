"""JDBC, hardened (issue 16): concurrent JDBC sessions writing one table, and errors as JDBC
clients see them.

One `floe thriftserver` (bound to 127.0.0.1, started as sql-tests/run.py starts it, stopped by pid)
serves the module on this run's warehouse. Each JDBC session is Hive's JDBC driver in this
session's JVM (through py4j), one connection per Python thread. See docs/jdbc.md.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import sql_runner
from class_data_sharing import with_archive
from conftest import region_folders, scaled

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SESSIONS = 4
INSERTS = scaled(25, 10)
#: A line of a Java stack trace, which a statement run synchronously never shows in its error
#: message (docs/jdbc.md, 'Errors').
STACK_FRAME = "\n\tat "
#: How the message of a failed statement starts: the error class, then the exception's text.
MESSAGE_START = "Error running query: [{}] "


@pytest.fixture(scope="module")
def port(warehouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """`floe thriftserver` on 127.0.0.1 and this run's warehouse, running statements
    synchronously (as PyHive's clients ask; Hive's JDBC driver asks for asynchronous runs, whose
    errors test_reliability_r2_surfaces.py sees); yields its port."""
    runner = sql_runner.load()
    workdir = tmp_path_factory.mktemp("jdbc-sessions")
    server_port = runner._free_port()
    log_path = workdir / "thriftserver.log"
    conf = with_archive(runner.SESSION_CONF)
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            [
                sys.executable, "-m", "floe.cli", "thriftserver",
                "--host", "127.0.0.1", "--port", str(server_port),
                "--warehouse", str(warehouse), "--master", "local[2]",
                # run each statement in the call that submits it, as PyHive asks for
                "--conf", "spark.sql.hive.thriftServer.async=false",
                "--conf", f"spark.sql.warehouse.dir={workdir / 'spark-warehouse'}",
                *[a for k, v in conf.items() for a in ("--conf", f"{k}={v}")],
            ],
            cwd=workdir, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        runner._wait_for_port(server_port, server, log_path)
        yield server_port
    finally:
        runner._stop(server)


def _connect(spark: SparkSession, port: int) -> Any:
    """A new JDBC connection (Hive's driver in this session's JVM), retried while the server
    warms up."""
    jvm: Any = spark._jvm
    properties = jvm.java.util.Properties()
    properties.setProperty("user", "floe")
    driver = jvm.org.apache.hive.jdbc.HiveDriver()
    deadline = time.monotonic() + 60
    while True:
        try:
            return driver.connect(f"jdbc:hive2://127.0.0.1:{port}/", properties)
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)


def _execute(connection: Any, sql: str) -> None:
    statement = connection.createStatement()
    try:
        statement.execute(sql)
    finally:
        statement.close()


def _rows(connection: Any, sql: str) -> list[tuple[str, ...]]:
    statement = connection.createStatement()
    try:
        result = statement.executeQuery(sql)
        width = result.getMetaData().getColumnCount()
        rows = []
        while result.next():
            rows.append(tuple(str(result.getString(c)) for c in range(1, width + 1)))
        return rows
    finally:
        statement.close()


class JdbcError:
    """What a JDBC client holds of a failed statement: the SQLException's message and SQLSTATE."""

    def __init__(self, error: BaseException) -> None:
        java = getattr(error, "java_exception", None)
        assert java is not None, f"not a Java error: {error!r}"
        self.java_class = str(java.getClass().getName())
        self.message = str(java.getMessage())
        self.sql_state = str(java.getSQLState())


def _jdbc_error(connection: Any, sql: str) -> JdbcError:
    with pytest.raises(Exception) as raised:
        _execute(connection, sql)
    return JdbcError(raised.value)


def _in_sessions(
    spark: SparkSession, port: int, work: Callable[[Any, int], None]
) -> list[BaseException]:
    """Run ``work(connection, session)`` in SESSIONS threads at once, each with its own connection;
    return what the threads raised that ``work`` did not handle."""
    connections = [_connect(spark, port) for _ in range(SESSIONS)]
    start = threading.Barrier(SESSIONS)
    failures: list[BaseException] = []

    def run(session: int) -> None:
        try:
            start.wait()
            work(connections[session], session)
        except BaseException as e:  # reported by the caller
            failures.append(e)

    threads = [threading.Thread(target=run, args=(s,)) for s in range(SESSIONS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    for connection in connections:
        connection.close()
    return failures


def test_four_jdbc_sessions_insert_into_one_table_at_once(
    spark: SparkSession, port: int, namespace: str
) -> None:
    table = f"floe.{namespace}.sessions"
    admin = _connect(spark, port)
    _execute(
        admin,
        f"CREATE TABLE {table} (session INT, n INT) USING floe TBLPROPERTIES "
        "('commit.retry.num-retries' = '50', 'commit.retry.min-wait-ms' = '10', "
        "'commit.retry.max-wait-ms' = '200')",
    )

    def insert(connection: Any, session: int) -> None:
        for n in range(INSERTS):
            _execute(connection, f"INSERT INTO {table} VALUES ({session}, {n})")

    started = time.monotonic()
    failures = _in_sessions(spark, port, insert)
    assert failures == [], [str(f)[:2000] for f in failures]
    expected = {(str(s), str(n)) for s in range(SESSIONS) for n in range(INSERTS)}
    rows = _rows(admin, f"SELECT session, n FROM {table}")
    assert len(rows) == SESSIONS * INSERTS and set(rows) == expected
    # the same table as seen by another engine session (PySpark, on the shared warehouse)
    seen = {(str(r[0]), str(r[1])) for r in spark.table(table).collect()}
    assert seen == expected
    commits = _rows(admin, f"SELECT count(*) FROM {table}.snapshots WHERE operation = 'append'")
    assert commits == [(str(SESSIONS * INSERTS),)]
    admin.close()
    print(f"{SESSIONS}x{INSERTS} JDBC inserts in {time.monotonic() - started:.1f} s")


def test_a_partitioned_load_from_grouped_folders_skips_the_shuffle_over_jdbc(
    spark: SparkSession, port: int, namespace: str, tmp_path: Path
) -> None:
    """README "Writing": a load from Hive-style folders of one file each into a table partitioned
    by the folders' column runs without the hash shuffle, as a JDBC client sends it too."""
    source = region_folders(spark, tmp_path / "by-region", 3000)
    table = f"floe.{namespace}.loaded"
    connection = _connect(spark, port)
    _execute(connection, f"CREATE TABLE {table} (id BIGINT, region STRING) PARTITIONED BY (region)")
    insert = f"INSERT INTO {table} SELECT id, region FROM parquet.`{source}`"
    plan = "\n".join(row[0] for row in _rows(connection, f"EXPLAIN {insert}"))
    assert "AppendData" in plan and "Exchange" not in plan, plan
    _execute(connection, "SET `spark.floe.write.skip-shuffle-of-clustered-input` = false")
    shuffled = "\n".join(row[0] for row in _rows(connection, f"EXPLAIN {insert}"))
    assert "hashpartitioning(" in shuffled, shuffled
    _execute(connection, "RESET `spark.floe.write.skip-shuffle-of-clustered-input`")
    _execute(connection, insert)
    assert _rows(
        connection, f"SELECT region, count(*) FROM {table} GROUP BY region ORDER BY 1"
    ) == [
        ("ap", "1000"),
        ("eu", "1000"),
        ("us", "1000"),
    ]
    files = _rows(connection, f"SELECT partition.region FROM {table}.files ORDER BY 1")
    assert files == [("ap",), ("eu",), ("us",)]  # one file per partition
    # the same folders as a table of the session catalog, which tracks their partitions
    tracked = f"spark_catalog.default.{namespace}_tracked"
    _execute(
        connection,
        f"CREATE TABLE {tracked} (id BIGINT, region STRING) USING parquet "
        f"PARTITIONED BY (region) LOCATION '{source}'",
    )
    try:
        _execute(connection, f"MSCK REPAIR TABLE {tracked}")
        copy = f"floe.{namespace}.copied"
        _execute(
            connection, f"CREATE TABLE {copy} (id BIGINT, region STRING) PARTITIONED BY (region)"
        )
        load = f"INSERT INTO {copy} SELECT id, region FROM {tracked}"
        plan = "\n".join(row[0] for row in _rows(connection, f"EXPLAIN {load}"))
        assert "AppendData" in plan and "Exchange" not in plan, plan
        _execute(connection, load)
        per_file = f"SELECT partition.region, record_count FROM {copy}.files ORDER BY 1"
        assert _rows(connection, per_file) == [("ap", "1000"), ("eu", "1000"), ("us", "1000")]
    finally:
        _execute(connection, f"DROP TABLE IF EXISTS {tracked}")
    # a Floe table as the source, two files per partition, read by a Spark job: each partition's
    # files are read together by one task, without the shuffle, and written as one file
    try:
        _execute(connection, insert)
        _execute(connection, "SET `spark.floe.read.local-max-rows` = 0")
        twice = f"floe.{namespace}.twice"
        _execute(
            connection, f"CREATE TABLE {twice} (id BIGINT, region STRING) PARTITIONED BY (region)"
        )
        load = f"INSERT INTO {twice} SELECT id, region FROM {table}"
        plan = "\n".join(row[0] for row in _rows(connection, f"EXPLAIN {load}"))
        assert "Exchange" not in plan and "groupedBy=[region]" in plan, plan
        _execute(connection, load)
        per_file = f"SELECT partition.region, record_count FROM {twice}.files ORDER BY 1"
        assert _rows(connection, per_file) == [("ap", "2000"), ("eu", "2000"), ("us", "2000")]
    finally:
        connection.close()


def test_a_conflict_that_exhausts_retries_reaches_the_client_as_a_clear_error(
    spark: SparkSession, port: int, namespace: str
) -> None:
    """With no commit retries, concurrent inserts may lose the race: each loser gets Floe's
    commit-conflict error with its class and SQLSTATE, and exactly the winners' rows are there."""
    table = f"floe.{namespace}.noretry"
    admin = _connect(spark, port)
    _execute(admin, f"CREATE TABLE {table} (session INT, n INT) USING floe "
                    "TBLPROPERTIES ('commit.retry.num-retries' = '0')")  # fmt: skip
    landed: set[tuple[str, str]] = set()
    errors: list[JdbcError] = []
    lock = threading.Lock()

    def insert(connection: Any, session: int) -> None:
        for n in range(8):
            try:
                _execute(connection, f"INSERT INTO {table} VALUES ({session}, {n})")
                with lock:
                    landed.add((str(session), str(n)))
            except Exception as e:
                with lock:
                    errors.append(JdbcError(e))

    assert _in_sessions(spark, port, insert) == []
    assert set(_rows(admin, f"SELECT session, n FROM {table}")) == landed
    for error in errors:
        assert "[FLOE_COMMIT_CONFLICT]" in error.message, error.message
        assert error.sql_state == "40001", (error.sql_state, error.message)
        assert f"{namespace}.noretry" in error.message, error.message
        assert error.message.startswith(MESSAGE_START.format("FLOE_COMMIT_CONFLICT"))
        _check_message(error, f"{namespace}.noretry")
    admin.close()
    print(
        f"no-retry inserts: {len(landed)} landed, {len(errors)} refused with FLOE_COMMIT_CONFLICT"
    )


# (statement, error class, SQLSTATE, text the message must hold);
# {t} is a table with (id INT, s STRING) and one row
ERRORS = {
    "missing table": (
        "SELECT * FROM floe.{ns}.nope",
        "TABLE_OR_VIEW_NOT_FOUND",
        "42P01",
        "`{ns}`.`nope` cannot be found",
    ),
    "missing namespace": (
        "CREATE TABLE floe.{ns}_missing.y (id INT) USING floe",
        "SCHEMA_NOT_FOUND",
        "42704",
        "{ns}_missing",
    ),
    "bad table property": (
        "ALTER TABLE {t} SET TBLPROPERTIES ('write.format.default' = 'csv')",
        "FLOE_TABLE_PROPERTY_INVALID",
        "22023",
        "write.format.default",
    ),
    "schema mismatch on insert": (
        "INSERT INTO {t} VALUES (1, 'a', 'extra')",
        "INSERT_COLUMN_ARITY_MISMATCH.TOO_MANY_DATA_COLUMNS",
        "21S01",
        "{ns}",
    ),
    "bad procedure argument": (
        "CALL floe.system.expire_snapshots(table => '{ns}.t', retain_last => 0)",
        "FLOE_PROCEDURE_ARGUMENT_INVALID",
        "22023",
        "retain_last",
    ),
    "unknown procedure": (
        "CALL floe.system.no_such_procedure(table => '{ns}.t')",
        "FLOE_PROCEDURE_NOT_FOUND",
        "42883",
        "no_such_procedure",
    ),
    "bad procedure option": (
        "CALL floe.system.rewrite_data_files(table => '{ns}.t', strategy => 'zorder-please')",
        "FLOE_PROCEDURE_ARGUMENT_INVALID",
        "22023",
        "zorder-please",
    ),
    "missing column": (
        "SELECT nope FROM {t}",
        "UNRESOLVED_COLUMN.WITH_SUGGESTION",
        "42703",
        "nope",
    ),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_reach_jdbc_clients_with_floe_message_and_error_class(
    spark: SparkSession, port: int, namespace: str, case: str
) -> None:
    sql, condition, sql_state, text = (
        s.replace("{ns}", namespace).replace("{t}", f"floe.{namespace}.t") for s in ERRORS[case]
    )
    connection = _connect(spark, port)
    try:
        _execute(connection, f"CREATE TABLE floe.{namespace}.t (id INT, s STRING) USING floe")
        _execute(connection, f"INSERT INTO floe.{namespace}.t VALUES (1, 'a')")
        error = _jdbc_error(connection, sql)
    finally:
        connection.close()
    assert error.java_class.endswith("SQLException"), error.java_class
    assert error.message.startswith(MESSAGE_START.format(condition)), error.message[:2000]
    assert error.sql_state == sql_state, (error.sql_state, error.message[:2000])
    _check_message(error, text)


def _check_message(error: JdbcError, text: str) -> None:
    """The message names what is wrong (``text``) and holds no line of a stack trace."""
    assert text in error.message, error.message[:2000]
    assert STACK_FRAME not in error.message, error.message[:2000]
