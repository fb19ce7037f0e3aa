"""The SQL golden files of sql-tests/, through a Spark session, through Thrift JDBC and through
Spark Connect. Every file runs through the session and over JDBC; over Spark Connect they run with
FLOE_TEST_SCALE=full (the standard scale, CI's, tests the Connect surface with test_connect.py:
DDL, writes, row-level DML, procedures, time travel and error delivery)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import class_data_sharing
import pytest
import sql_runner
from conftest import FULL_SCALE

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


RUNNER = sql_runner.load()
NAMES: list[str] = RUNNER.input_names()


@pytest.mark.parametrize("name", NAMES)
def test_golden_file(spark: SparkSession, tmp_path: Path, name: str) -> None:
    failure = RUNNER.check_session(spark, name, tmp_path)
    assert failure is None, failure


def test_golden_files_over_jdbc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(class_data_sharing.ENV, class_data_sharing.worker_java_options())
    failures = {name: f for name, f in RUNNER.run_jdbc(NAMES, tmp_path).items() if f}
    assert not failures, "\n\n".join("\n".join(f) for f in failures.values())


@pytest.mark.skipif(not FULL_SCALE, reason="with FLOE_TEST_SCALE=full (test_connect.py always)")
def test_golden_files_over_spark_connect(tmp_path: Path) -> None:
    """Every golden file through one `floe connect` server and a Spark Connect client."""
    failures = RUNNER.run_connect(NAMES, tmp_path)
    assert not failures, "\n\n".join(failures.values())


def test_jdbc_comparison_reports_wrong_rows_and_errors_by_statement(tmp_path: Path) -> None:
    """The JDBC oracle, on beeline output made up here: markers split stdout and stderr per
    statement; wrong rows, an unexpected error, a missing error and lost markers are reported."""
    q = RUNNER.QueryOutput
    expected = [
        q("CREATE TABLE t", "struct<>", ""),
        q("SELECT 1 AS x", "struct<x:int>", "1"),
        q("SELECT nope", "struct<>", "org.apache.spark.sql.AnalysisException\n..."),
    ]
    item = RUNNER._JdbcInput("demo", expected, tmp_path)
    m = [RUNNER._MARK.format("demo", i) for i in range(4)]

    def problems(out: list[str], err: list[str]) -> str:
        done = subprocess.CompletedProcess([], 0, "\n".join(out), "\n".join(err))
        return "\n".join(RUNNER._compare_jdbc(item, done))

    out = [m[0], m[1], "x", "1", m[2], m[3]]
    err = [m[0], m[1], m[2], "Error: nope", m[3]]
    assert problems(out, err) == ""
    assert "JDBC rows differ" in problems([m[0], m[1], "x", "2", m[2], m[3]], err)
    assert "unexpected JDBC error" in problems(out, [m[0], "Error: table exists", *err[1:]])
    assert "expected an error" in problems(out, m)
    assert "lacks the statement markers" in problems(out[:-1], err)


def test_jdbc_refuses_an_input_name_its_markers_cannot_carry(tmp_path: Path) -> None:
    """`!sh` splits at spaces: such an input is reported by name before any client starts."""
    failures = RUNNER._check_jdbc(["two words"], 0, tmp_path)
    assert list(failures) == ["two words"]
    assert "rename inputs/two words.sql" in failures["two words"][0]
    assert not (tmp_path / "client-0.sql").exists()
