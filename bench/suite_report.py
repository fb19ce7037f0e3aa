"""The benchmark suite's report: Markdown (bench/results/suite-<UTC>.md and latest.md) and PNG
charts (bench/results/charts/<family>.png, one per workload family).

Ratios are Floe's time over a peer's: the median ratio is median(Floe) / median(peer), its range
min(Floe) / median(peer) .. max(Floe) / median(peer). "Iceberg" is the faster of iceberg-default
and iceberg-best for each case. A goal is met when the median ratio is at most the goal, the worst
(max) ratio at most the goal + 10% (docs/benchmarks.md, 'Reading the report') and the engines'
answers agree.
"""

from __future__ import annotations

import os
import platform
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from suite_api import ENGINES, Case, Workload, goal_met, peer_median

#: The suite's time budgets in minutes (issue 17), full run and ``--quick``, for a run of every
#: workload on every engine (a run of fewer is not checked against them).
BUDGET_MINUTES = {"full": 45.0, "quick": 5.0}

#: The ratio columns of the report: header, goal key.
RATIO_COLUMNS: tuple[tuple[str, str], ...] = (
    ("Floe/Parquet", "parquet"), ("Floe/Iceberg", "iceberg"), ("Floe/Delta", "delta"),
)  # fmt: skip


def machine() -> dict[str, str]:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = "?"
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "memory": memory,
        "os": f"{platform.system()} {platform.release()}",
    }


def fmt_seconds(value: float) -> str:
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def fmt_ratio(values: tuple[float, float, float] | None) -> str:
    if values is None:
        return "-"
    median, low, high = values
    return f"{median:.2f} ({low:.2f}-{high:.2f})"


def case_table(cases: Sequence[Case]) -> dict[str, dict[str, Case]]:
    """Cases by name, then engine, names in first-seen order."""
    table: dict[str, dict[str, Case]] = {}
    for case in cases:
        table.setdefault(case.name, {})[case.engine] = case
    return table


def ratio_range(by_engine: dict[str, Case], peer: str) -> tuple[float, float, float] | None:
    """(median, min, max) ratio of Floe over ``peer`` (a goal key), or None."""
    floe = by_engine.get("floe")
    medians = {e: c.median for e, c in by_engine.items() if c.seconds}
    base = peer_median(medians, peer)
    if floe is None or not floe.seconds or base is None or base == 0:
        return None
    return floe.median / base, min(floe.seconds) / base, max(floe.seconds) / base


def answers_differ(by_engine: dict[str, Case]) -> str | None:
    """A sentence naming the engines whose answers differ, or None when all agree."""
    answers = {e: c.answer for e, c in by_engine.items() if c.answer is not None}
    if len(set(answers.values())) <= 1:
        return None
    groups: dict[str, list[str]] = {}
    for engine, answer in answers.items():
        groups.setdefault(str(answer), []).append(engine)
    return "answers differ: " + "; ".join(f"{', '.join(g)} = {a}" for a, g in groups.items())


def own_goals(case: Case, by_engine: Mapping[str, Case] | None = None) -> list[dict[str, Any]]:
    """``case.extra["own_goal"]``: one ``{"metric", "value", "goal"}`` or a list of them; the
    ones with a numeric value and goal. A goal relative to a peer, ``{"metric", "value", "peer",
    "peer_key", "factor"}``, is resolved against the peer's case of the same name in ``by_engine``:
    ``goal = factor * max(0, peer case's extra[peer_key])`` (a peer whose value is not positive
    leaves a goal of 0), with ``"peer_value"`` added; left out when the peer has no such value."""
    found = case.extra.get("own_goal")
    goals = found if isinstance(found, list) else [found]
    resolved: list[dict[str, Any]] = []
    for g in goals:
        if not isinstance(g, dict):
            continue
        if "goal" not in g and {"peer", "peer_key", "factor"} <= g.keys():
            peer = (by_engine or {}).get(str(g["peer"]))
            peer_value = peer.extra.get(str(g["peer_key"])) if peer is not None else None
            if not isinstance(peer_value, int | float) or not isinstance(g["factor"], int | float):
                continue
            g = {**g, "goal": g["factor"] * max(0.0, peer_value), "peer_value": peer_value}
        resolved.append(g)
    return [
        g for g in resolved
        if {"metric", "value", "goal"} <= g.keys()
        and all(isinstance(g[k], int | float) for k in ("value", "goal"))
    ]  # fmt: skip


def goal_lines(workload: Workload, table: dict[str, dict[str, Case]]) -> list[tuple[bool, str]]:
    """(met, sentence) for every goal of ``workload`` that could be checked. A case whose
    engines' answers differ misses every goal."""
    lines: list[tuple[bool, str]] = []
    for case_name, goals in workload.goals.items():
        by_engine = table.get(case_name)
        if not by_engine:
            continue
        differ = answers_differ(by_engine) is not None
        repeated = by_engine["floe"].repeated if "floe" in by_engine else True
        for peer, goal in goals.items():
            ratios = ratio_range(by_engine, peer)
            if ratios is None:
                continue
            met = goal_met(ratios[0], ratios[2] if repeated else None, goal) and not differ
            spread = f"worst {ratios[2]:.2f}" if repeated else "median of its samples only"
            sentence = (
                f"{workload.id} {case_name}: Floe/{peer} {ratios[0]:.2f} ({spread}), "
                f"goal <= {goal:g}: {'met' if met else 'MISSED'}"
                + ("; the engines' answers differ" if differ else "")
            )
            if not met:
                sentence += floor_note(by_engine, table, peer, goal)
            lines.append((met, sentence))
    for by_engine in table.values():
        floe = by_engine.get("floe")
        for own in own_goals(floe, by_engine) if floe is not None else []:
            value, goal = float(own["value"]), float(own["goal"])
            met = value <= goal
            name = floe.name if floe else ""
            verdict = "met" if met else "MISSED"
            sentence = f"{workload.id} {name}: {own['metric']} {value:.3g}, goal <= {goal:.3g}"
            if "peer_value" in own:
                sentence += f" ({own['factor']:g}x {own['peer']}'s {float(own['peer_value']):.3g})"
            lines.append((met, f"{sentence}: {verdict}"))
    return lines


def floor_note(
    by_engine: Mapping[str, Case], table: Mapping[str, Mapping[str, Case]], peer: str, goal: float
) -> str:
    """For a missed goal whose Floe case names a floor (``extra["floor_case"]``: a case of the
    same workload timing the least a Spark session spends on a query of that shape, such as
    ``SELECT 1``): the floor's fastest median over all engines divided by the peer's median of
    the missed case, and whether that already exceeds the goal. Empty when there is no floor."""
    floe = by_engine.get("floe")
    name = floe.extra.get("floor_case") if floe is not None else None
    floors = [c.median for c in table.get(str(name), {}).values() if c.seconds] if name else []
    medians = {e: c.median for e, c in by_engine.items() if c.seconds}
    base = peer_median(medians, peer)
    if not floors or not base:
        return ""
    bound = min(floors) / base
    verdict = "below it"
    if bound >= goal:
        verdict = "at or above the goal: no change to Floe can meet it here"
    return f"; its floor, '{name}' in the fastest session, is {bound:.2f} of {peer}'s time " + (
        f"({verdict})"
    )


def answer_problems(raw: dict[str, Any]) -> list[str]:
    """A line per case of ``raw`` whose engines' answers differ (a failed case)."""
    problems: list[str] = []
    for wid, results in raw["runs"].items():
        cases = [Case.from_json(c) for r in results.values() for c in r.get("cases", [])]
        for name, by_engine in case_table(cases).items():
            differ = answers_differ(by_engine)
            if differ is not None:
                problems.append(f"{wid} {name}: {differ}")
    return problems


def markdown(raw: dict[str, Any], workloads: Sequence[Workload]) -> str:
    engines = [e for e in ENGINES if e in raw["engines"]]
    quick = raw["quick"]
    out: list[str] = [f"# Floe benchmark suite, {raw.get('finished', '?')}", ""]
    mode = "quick mode" if quick else "full run"
    out.append(
        f"Command: `{raw.get('command', 'python bench/suite.py')}`; {mode}, "
        f"{raw['warmups']} warm-up, {raw['reps']} measured repetitions, "
        f"total {raw['total_seconds'] / 60:.1f} min ({budget_verdict(raw)}; where it went: "
        "the last section)."
    )
    if raw.get("shared_jvm"):
        out.append("JVMs: ONE per engine for all its workloads (quick mode), engines in the order "
                   f"{', '.join(engines)}; later workloads run in a warm JVM.")  # fmt: skip
    else:
        out.append("JVMs: a fresh one per engine and workload, engines interleaved ABC/CBA.")
    archives = raw.get("class_data_sharing") or {}
    if archives:
        states = "; ".join(f"{engine} {state}" for engine, state in archives.items())
        out.append(f"Class-data-sharing archives (JVM start only; bench/suite_cds.py): {states}.")
    else:
        out.append("Class-data-sharing archives: off (JVMs load every class from the jars).")
    versions = raw.get("versions", {})
    if versions:
        out.append("Versions: " + "; ".join(f"{k} {v}" for k, v in versions.items()) + ".")
    mach = raw.get("machine", {})
    if mach:
        out.append(f"Machine: {mach.get('cpu')}, {mach.get('cores')} cores, "
                   f"{mach.get('memory')}, {mach.get('os')}.")  # fmt: skip
    out.append(
        "Ratios are Floe's time over the peer's: median (min-max over Floe's repetitions); "
        "below 1 Floe is faster. Iceberg = the faster of iceberg-default and iceberg-best."
    )
    out.append("")

    all_goals: list[tuple[bool, str]] = []
    problems: list[str] = [f"{w}: {e}" for w, e in raw.get("errors", {}).items()]
    problems += answer_problems(raw)
    for workload in workloads:
        results = raw["runs"].get(workload.id, {})
        cases: list[Case] = []
        for engine, result in results.items():
            if "error" in result:
                problems.append(f"{workload.id} on {engine}: {result['error']}")
            cases += [Case.from_json(c) for c in result.get("cases", [])]
        table = case_table(cases)
        all_goals += goal_lines(workload, table)
        out.append(f"## {workload.id} {workload.title} ({workload.family})")
        out.append("")
        if not table:
            out.append("No results (see Problems).")
            out.append("")
            continue
        shown = [e for e in engines if any(e in by for by in table.values())]
        header = ["case", *(f"{e} s" for e in shown), *(h for h, _ in RATIO_COLUMNS)]
        out.append("| " + " | ".join(header) + " |")
        out.append("|" + "---|" * len(header))
        notes: list[str] = []
        for name, by_engine in table.items():
            row = [name]
            for engine in shown:
                case = by_engine.get(engine)
                row.append(fmt_seconds(case.median) if case and case.seconds else "-")
            row += [fmt_ratio(ratio_range(by_engine, peer)) for _, peer in RATIO_COLUMNS]
            out.append("| " + " | ".join(row) + " |")
            differ = answers_differ(by_engine)
            if differ:
                notes.append(f"**{name}: {differ}**")
            written = [f"{e} {c.bytes_written:,} B in {c.files_written or '?'} files"
                       for e, c in by_engine.items() if c.bytes_written is not None]  # fmt: skip
            if written:
                notes.append(f"{name}, written: " + "; ".join(written))
            read = [f"{e} {c.files_read}" for e, c in by_engine.items() if c.files_read is not None]
            if read:
                notes.append(f"{name}, files read: " + ", ".join(read))
        out.append("")
        for note in notes:
            out.append(f"- {note}")
        if notes:
            out.append("")

    out.append("## Goals")
    out.append("")
    if not all_goals:
        out.append("No goal could be checked in this run.")
    missed = [s for met, s in all_goals if not met]
    for met, sentence in all_goals:
        out.append(f"- {'met' if met else '**MISSED**'}: {sentence}")
    out.append("")
    out.append(f"Floe meets {len(all_goals) - len(missed)} of {len(all_goals)} checked goals"
               + (f" and MISSES {len(missed)}." if missed else "."))  # fmt: skip
    out.append("")
    if problems:
        out.append("## Problems")
        out.append("")
        out += [f"- {p}" for p in problems]
        out.append("")
    out += time_section(raw, engines)
    return "\n".join(out) + "\n"


def budget_verdict(raw: dict[str, Any]) -> str:
    """Whether the run kept its budget (:data:`BUDGET_MINUTES`), or why it is not checked."""
    from workloads import REGISTRY

    mode = "quick" if raw["quick"] else "full"
    budget = BUDGET_MINUTES[mode]
    every = {w.id for w in REGISTRY} <= set(raw.get("workloads", [])) and set(ENGINES) <= set(
        raw["engines"]
    )
    if not every:
        return (
            f"the {budget:g}-minute {mode} budget is for every workload on every engine: "
            "not checked"
        )
    met = raw["total_seconds"] <= budget * 60
    return f"budget {budget:g} min: {'met' if met else 'MISSED'}"


def time_section(raw: dict[str, Any], engines: Sequence[str]) -> list[str]:
    """'Where the time went': seconds per workload and engine (each workload from its start to its
    end inside the engine's JVM), the rest of each engine's JVMs (JVM start, Spark session, stop),
    and what ran outside them (inputs, archives, orchestration).
    Empty when the run recorded no processes."""
    processes = raw.get("processes") or []
    if not processes:
        return []
    shown = [e for e in engines if any(p["engine"] == e for p in processes)]
    inside: dict[str, dict[str, float]] = {}
    for wid, results in raw["runs"].items():
        for engine, result in results.items():
            if result.get("seconds") is not None:
                inside.setdefault(wid, {})[engine] = float(result["seconds"])
    jvm_total = {e: sum(p["seconds"] for p in processes if p["engine"] == e) for e in shown}
    jvms = {e: sum(1 for p in processes if p["engine"] == e) for e in shown}

    def row(label: str, cells: dict[str, float]) -> str:
        values = [f"{cells[e]:,.0f}" if e in cells else "-" for e in shown]
        return f"| {label} | " + " | ".join(values) + f" | {sum(cells.values()):,.0f} |"

    out = ["## Where the time went", "",
           "Seconds of wall time. A workload's cell runs from its start to its end inside the "
           "engine's JVM (inputs made, tables written, warm-ups, measured repetitions); "
           "'rest of the JVMs' is each engine's JVMs' time outside them (JVM start, Spark "
           "session, stop).", "",
           "| workload | " + " | ".join(shown) + " | all engines |",
           "|" + "---|" * (len(shown) + 2)]  # fmt: skip
    for wid in raw["runs"]:
        if wid in inside:
            out.append(row(wid, inside[wid]))
    rest = {e: jvm_total[e] - sum(c.get(e, 0.0) for c in inside.values()) for e in shown}
    out.append(row(f"rest of the JVMs ({', '.join(f'{e} {jvms[e]}' for e in shown)} JVMs)", rest))
    out.append(row("**total**", jvm_total))
    prepare = float(raw.get("prepare_seconds", 0.0))
    outside = raw["total_seconds"] - prepare - sum(jvm_total.values())
    out += [
        "",
        f"Outside the engines' JVMs: {prepare:,.0f} s preparing the inputs (one JVM) and "
        f"{outside:,.0f} s else (class-data-sharing archives when made, the orchestration).",
        "",
    ]
    return out


def charts(raw: dict[str, Any], workloads: Sequence[Workload], into: Path) -> list[Path]:
    """One PNG per workload family: Floe's median time over each peer's, per case (log scale);
    nothing when matplotlib is not installed (bench-only dependency, scripts/lib.sh)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter
    except ImportError:
        return []
    families: dict[str, list[tuple[str, dict[str, Case]]]] = {}
    for workload in workloads:
        cases: list[Case] = []
        for result in raw["runs"].get(workload.id, {}).values():
            cases += [Case.from_json(c) for c in result.get("cases", [])]
        for name, by_engine in case_table(cases).items():
            families.setdefault(workload.family, []).append((f"{workload.id} {name}", by_engine))
    into.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for family, rows in families.items():
        labels = [label for label, _ in rows]
        fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(labels) + 3), 4.5))
        series: list[tuple[str, list[float]]] = []
        for header, peer in RATIO_COLUMNS:
            values = []
            for _, by_engine in rows:
                r = ratio_range(by_engine, peer)
                values.append(r[0] if r else float("nan"))
            if any(v == v for v in values):  # at least one is not NaN
                series.append((header, values))
        if not series:
            plt.close(fig)
            continue
        width = 0.8 / len(series)
        for i, (header, values) in enumerate(series):
            offset = (i - (len(series) - 1) / 2) * width
            ax.bar([x + offset for x in range(len(labels))], values, width, label=header)
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.set_yscale("log")
        plain = FuncFormatter(lambda value, _: f"{value:g}")
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(plain)
        ax.tick_params(axis="y", which="minor", labelsize=7)
        ax.set_ylabel("Floe time / peer time (lower is better)")
        ax.set_title(f"Floe vs peers: {family}")
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = into / f"{family}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def median_or_none(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def write_outputs(
    raw: dict[str, Any], workloads: Sequence[Workload], results: Path, stamp: str
) -> list[Path]:
    """Writes suite-<stamp>.md, latest.md and the charts under ``results``."""
    results.mkdir(parents=True, exist_ok=True)
    chart_paths = charts(raw, workloads, results / "charts")
    text = markdown(raw, workloads)
    if chart_paths:
        text += "## Charts\n\n" + "".join(
            f"![{p.stem}](charts/{p.name})\n" for p in chart_paths
        )
    report = results / f"suite-{stamp}.md"
    report.write_text(text, encoding="utf-8")
    latest = results / "latest.md"
    latest.write_text(text, encoding="utf-8")
    return [report, latest, *chart_paths]
