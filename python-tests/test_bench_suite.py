"""Smoke test of the benchmark suite's harness (bench/suite.py): a tiny workload through the real
orchestration (a prepare JVM, then one worker JVM per engine), the report and its goal verdicts,
and the pure parts (engine families, ABC/CBA interleaving, ratios, answer checks)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import suite  # noqa: E402
import suite_report  # noqa: E402
from suite_api import Case, Workload, answer_digest, goal_met  # noqa: E402

TINY = Path(__file__).resolve().parent / "helpers" / "bench_tiny_workload.py"


def test_engine_families_and_interleaving() -> None:
    parser = argparse.ArgumentParser()
    engines = suite.parse_engines(parser, "floe,iceberg")
    assert engines == ["iceberg-default", "iceberg-best", "floe"]
    with pytest.raises(SystemExit):
        suite.parse_engines(parser, "hudi")

    def noop(*_: object) -> None:
        return None

    def nothing(_: object) -> list[Case]:
        return []

    w = [Workload(f"W{i}", "t", "scan", ("parquet", "floe"), noop, nothing) for i in (1, 2)]
    assert suite.plan_jobs(w, ["parquet", "floe"], shared_jvm=False) == [
        ("parquet", ["W1"]), ("floe", ["W1"]), ("floe", ["W2"]), ("parquet", ["W2"]),
    ]  # fmt: skip
    assert suite.plan_jobs(w, ["parquet", "floe"], shared_jvm=True) == [
        ("parquet", ["W1", "W2"]), ("floe", ["W1", "W2"]),
    ]  # fmt: skip


def test_ratios_goals_and_answers() -> None:
    assert answer_digest([(1, 2.0000000001)]) == answer_digest([(1, 2.0)])
    assert goal_met(0.9, 0.95, 1.0) and not goal_met(0.9, 1.2, 1.0) and not goal_met(1.1, 1.1, 1.0)
    by_engine = {
        "parquet": Case("q", "parquet", [2.0, 2.0, 2.0], answer="a"),
        "iceberg-default": Case("q", "iceberg-default", [4.0, 4.0, 4.0], answer="a"),
        "iceberg-best": Case("q", "iceberg-best", [3.0, 3.0, 3.0], answer="b"),
        "floe": Case("q", "floe", [1.0, 1.5, 3.0], answer="a"),
    }
    assert suite_report.ratio_range(by_engine, "parquet") == (0.75, 0.5, 1.5)
    assert suite_report.ratio_range(by_engine, "iceberg") == (0.5, 1 / 3, 1.0)
    assert suite_report.ratio_range(by_engine, "delta") is None
    differ = suite_report.answers_differ(by_engine)
    assert differ is not None and "iceberg-best" in differ


def test_tiny_workload_end_to_end(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_tiny_workload", TINY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_tiny_workload"] = module
    spec.loader.exec_module(module)
    workload: Workload = module.WORKLOAD

    raw = suite.run_suite([workload], ["parquet", "floe"], quick=True, base=tmp_path, reps=2)
    raw.update(versions={}, machine={}, command="test")

    runs = raw["runs"]["W99"]
    assert set(runs) == {"parquet", "floe"}, raw
    for engine in ("parquet", "floe"):
        assert "error" not in runs[engine], runs[engine]
        (case,) = runs[engine]["cases"]
        assert case["engine"] == engine and len(case["seconds"]) == 2
        assert case["extra"]["rows"] == 100
    assert runs["parquet"]["cases"][0]["answer"] == runs["floe"]["cases"][0]["answer"]
    written = suite_report.write_outputs(raw, [workload], tmp_path / "results", "T")
    text = (tmp_path / "results" / "latest.md").read_text(encoding="utf-8")
    assert written[0].name == "suite-T.md"
    assert "## W99 Tiny" in text and "Floe/Parquet" in text
    assert "W99 count: Floe/parquet" in text and "goal <= 1000: met" in text
    assert "answers differ" not in text
