#!/usr/bin/env python3
"""JFR profiles of a Spark driver, as collapsed stacks and SVG flame graphs (pure Python).

(Not ``bench/profile.py``: scripts run as ``python bench/x.py`` have ``bench/`` first on
``sys.path``, and a ``profile`` module there shadows the standard library's, which PySpark
imports through ``cProfile``.)

Recording, two ways:

* for a whole JVM (what ``suite.py --profile`` does): put :func:`driver_java_options` into
  ``spark.driver.extraJavaOptions`` before the session starts (:func:`session_conf` merges it
  with options already set). The recording is written when the JVM exits. In ``local[N]`` mode
  the executors' tasks run in the driver JVM, so this covers them too.
* for one stretch of code in a running session: ``with recording(spark, path): ...`` starts a
  ``jdk.jfr.Recording`` in the driver JVM through Py4J and dumps it to ``path`` at the end.
  Stacks deeper than the JVM's ``stackdepth`` (64 unless :func:`driver_java_options` raised it
  at start) are cut at the root side; the flame graph shows them under ``[truncated]``.

Converting, with the JDK's ``jfr`` tool (``jfr print --events jdk.ExecutionSample``) streamed
line by line, so large recordings do not need to fit in memory as JSON:

    python bench/jfr_profile.py flame REC.jfr [-o OUT.svg] [--collapsed OUT.collapsed]
        [--threads REGEX] [--by-thread] [--root REGEX] [--title TEXT]
    python bench/jfr_profile.py top REC.jfr [--threads REGEX] [--root REGEX] [-n 25] [--focus REGEX]

``flame`` also accepts a collapsed-stacks file (``frame;frame;frame count`` per line, Brendan
Gregg's format, which speedscope and flamegraph.pl read too). ``top`` prints the methods with the
most samples on CPU (self) and under them (total), and with ``--focus`` the share of samples
whose stack holds a frame matching the pattern. ``--root`` keeps only the samples under a frame
matching it (e.g. one procedure), drawn from that frame up. Flame graphs of the suite go to
bench/results/profiles/.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import html
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: JFR keeps this many frames per stack (the JVM default, 64, cuts Spark's deep stacks).
STACK_DEPTH = 256
#: Flight recorder settings shipped with the JDK: "profile" samples every 10 ms, "default" 20 ms.
SETTINGS = "profile"
TRUNCATED = "[truncated]"
Stacks = Mapping[tuple[str, ...], int]


# --- recording -------------------------------------------------------------------------------


def driver_java_options(jfr_file: Path | None = None, stack_depth: int = STACK_DEPTH) -> str:
    """JVM options for a recording of the whole driver JVM into ``jfr_file`` (written at exit),
    or, without a file, only the deeper stacks that :func:`recording` then benefits from."""
    options = [f"-XX:FlightRecorderOptions=stackdepth={stack_depth}"]
    if jfr_file is not None:
        jfr_file.parent.mkdir(parents=True, exist_ok=True)
        # Quoted: Spark splits extraJavaOptions at spaces outside quotes (a --dir with a space).
        start = f"-XX:StartFlightRecording=filename={jfr_file},settings={SETTINGS},dumponexit=true"
        options.append('"' + start.replace("\\", "\\\\").replace('"', '\\"') + '"')
    return " ".join(options)


def session_conf(
    conf: Mapping[str, str], jfr_file: Path | None = None, stack_depth: int = STACK_DEPTH
) -> dict[str, str]:
    """``conf`` with :func:`driver_java_options` appended to ``spark.driver.extraJavaOptions``.
    Only effective before the driver JVM starts (a new PySpark process or session)."""
    key = "spark.driver.extraJavaOptions"
    merged = dict(conf)
    added = driver_java_options(jfr_file, stack_depth)
    merged[key] = f"{merged[key]} {added}" if merged.get(key) else added
    return merged


@contextmanager
def recording(spark: SparkSession, jfr_file: Path, period_ms: int | None = None) -> Iterator[Path]:
    """Records the driver JVM (in local mode, the tasks too) while the block runs, then writes
    the recording to ``jfr_file``. ``period_ms`` overrides the CPU sampling period (10 ms)."""
    jvm = spark._jvm
    if jvm is None:
        raise RuntimeError("Cannot record: this SparkSession has no driver JVM (Spark Connect?)")
    jfr_file.parent.mkdir(parents=True, exist_ok=True)
    config = jvm.jdk.jfr.Configuration.getConfiguration(SETTINGS)
    rec = jvm.jdk.jfr.Recording(config)
    rec.setName(f"floe-bench-{jfr_file.stem}")
    if period_ms is not None:
        rec.enable("jdk.ExecutionSample").withPeriod(jvm.java.time.Duration.ofMillis(period_ms))
    rec.start()
    try:
        yield jfr_file
    finally:
        rec.stop()
        rec.dump(jvm.java.io.File(str(jfr_file.resolve())).toPath())
        rec.close()


# --- reading ---------------------------------------------------------------------------------


@dataclass
class Sample:
    """One CPU sample: its thread's name and its frames, root first."""

    thread: str
    frames: list[str] = field(default_factory=list)
    truncated: bool = False


_THREAD = re.compile(r'^\s*sampledThread = "(.*)" \(')
_DIGITS = re.compile(r"\d+")


def frame_name(line: str) -> str:
    """``pkg.Class.method`` of a ``jfr print`` frame line (parameters and line number dropped)."""
    text = line.strip()
    cut = text.find("(")
    name = text[:cut] if cut > 0 else text.split(" line:")[0]
    return name.replace(";", ":")


def parse_jfr_text(lines: Iterable[str]) -> Iterator[Sample]:
    """The samples of ``jfr print --events jdk.ExecutionSample`` text output."""
    sample: Sample | None = None
    in_stack = False
    for line in lines:
        stripped = line.strip()
        if stripped == "jdk.ExecutionSample {":
            sample = Sample(thread="?")
        elif sample is None:
            continue
        elif in_stack:
            if stripped == "]":
                in_stack = False
            elif stripped == "...":
                sample.truncated = True
            elif stripped:
                sample.frames.append(frame_name(stripped))
        elif stripped.startswith("stackTrace = ["):
            in_stack = True
        elif stripped.startswith("sampledThread ="):
            found = _THREAD.match(line)
            sample.thread = found.group(1) if found else stripped
        elif stripped == "}":
            sample.frames.reverse()  # jfr prints the leaf first
            yield sample
            sample = None


def jfr_samples(jfr_file: Path) -> Iterator[Sample]:
    """Streams the CPU samples of a ``.jfr`` recording through the JDK's ``jfr`` tool."""
    tool = shutil.which("jfr")
    if tool is None:
        raise SystemExit("Cannot find the JDK's `jfr` tool on PATH (it ships with JDK 17+)")
    command = [tool, "print", "--events", "jdk.ExecutionSample"]
    command += ["--stack-depth", str(STACK_DEPTH * 4), str(jfr_file)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None
        yield from parse_jfr_text(proc.stdout)
    if proc.returncode != 0:
        raise SystemExit(f"`jfr print` failed on {jfr_file} (exit {proc.returncode})")


def thread_group(name: str) -> str:
    """A thread name with its numbers replaced, so that e.g. all task threads group together
    (``;`` as ``:``, as in frame names: it separates the frames of collapsed stacks)."""
    return _DIGITS.sub("N", name).replace(";", ":")


def collapse(
    samples: Iterable[Sample], threads: str | None = None, by_thread: bool = False
) -> dict[tuple[str, ...], int]:
    """Counts of identical stacks (root first), optionally only of threads matching ``threads``
    and with the thread group as the root frame."""
    pattern = re.compile(threads) if threads else None
    counts: collections.Counter[tuple[str, ...]] = collections.Counter()
    for sample in samples:
        if pattern is not None and not pattern.search(sample.thread):
            continue
        frames = [TRUNCATED, *sample.frames] if sample.truncated else sample.frames
        if by_thread:
            frames = [f"[{thread_group(sample.thread)}]", *frames]
        if frames:
            counts[tuple(frames)] += 1
    return dict(counts)


def read_collapsed(path: Path) -> dict[tuple[str, ...], int]:
    counts: collections.Counter[tuple[str, ...]] = collections.Counter()
    for line in path.read_text(encoding="utf-8").splitlines():
        stack, _, count = line.rstrip().rpartition(" ")
        if stack and count.isdigit():
            counts[tuple(stack.split(";"))] += int(count)
    return dict(counts)


def load(path: Path, threads: str | None = None, by_thread: bool = False) -> Stacks:
    """Collapsed stacks of a ``.jfr`` recording or of a collapsed-stacks text file."""
    if path.suffix == ".jfr":
        return collapse(jfr_samples(path), threads, by_thread)
    return read_collapsed(path)


def rooted_at(stacks: Stacks, pattern: str) -> dict[tuple[str, ...], int]:
    """Only the samples with a frame matching ``pattern``, each cut to start at the first (the
    outermost) such frame: the profile of one method and what it calls."""
    regex = re.compile(pattern)
    counts: collections.Counter[tuple[str, ...]] = collections.Counter()
    for stack, count in stacks.items():
        for i, frame in enumerate(stack):
            if regex.search(frame):
                counts[stack[i:]] += count
                break
    return dict(counts)


def write_collapsed(stacks: Stacks, path: Path) -> None:
    lines = [f"{';'.join(s)} {n}" for s, n in sorted(stacks.items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# --- summaries -------------------------------------------------------------------------------


def top_frames(
    stacks: Stacks, limit: int = 25
) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """The ``limit`` frames with the most samples on top of the stack (self) and anywhere in
    the stack (total, each counted once per sample)."""
    self_counts: collections.Counter[str] = collections.Counter()
    total: collections.Counter[str] = collections.Counter()
    for stack, count in stacks.items():
        self_counts[stack[-1]] += count
        for frame in set(stack):
            total[frame] += count
    return self_counts.most_common(limit), total.most_common(limit)


def share(stacks: Stacks, focus: str) -> tuple[int, int]:
    """Samples whose stack holds a frame matching ``focus``, and all samples."""
    pattern = re.compile(focus)
    hit = sum(n for s, n in stacks.items() if any(pattern.search(f) for f in s))
    return hit, sum(stacks.values())


# --- flame graph -----------------------------------------------------------------------------

#: Characters XML 1.0 does not allow in a document (C0 controls but tab, LF and CR; U+FFFE/F).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml_text(text: str) -> str:
    """``text`` escaped for SVG text and attribute values; characters XML cannot hold (a
    thread named with a control character) become U+FFFD."""
    return html.escape(_NOT_XML.sub("\ufffd", text))


@dataclass
class Node:
    name: str
    count: int = 0
    children: dict[str, Node] = field(default_factory=dict)


def tree(stacks: Stacks) -> Node:
    root = Node("all")
    for stack, count in stacks.items():
        root.count += count
        node = root
        for frame in stack:
            node = node.children.setdefault(frame, Node(frame))
            node.count += count
    return root


def color(name: str) -> str:
    """A warm palette by origin: green for Floe, blue for Spark, purple for Parquet and other
    readers, orange for the JDK, red otherwise; shades vary by a hash of the name."""
    shade = hashlib.blake2b(name.encode(), digest_size=2).digest()
    a, b = shade[0] / 255, shade[1] / 255
    if name.startswith("io.floe."):
        return f"rgb({int(60 + 60 * a)},{int(170 + 60 * b)},{int(60 + 40 * a)})"
    if name.startswith(("org.apache.spark.", "scala.")):
        return f"rgb({int(90 + 50 * a)},{int(140 + 50 * b)},{int(210 + 40 * a)})"
    if name.startswith(("org.apache.parquet.", "org.apache.datasketches.", "org.apache.")):
        return f"rgb({int(170 + 40 * a)},{int(120 + 40 * b)},{int(210 + 40 * a)})"
    if name.startswith(("java.", "jdk.", "sun.")):
        return f"rgb({int(230 + 25 * a)},{int(150 + 50 * b)},{int(40 + 40 * a)})"
    return f"rgb({int(220 + 35 * a)},{int(80 + 70 * b)},{int(60 + 30 * a)})"


def flame_svg(stacks: Stacks, title: str, width: int = 1200, row: int = 16) -> str:
    """A flame graph (root at the bottom, width proportional to samples) as a static SVG whose
    frames show their name, samples and share as a tooltip."""
    root = tree(stacks)
    total = max(root.count, 1)
    min_px = 1.0  # narrower frames are invisible and only bloat the file
    rects: list[tuple[int, float, float, Node]] = []  # depth, x, width, node
    depth_max = 0

    def place(node: Node, depth: int, x: float) -> None:
        nonlocal depth_max
        w = node.count / total * (width - 20)
        if w < min_px:
            return
        rects.append((depth, x, w, node))
        depth_max = max(depth_max, depth)
        child_x = x
        for child in sorted(node.children.values(), key=lambda n: n.name):
            place(child, depth + 1, child_x)
            child_x += child.count / total * (width - 20)

    place(root, 0, 10.0)
    top = 40
    height = top + (depth_max + 1) * row + 30
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="#fdfdf6"/>',
        f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="15">'
        f"{xml_text(title)}</text>",
        f'<text x="10" y="{height - 10}">{total} samples; hover a frame for its share</text>',
    ]
    chars_per_px = 1 / 6.6
    for depth, x, w, node in rects:
        y = height - 30 - (depth + 1) * row
        pct = 100 * node.count / total
        label = xml_text(node.name)
        out.append(
            f"<g><title>{label} ({node.count} samples, {pct:.2f}%)</title>"
            f'<rect x="{x:.2f}" y="{y}" width="{w:.2f}" height="{row - 1}" '
            f'fill="{color(node.name)}" rx="2"/>'
        )
        fits = int((w - 6) * chars_per_px)
        if fits >= 3:
            shown = node.name if len(node.name) <= fits else node.name[: fits - 2] + ".."
            out.append(f'<text x="{x + 3:.2f}" y="{y + row - 4}">{xml_text(shown)}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def flame(
    source: Path,
    svg: Path,
    title: str | None = None,
    collapsed: Path | None = None,
    threads: str | None = None,
    by_thread: bool = False,
    root: str | None = None,
) -> int:
    """Writes the flame graph of ``source`` (``.jfr`` or collapsed stacks) to ``svg`` (and the
    collapsed stacks to ``collapsed``), optionally only the part under frames matching ``root``;
    returns the number of samples."""
    stacks = load(source, threads, by_thread)
    if root is not None:
        stacks = rooted_at(stacks, root)
    if collapsed is not None:
        write_collapsed(stacks, collapsed)
    svg.parent.mkdir(parents=True, exist_ok=True)
    svg.write_text(flame_svg(stacks, title or source.stem), encoding="utf-8")
    return sum(stacks.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("flame", "top"):
        sub = commands.add_parser(name)
        sub.add_argument("source", type=Path, help=".jfr recording or collapsed stacks")
        sub.add_argument("--threads", help="only threads whose name matches this regex")
        sub.add_argument("--by-thread", action="store_true", help="thread group as root frame")
        sub.add_argument("--root", help="only stacks through a frame matching this regex, from it")
        if name == "flame":
            sub.add_argument("-o", "--out", type=Path, help="SVG (default: next to the source)")
            sub.add_argument("--collapsed", type=Path, help="also write collapsed stacks here")
            sub.add_argument("--title", help="title of the graph")
        else:
            sub.add_argument("-n", type=int, default=25, help="frames to list")
            sub.add_argument("--focus", action="append", default=[], help="regex; repeatable")
    args = parser.parse_args(argv)
    if args.command == "flame":
        out = args.out or args.source.with_suffix(".svg")
        count = flame(
            args.source, out, args.title, args.collapsed, args.threads, args.by_thread, args.root
        )
        print(f"wrote {out} ({count} samples)")
        return 0
    stacks = load(args.source, args.threads, args.by_thread)
    if args.root is not None:
        stacks = rooted_at(stacks, args.root)
    total = max(sum(stacks.values()), 1)
    own, inclusive = top_frames(stacks, args.n)
    for heading, rows in (("self", own), ("total", inclusive)):
        print(f"{heading} ({total} samples):")
        for frame, count in rows:
            print(f"  {100 * count / total:6.2f}%  {count:7d}  {frame}")
    for focus in args.focus:
        hit, _ = share(stacks, focus)
        print(f"focus {focus!r}: {hit} of {total} samples ({100 * hit / total:.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
