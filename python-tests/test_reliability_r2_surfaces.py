"""R2d (docs/reliability.md, 'R2: conflicts'): a conflict seen by the client that lost it, through
PySpark and through JDBC (the Thrift server that sql-tests/run.py starts, on this run's warehouse).

Each case holds statement A at its commit (io.floe.spark.util.CommitGate: in this session's JVM for
PySpark, in the server's JVM through ``reflect`` for JDBC), commits a conflicting B through the
other surface, then releases A. The loser must get an error that names the table and the
conflict (no silent success); the table stays at B's snapshot with B's rows and no stray file.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import sql_runner
from class_data_sharing import with_archive
from reliability_figures import record
from row_level_tables import (
    COW,
    MOR,
    CommitHold,
    current_snapshot_id,
    error_condition,
    error_text,
    interleave,
    location,
    missing_files,
    orphan_files,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

HOOKS = "-Dfloe.test-hooks=true"
GATE = "'io.floe.spark.util.CommitGate'"


class Jdbc:
    """A JDBC client (Hive's driver, in this session's JVM through py4j) of the Thrift server."""

    def __init__(self, spark: SparkSession, port: int) -> None:
        jvm: Any = spark._jvm
        properties = jvm.java.util.Properties()
        properties.setProperty("user", "floe")
        driver = jvm.org.apache.hive.jdbc.HiveDriver()
        self._connect: Callable[[], Any] = lambda: driver.connect(
            f"jdbc:hive2://localhost:{port}/", properties
        )
        self.control = self._connect()  # arms and polls the gate while another statement runs

    def execute(self, sql: str) -> None:
        connection = self._connect()
        try:
            connection.createStatement().execute(sql)
        finally:
            connection.close()

    def value(self, sql: str) -> str:
        statement = self.control.createStatement()
        try:
            result = statement.executeQuery(sql)
            result.next()
            return str(result.getString(1))
        finally:
            statement.close()


class ServerHold:
    """CommitHold's interface for the Thrift server's JVM, driven over JDBC with ``reflect``."""

    def __init__(self, jdbc: Jdbc, table: str) -> None:
        self.jdbc, self.table = jdbc, table

    def _call(self, method: str) -> str:
        return self.jdbc.value(f"SELECT reflect({GATE}, '{method}', '{self.table}')")

    def reset(self) -> None:
        self._call("hold")

    def release(self) -> None:
        self._call("release")

    def holding(self) -> bool:
        return self._call("reached") == "true"


@pytest.fixture(scope="module")
def jdbc(
    spark: SparkSession, warehouse: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Jdbc]:
    """`floe thriftserver` on this run's warehouse, started as sql-tests/run.py does, hooks on."""
    runner = sql_runner.load()
    workdir = tmp_path_factory.mktemp("thrift")
    port = runner._free_port()
    log_path = workdir / "thriftserver.log"
    java_options = f"{runner.SESSION_CONF['spark.driver.extraJavaOptions']} {HOOKS}"
    conf = with_archive({**runner.SESSION_CONF, "spark.driver.extraJavaOptions": java_options})
    import subprocess

    with log_path.open("wb") as log:
        server = subprocess.Popen(
            [
                sys.executable, "-m", "floe.cli", "thriftserver",
                "--port", str(port), "--warehouse", str(warehouse), "--master", "local[1]",
                "--conf", f"spark.sql.warehouse.dir={workdir / 'spark-warehouse'}",
                *[a for k, v in conf.items() for a in ("--conf", f"{k}={v}")],
            ],
            cwd=workdir, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        runner._wait_for_port(port, server, log_path)
        client = _connect_when_ready(spark, port)
        yield client
    finally:
        runner._stop(server)


def _connect_when_ready(spark: SparkSession, port: int) -> Jdbc:
    deadline = time.monotonic() + 60
    while True:
        try:
            return Jdbc(spark, port)
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)


# (loser's statement, winner's statement, table mode): each pair conflicts under serializable
CASES = {
    "delete-vs-delete": (
        "DELETE FROM {t} WHERE id % 10 = 3",
        "DELETE FROM {t} WHERE id % 10 = 6",
        COW,
    ),
    "update-vs-append": (
        "UPDATE {t} SET v = v + 1 WHERE id % 10 = 4",
        "INSERT INTO {t} VALUES (1007, 7)",
        MOR,
    ),
    "merge-vs-update": (
        "MERGE INTO {t} x USING (SELECT id FROM range(0, 20) WHERE id % 10 = 5) s "
        "ON x.id = s.id WHEN MATCHED THEN UPDATE SET v = 0",
        "UPDATE {t} SET v = -v WHERE id % 10 = 7",
        COW,
    ),
    "compaction-vs-delete": (
        "CALL floe.system.rewrite_data_files(table => '{ns}.t', "
        "options => map('rewrite-all', 'true'))",
        "DELETE FROM {t} WHERE id % 10 = 8",
        MOR,
    ),
}
_counts = {"jdbc": 0, "pyspark": 0}


def _create(spark: SparkSession, name: str, mode: str) -> None:
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, v INT) USING floe TBLPROPERTIES ('format-version'='2', "
        f"'write.delete.mode'='{mode}', 'write.update.mode'='{mode}', 'write.merge.mode'='{mode}')"
    )
    spark.range(0, 20, 1, 1).selectExpr("id", "CAST(id AS INT) AS v").writeTo(name).append()


def _rows(spark: SparkSession, name: str) -> list[tuple[int, int]]:
    return sorted((int(r[0]), int(r[1])) for r in spark.sql(f"SELECT id, v FROM {name}").collect())


@pytest.mark.parametrize("loser", ["jdbc", "pyspark"])
@pytest.mark.parametrize("case", list(CASES))
def test_the_losing_client_gets_a_clear_conflict_error(
    spark: SparkSession, jdbc: Jdbc, namespace: str, warehouse: Path, case: str, loser: str
) -> None:
    a, b, mode = (s.replace("{ns}", namespace) for s in CASES[case])
    name, loc = f"floe.{namespace}.t", location(warehouse, namespace, "t")
    a, b = a.replace("{t}", name), b.replace("{t}", name)
    _create(spark, name, mode)
    winner: dict[str, Any] = {}

    def commit_b() -> None:
        if loser == "jdbc":
            spark.sql(b)
        else:
            jdbc.execute(b)
        winner["snapshot"] = current_snapshot_id(loc)
        winner["rows"] = _rows(spark, name)

    if loser == "jdbc":
        error = interleave(ServerHold(jdbc, name), lambda: jdbc.execute(a), commit_b)
    else:
        error = interleave(CommitHold(spark, name), lambda: spark.sql(a).collect(), commit_b)

    assert error is not None, f"{loser}: the losing statement reported success"
    message = error_text(error)
    assert "FLOE_CONCURRENT_CHANGE_CONFLICT" in message, message
    assert f"{namespace}.t" in message, message
    assert "conflict" in message.lower(), message
    if loser == "pyspark":
        assert error_condition(error) == ("FLOE_CONCURRENT_CHANGE_CONFLICT", "40001"), message
    else:
        assert "SQLException" in message, message
    assert current_snapshot_id(loc) == winner["snapshot"], "the failed statement left a snapshot"
    assert _rows(spark, name) == winner["rows"]
    assert missing_files(loc) == [] and orphan_files(loc) == []
    _counts[loser] += 1
    record("R2", jdbc_conflict_cases=_counts["jdbc"], pyspark_conflict_cases=_counts["pyspark"])
