"""The SQL golden files of sql-tests/, through a Spark session and through Thrift JDBC."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _load_runner() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "sql-tests" / "run.py"
    spec = importlib.util.spec_from_file_location("floe_sql_tests_run", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


RUNNER = _load_runner()
NAMES: list[str] = RUNNER.input_names()


@pytest.mark.parametrize("name", NAMES)
def test_golden_file(spark: SparkSession, tmp_path: Path, name: str) -> None:
    failure = RUNNER.check_session(spark, name, tmp_path)
    assert failure is None, failure


def test_golden_files_over_jdbc(tmp_path: Path) -> None:
    failures = {name: f for name, f in RUNNER.run_jdbc(NAMES, tmp_path).items() if f}
    assert not failures, "\n\n".join("\n".join(f) for f in failures.values())
