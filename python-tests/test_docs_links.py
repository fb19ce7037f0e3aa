"""Comments cite the design notes that live in the repository (docs/), never notes kept elsewhere.

Every citation of a file under docs/ in code must name a file that exists, and a section quoted
after it (``docs/format.md, 'Bounds'``) must be a heading of that file. Notes that are not in the
repository (SPEC-NOTES.md, BENCH.md, DESIGN.md, STYLE.md, RELIABILITY.md) must not be cited at all.
The links of the docs/ pages and README's links into docs/ must resolve too. No Spark is needed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
THIS = Path(__file__).resolve()

# Code whose comments may cite docs/: (directory, glob pattern).
SOURCES = [
    ("spark-extension", "**/src/**/*.java"),
    ("pyspark-shim", "**/*.py"),
    ("python-tests", "*.py"),
    ("bench", "*.py"),
    ("sql-tests", "*.py"),
    ("scripts", "*.sh"),
    ("scripts", "*.py"),
]
# Notes that are not in the repository; "SPEC-NOTES" and "RELIABILITY" were also cited bare.
OUTSIDE_NOTES = re.compile(
    r"SPEC-NOTES|BENCH\.md|DESIGN\.md|STYLE\.md|RELIABILITY(?:\.md)?\b|/work/shared"
)
# A repository path: not the tail of a URL or of another path.
CITATION = re.compile(r"(?<![\w/.])docs/([A-Za-z0-9_./-]+?\.md)")
# Sections quoted right after a citation: ", 'A'", ", 'A' and 'B'", ", 'A', 'B'".
QUOTED_SECTIONS = re.compile(r",\s*'([^']+)'((?:\s*(?:,|and)\s*'[^']+')*)")
QUOTED = re.compile(r"'([^']+)'")
# Leading comment markers of a continued comment line: javadoc "*", "//", "#".
COMMENT_MARKER = re.compile(r"^\s*(?:\*(?!/)|//|#)?\s*")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")


def shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def source_files() -> Iterator[Path]:
    for directory, pattern in SOURCES:
        for path in sorted((ROOT / directory).glob(pattern)):
            parts = set(path.relative_to(ROOT).parts)
            if path.resolve() == THIS or parts & {"build", ".venv", "venv", "__pycache__"}:
                continue
            yield path


def joined_text(path: Path) -> str:
    """The file with its lines joined by single spaces and comment markers removed, so that a
    citation wrapped over two comment lines reads as one."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return " ".join(COMMENT_MARKER.sub("", line, count=1) for line in lines)


def headings(doc: Path) -> set[str]:
    found = set()
    in_code = False
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        match = None if in_code else HEADING.match(line)
        if match:
            found.add(match.group(1))
    return found


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.lower())
    return text.replace(" ", "-")


def citations(text: str) -> Iterator[tuple[str, list[str]]]:
    """(docs file, quoted sections) for every docs/ citation in ``text``."""
    for match in CITATION.finditer(text):
        sections: list[str] = []
        quoted = QUOTED_SECTIONS.match(text, match.end())
        if quoted:
            sections.append(quoted.group(1))
            sections.extend(QUOTED.findall(quoted.group(2)))
        yield match.group(1), sections


def citation_problems(path: Path) -> list[str]:
    """What is wrong with the citations of one source file."""
    problems = []
    raw = path.read_text(encoding="utf-8")
    for number, line in enumerate(raw.splitlines(), start=1):
        for outside in OUTSIDE_NOTES.finditer(line):
            problems.append(
                f"{shown(path)}:{number} cites {outside.group(0)}, which is not in the "
                "repository: cite a docs/ file and section instead"
            )
    for name, sections in citations(joined_text(path)):
        doc = DOCS / name
        if not doc.is_file():
            problems.append(f"{shown(path)} cites docs/{name}, which does not exist")
            continue
        known = headings(doc)
        problems.extend(
            f"{shown(path)} cites docs/{name}, '{section}': no such heading"
            for section in sections
            if section not in known
        )
    return problems


def link_problems(page: Path) -> list[str]:
    """Relative links of a markdown page that name a missing file or heading."""
    problems = []
    text = page.read_text(encoding="utf-8")
    for target in MD_LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue  # an absolute URL
        file_part, _, anchor = target.partition("#")
        linked = (page.parent / file_part).resolve() if file_part else page
        if not linked.is_file():
            problems.append(f"{page.relative_to(ROOT)} links to {target}: no such file")
        elif (
            anchor and linked.suffix == ".md" and anchor not in {slug(h) for h in headings(linked)}
        ):
            problems.append(f"{page.relative_to(ROOT)} links to {target}: no such heading")
    return problems


def test_sources_cite_only_docs_that_exist() -> None:
    files = list(source_files())
    assert len(files) > 100, f"only {len(files)} source files found under {ROOT}"
    cited = [c for path in files for c in citations(joined_text(path))]
    assert len(cited) > 20, "the scan found almost no docs/ citations: is it reading the comments?"
    problems = [p for path in files for p in citation_problems(path)]
    assert problems == [], "\n".join(problems)


def test_docs_pages_and_readme_links_resolve() -> None:
    pages = sorted(DOCS.glob("*.md"))
    assert {p.name for p in pages} >= {"architecture.md", "format.md", "benchmarks.md"}
    problems = [p for page in pages for p in link_problems(page)]
    readme = ROOT / "README.md"
    readme_links = MD_LINK.findall(readme.read_text(encoding="utf-8"))
    assert any(t.startswith("docs/") for t in readme_links), "README links to no docs/ page"
    problems += [p for p in link_problems(readme) if " links to docs/" in p]
    assert problems == [], "\n".join(problems)


def test_the_checks_catch_bad_citations(tmp_path: Path) -> None:
    """The checks fail on what they are meant to catch (so they cannot pass by reading nothing)."""
    bad = tmp_path / "Bad.java"
    bad.write_text(
        "/** See SPEC-NOTES §6 and BENCH.md W9,\n"
        " * docs/nowhere.md, and docs/format.md, 'No such\n"
        " * section' and 'Bounds'. */\n",
        encoding="utf-8",
    )
    assert list(citations(joined_text(bad))) == [
        ("nowhere.md", []),
        ("format.md", ["No such section", "Bounds"]),
    ]
    problems = citation_problems(bad)
    assert len(problems) == 4, problems
    assert "SPEC-NOTES" in problems[0] and "BENCH.md" in problems[1]
    assert "docs/nowhere.md, which does not exist" in problems[2]
    assert "'No such section': no such heading" in problems[3]
    good = tmp_path / "good.py"
    good.write_text(
        "# see docs/format.md, 'Bounds', and https://example.org/docs/spec.md\n", encoding="utf-8"
    )
    assert citation_problems(good) == []
    assert slug("How Floe compares (measured)") == "how-floe-compares-measured"
