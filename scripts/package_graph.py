#!/usr/bin/env python3
"""The package graph of Floe's Java code, and a check that it has no cycle.

    python scripts/package_graph.py            # io.floe.spark.* edges, with the files behind them
    python scripts/package_graph.py --check    # exit 1 on a package cycle in io.floe.spark.* or
                                               # io.floe.format.*, or a Spark/Hadoop/Scala import
                                               # in io.floe.format

An edge A -> B means a file of package A names a class of package B (an import, or a fully
qualified name in the code). Same-package references are not edges.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {
    "io.floe.spark": ROOT / "spark-extension" / "spark" / "src" / "main" / "java",
    "io.floe.format": ROOT / "spark-extension" / "format" / "src" / "main" / "java",
}
FORBIDDEN_IN_FORMAT = ("org.apache.spark", "org.apache.hadoop", "scala")
_PACKAGE = re.compile(r"^package\s+([\w.]+)\s*;", re.MULTILINE)
_REFERENCE = re.compile(r"\b(io\.floe\.[a-z_][\w]*(?:\.[a-z_][\w]*)*)\.([A-Z]\w*)")
_IMPORT = re.compile(r"^import\s+(?:static\s+)?([\w.]+)\s*;", re.MULTILINE)


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.DOTALL)
    return re.sub(r"//[^\n]*", "", text)


def edges(prefix: str) -> dict[tuple[str, str], set[str]]:
    """(from package, to package) -> the files behind the edge, within ``prefix``."""
    out: dict[tuple[str, str], set[str]] = defaultdict(set)
    for file in sorted(SOURCES[prefix].rglob("*.java")):
        text = _strip_comments(file.read_text(encoding="utf-8"))
        found = _PACKAGE.search(text)
        if found is None:
            continue
        package = found.group(1)
        for ref_package, _cls in _REFERENCE.findall(text):
            if ref_package != package and (ref_package + ".").startswith(prefix + "."):
                out[(package, ref_package)].add(file.name)
    return out


def cycles(graph: dict[tuple[str, str], set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one package (Tarjan)."""
    succ: dict[str, set[str]] = defaultdict(set)
    nodes: set[str] = set()
    for a, b in graph:
        succ[a].add(b)
        nodes |= {a, b}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(succ[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


def forbidden_imports() -> list[str]:
    problems = []
    for file in sorted(SOURCES["io.floe.format"].rglob("*.java")):
        text = _strip_comments(file.read_text(encoding="utf-8"))
        for name in _IMPORT.findall(text):
            if name.startswith(FORBIDDEN_IN_FORMAT):
                problems.append(f"{file.relative_to(ROOT)} imports {name}")
        for bad in FORBIDDEN_IN_FORMAT[:2]:
            if re.search(r"\b" + re.escape(bad) + r"\.", text) and not any(
                p.endswith(f"imports {bad}") for p in problems
            ):
                problems.append(f"{file.relative_to(ROOT)} names {bad}.*")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="fail on a cycle or a forbidden import"
    )
    parser.add_argument("--prefix", default="io.floe.spark", choices=sorted(SOURCES))
    args = parser.parse_args(argv)
    if args.check:
        status = 0
        for prefix in sorted(SOURCES):
            for component in cycles(edges(prefix)):
                print(f"package cycle in {prefix}: {' <-> '.join(component)}")
                status = 1
        for problem in forbidden_imports():
            print(f"io.floe.format must not depend on Spark, Hadoop or Scala: {problem}")
            status = 1
        if status == 0:
            print("no package cycle; io.floe.format uses no Spark, Hadoop or Scala class")
        return status
    graph = edges(args.prefix)
    for (a, b), files in sorted(graph.items()):
        print(f"{a} -> {b}  ({len(files)} files: {', '.join(sorted(files)[:4])}"
              f"{', ...' if len(files) > 4 else ''})")
    for component in cycles(graph):
        print(f"CYCLE: {' <-> '.join(component)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
