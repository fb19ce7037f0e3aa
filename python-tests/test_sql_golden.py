"""The SQL golden files of sql-tests/, through a Spark session, through Thrift JDBC and through
Spark Connect. Every file runs through the session and over JDBC; over Spark Connect they run with
FLOE_TEST_SCALE=full (the standard scale, CI's, tests the Connect surface with test_connect.py:
DDL, writes, row-level DML, procedures, time travel and error delivery)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

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


def test_golden_files_over_jdbc(tmp_path: Path) -> None:
    failures = {name: f for name, f in RUNNER.run_jdbc(NAMES, tmp_path).items() if f}
    assert not failures, "\n\n".join("\n".join(f) for f in failures.values())


@pytest.mark.skipif(not FULL_SCALE, reason="with FLOE_TEST_SCALE=full (test_connect.py always)")
def test_golden_files_over_spark_connect(tmp_path: Path) -> None:
    """Every golden file through one `floe connect` server and a Spark Connect client."""
    failures = RUNNER.run_connect(NAMES, tmp_path)
    assert not failures, "\n\n".join(failures.values())
