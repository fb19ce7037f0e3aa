"""The Java packages stay layered: no package cycle in io.floe.spark.* or io.floe.format.*, and the
format module names no Spark, Hadoop or Scala class (docs/architecture.md, 'Layers').

The check itself is ``scripts/package_graph.py --check``; these tests run it on the real sources and
on small made-up trees, so a broken checker cannot pass silently. No Spark is needed.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load_checker() -> ModuleType:
    path = ROOT / "scripts" / "package_graph.py"
    spec = importlib.util.spec_from_file_location("package_graph", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["package_graph"] = module
    spec.loader.exec_module(module)
    return module


graph = _load_checker()


def test_the_sources_have_no_package_cycle_and_format_imports_no_engine(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = graph.main(["--check"])
    assert status == 0, capsys.readouterr().out


def test_the_spark_layers_point_one_way() -> None:
    """The shared helper package uses no other Floe Spark package; scans do not use writes."""
    edges = graph.edges("io.floe.spark")
    assert not [b for (a, b) in edges if a == "io.floe.spark.util"]
    assert ("io.floe.spark.source", "io.floe.spark.write") not in edges
    for low in ("source", "write", "metadata", "stats", "procedures", "functions", "util"):
        assert ("io.floe.spark." + low, "io.floe.spark") not in edges, low


def _write(root: Path, package: str, name: str, body: str) -> None:
    folder = root.joinpath(*package.split("."))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.java").write_text(f"package {package};\n\n{body}\n", encoding="utf-8")


def test_the_checker_finds_a_cycle_and_an_engine_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    spark = tmp_path / "spark"
    fmt = tmp_path / "format"
    _write(spark, "io.floe.spark.a", "A", "import io.floe.spark.b.B;\nclass A { B b; }")
    _write(spark, "io.floe.spark.b", "B", "class B { io.floe.spark.a.A a; }")
    _write(spark, "io.floe.spark.c", "C", "// io.floe.spark.a.A is no edge\nclass C {}")
    _write(fmt, "io.floe.format.x", "X", "import org.apache.hadoop.fs.Path;\nclass X {}")
    monkeypatch.setattr(graph, "SOURCES", {"io.floe.spark": spark, "io.floe.format": fmt})
    monkeypatch.setattr(graph, "ROOT", tmp_path)

    assert graph.cycles(graph.edges("io.floe.spark")) == [["io.floe.spark.a", "io.floe.spark.b"]]
    assert ("io.floe.spark.c", "io.floe.spark.a") not in graph.edges("io.floe.spark")
    assert graph.main(["--check"]) == 1
    out = capsys.readouterr().out
    assert "package cycle in io.floe.spark: io.floe.spark.a <-> io.floe.spark.b" in out
    assert "imports org.apache.hadoop.fs.Path" in out
