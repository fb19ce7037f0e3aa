#!/usr/bin/env python3
"""The Floe benchmark suite (docs/benchmarks.md, 'The suite'): every workload side by side
on plain Spark Parquet, Apache Iceberg (defaults and best settings), Delta Lake and Floe.

    python bench/suite.py [--quick] [--workloads W1,W3] [--engines floe,iceberg,delta,parquet]
        [--profile] [--dir PATH] [--keep] [--results DIR] [--no-cds]

Each engine runs each workload in its own fresh JVM (a worker process of this script), engines
interleaved in ABC/CBA order from one workload to the next; inside, the workload runs a warm-up
and then 5 measured repetitions (3 with ``--quick``). With ``--quick`` each engine runs all its
workloads in ONE JVM (JVM start would otherwise eat the 5-minute budget); the report says so.
Inputs are generated once (``prepare``, in a plain Spark JVM) under ``--dir``/inputs and reused
while their parameters hold; every engine reads the same files (hard links). Every JVM starts
from a class-data-sharing archive of its engine's classes (bench/suite_cds.py; built once per
engine and jar set into the cache folder, before the first JVM; ``--no-cds`` turns them off).

Output, in ``--results`` (default bench/results): suite-<UTC>.md and latest.md (median ratios
Floe/Parquet, Floe/Iceberg, Floe/Delta with min and max, goals met or MISSED, answers checked
equal, bytes and files written, versions, machine) and PNG charts in charts/ (matplotlib); the raw
numbers in bench/out/suite-<UTC>.json. ``--profile`` records JFR for Floe's JVMs (under
``--dir``/profiles/<UTC>/) and draws their flame graphs (``--results``/profiles/<UTC>/). Exit
status 1 when a workload failed on an engine or the engines' answers to a case differ.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT / "pyspark-shim"))
_BUILT_JAR = ROOT / "spark-extension" / "spark" / "build" / "libs" / "floe-spark.jar"

from suite_api import ENGINES, FAMILIES, Case, Context, Workload  # noqa: E402

OUT = BENCH / "out"
RESULTS = BENCH / "results"
#: A worker process that runs longer than this is stopped (its workloads are reported failed).
WORKER_TIMEOUT_S = int(os.environ.get("FLOE_SUITE_WORKER_TIMEOUT", "1800"))


def progress(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def parse_engines(parser: argparse.ArgumentParser, text: str) -> list[str]:
    """``--engines``: families (``iceberg`` = both Iceberg configurations) or engine names."""
    chosen: list[str] = []
    for item in (s.strip() for s in text.split(",")):
        if not item:
            continue
        names = FAMILIES.get(item) or ((item,) if item in ENGINES else None)
        if names is None:
            parser.error(f"unknown engine {item!r}; choose from {', '.join([*FAMILIES, *ENGINES])}")
        chosen += [n for n in names if n not in chosen]
    if not chosen:
        parser.error(f"--engines {text!r} names no engine; choose from "
                     f"{', '.join([*FAMILIES, *ENGINES])}")  # fmt: skip
    return [e for e in ENGINES if e in chosen]


def parse_workloads(
    parser: argparse.ArgumentParser, text: str | None, registry: list[Workload]
) -> list[Workload]:
    if not text:
        return list(registry)
    known = {w.id.upper(): w for w in registry}
    wanted = [s.strip().upper() for s in text.split(",") if s.strip()]
    unknown = [w for w in wanted if w not in known]
    if unknown or not wanted:
        what = f"unknown workloads {unknown}" if unknown else f"--workloads {text!r} names none"
        parser.error(f"{what}; choose from {', '.join(known)}")
    return [w for w in registry if w.id.upper() in wanted]


def check_applicable(
    parser: argparse.ArgumentParser, workloads: list[Workload], engines: list[str]
) -> None:
    """Stops with a usage error when no chosen workload runs on any chosen engine."""
    if not any(e in w.engines for w in workloads for e in engines):
        runs_on = "; ".join(f"{w.id}: {', '.join(w.engines)}" for w in workloads)
        parser.error(f"none of the workloads runs on {', '.join(engines)} ({runs_on})")


#: Marks ``--dir``/inputs as the suite's: its datasets are deleted and regenerated when their
#: parameters change, so the suite refuses an ``inputs`` folder it did not make.
INPUTS_MARK = ".floe-bench-inputs"
#: What the datasets of earlier runs (before INPUTS_MARK) left in their folders.
_DATASET_MARKS = ("_DATASET.json", "_DONE", "built.json")


def claim_inputs(inputs: Path) -> str | None:
    """Marks ``inputs`` as the suite's (creating it); returns why not when it is a non-empty
    folder that neither holds the mark nor datasets of an earlier run."""
    mark = inputs / INPUTS_MARK
    if inputs.is_dir() and not mark.is_file() and any(inputs.iterdir()):
        folders = [d for d in inputs.iterdir() if d.is_dir()]
        if not any((d / name).is_file() for d in folders for name in _DATASET_MARKS):
            return (f"{inputs} holds files bench/suite.py did not write, and the suite deletes "
                    "what it regenerates there: choose another --dir")  # fmt: skip
    if inputs.exists() and not inputs.is_dir():
        return f"{inputs} is not a folder: choose another --dir"
    inputs.mkdir(parents=True, exist_ok=True)
    mark.touch()
    return None


def plan_jobs(
    workloads: list[Workload], engines: list[str], shared_jvm: bool
) -> list[tuple[str, list[str]]]:
    """The worker processes to run, in order: (engine, workload ids). One per engine and
    workload, engines in ABC order for even workloads and CBA for odd ones; with ``shared_jvm``
    one per engine with all its workloads."""
    if shared_jvm:
        jobs = [(e, [w.id for w in workloads if e in w.engines]) for e in engines]
        return [(e, ids) for e, ids in jobs if ids]
    planned: list[tuple[str, list[str]]] = []
    for i, workload in enumerate(workloads):
        order = engines if i % 2 == 0 else list(reversed(engines))
        planned += [(e, [workload.id]) for e in order if e in workload.engines]
    return planned


def workload_files(workloads: list[Workload]) -> dict[str, str]:
    """Workloads not in REGISTRY (e.g. a test's): id -> the file of the module defining them,
    which the worker processes load."""
    from workloads import by_id

    known = by_id()
    files: dict[str, str] = {}
    for workload in workloads:
        if known.get(workload.id) is not workload:
            module = sys.modules[workload.run.__module__]
            files[workload.id] = str(Path(str(module.__file__)).resolve())
    return files


def external_workloads(spec: dict[str, Any]) -> dict[str, Workload]:
    found: dict[str, Workload] = {}
    for wid, file in (spec.get("workload_files") or {}).items():
        loader = importlib.util.spec_from_file_location(f"suite_external_{wid}", file)
        if loader is None or loader.loader is None:
            raise ImportError(f"Cannot load workload {wid} from {file}")
        module = importlib.util.module_from_spec(loader)
        loader.loader.exec_module(module)
        workload = getattr(module, "WORKLOAD", None)
        if not isinstance(workload, Workload):
            raise ImportError(f"{file} has no WORKLOAD = Workload(...)")
        found[wid] = workload
    return found


# -- worker side (inside the engine's JVM) ------------------------------------------------------
def worker(spec: dict[str, Any]) -> int:
    """Runs ``spec["workloads"]`` for ``spec["engine"]`` in this process's one SparkSession and
    writes ``{"results": {workload id: {"cases": [...]} or {"error": ...}}}`` to ``spec["result"]``
    after each workload (a crash keeps what finished)."""
    from suite_engines import session
    from workloads import by_id

    engine: str = spec["engine"]
    work = Path(spec["work"])
    work.mkdir(parents=True, exist_ok=True)
    registry = {**by_id(), **external_workloads(spec)}
    out: dict[str, Any] = {"engine": engine, "results": {}}
    result_path = Path(spec["result"])
    spark = session(engine, work, extra_conf=spec.get("extra_conf") or {})
    try:
        for wid in spec["workloads"]:
            workload = registry[wid]
            ctx = Context(
                engine, spark, Path(spec["inputs"]), work / wid, bool(spec["quick"]),
                reps=spec.get("reps"), warmups=int(spec.get("warmups", 1)),
            )  # fmt: skip
            ctx.work.mkdir(parents=True, exist_ok=True)
            progress(f"{wid} on {engine}")
            started = time.perf_counter()
            try:
                cases = workload.run(ctx)
                out["results"][wid] = {"cases": [c.to_json() for c in cases]}
            except Exception as e:
                traceback.print_exc()
                out["results"][wid] = {"error": short_error(e)}
            out["results"][wid]["seconds"] = time.perf_counter() - started
            result_path.write_text(json.dumps(out), encoding="utf-8")
            if not spec.get("keep"):
                shutil.rmtree(ctx.work, ignore_errors=True)
    finally:
        spark.stop()
    return 0


def short_error(e: BaseException) -> str:
    """The exception's first lines without JVM stack frames (the worker's log has them all)."""
    lines = [ln.strip() for ln in f"{type(e).__name__}: {e}".splitlines()]
    kept = [ln for ln in lines if ln and not ln.startswith("at ") and not ln.startswith("...")]
    return " / ".join(kept[:4])[:800]


def prepare_worker(spec: dict[str, Any]) -> int:
    """Runs every selected workload's ``prepare`` in one plain Spark session."""
    from suite_engines import plain_session
    from workloads import by_id

    registry = {**by_id(), **external_workloads(spec)}
    inputs = Path(spec["inputs"])
    inputs.mkdir(parents=True, exist_ok=True)
    spark = plain_session(Path(spec["work"]), java_options=spec.get("java_options", ""))
    errors: dict[str, str] = {}
    try:
        for wid in spec["workloads"]:
            progress(f"prepare {wid}")
            try:
                registry[wid].prepare(spark, inputs, bool(spec["quick"]))
            except Exception as e:
                traceback.print_exc()
                errors[wid] = f"prepare failed: {short_error(e)}"
    finally:
        spark.stop()
    Path(spec["result"]).write_text(json.dumps({"errors": errors}), encoding="utf-8")
    return 0


# -- orchestration ------------------------------------------------------------------------------
def run_process(mode: str, spec: dict[str, Any], label: str) -> tuple[dict[str, Any], float]:
    """Runs this script as ``--worker``/``--prepare`` with ``spec`` in a fresh process; returns
    the JSON it wrote (``{}`` when it wrote none) and its wall time."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        spec_file = Path(handle.name)
    result_file = spec_file.with_suffix(".result.json")
    spec = {**spec, "result": str(result_file)}
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    progress(f"start {label}")
    started = time.perf_counter()
    returncode: int | str
    try:
        done = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), mode, str(spec_file)],
            check=False, timeout=WORKER_TIMEOUT_S,
        )  # fmt: skip
        returncode = done.returncode
    except subprocess.TimeoutExpired:
        returncode = f"timed out after {WORKER_TIMEOUT_S} s"
    seconds = time.perf_counter() - started
    try:
        loaded: dict[str, Any] = (
            json.loads(result_file.read_text(encoding="utf-8")) if result_file.is_file() else {}
        )
    finally:
        spec_file.unlink(missing_ok=True)
        result_file.unlink(missing_ok=True)
    if returncode != 0:
        loaded["process_error"] = f"{label}: worker exited with {returncode}"
    progress(f"done {label} in {seconds:.1f} s")
    return loaded, seconds


def run_suite(
    workloads: list[Workload],
    engines: list[str],
    quick: bool,
    base: Path,
    keep: bool = False,
    reps: int | None = None,
    warmups: int = 1,
    shared_jvm: bool | None = None,
    extra_conf: dict[str, dict[str, str]] | None = None,
    profile_dir: Path | None = None,
    class_data_sharing: bool = True,
) -> dict[str, Any]:
    """Prepares the inputs, runs every (engine, workload) job and returns the raw results:
    ``{"runs": {wid: {engine: {"cases": [...], ...}}}, "errors": {...}, ...}``. With
    ``class_data_sharing`` each engine's JVMs start from its archive (bench/suite_cds.py), made
    first when the cache has none."""
    shared = quick if shared_jvm is None else shared_jvm
    inputs = base / "inputs"
    run_dir = base / f"work-{dt.datetime.now(dt.UTC).strftime('%Y%m%dT%H%M%SZ')}"
    started = time.perf_counter()
    files = workload_files(workloads)
    archives: dict[str, tuple[str, str]] = {}
    if class_data_sharing:
        import suite_cds

        for engine in dict.fromkeys(["parquet", *engines]):  # the prepare JVM is plain Spark
            progress(f"class-data-sharing archive of {engine}")
            archives[engine] = suite_cds.java_options(engine)
            progress(f"{engine}: {archives[engine][1]}")
    prepared, prepare_seconds = run_process(
        "--prepare",
        {"inputs": str(inputs), "work": str(run_dir / "prepare"), "quick": quick,
         "workloads": [w.id for w in workloads], "workload_files": files,
         "java_options": archives.get("parquet", ("", ""))[0]},
        "prepare",
    )  # fmt: skip
    errors: dict[str, str] = dict(prepared.get("errors", {}))
    if "process_error" in prepared:
        errors["prepare"] = prepared["process_error"]
    runnable = [w for w in workloads if w.id not in errors and "prepare" not in errors]
    runs: dict[str, dict[str, Any]] = {w.id: {} for w in workloads}
    processes: list[dict[str, Any]] = []
    for engine, ids in plan_jobs(runnable, engines, shared):
        conf = dict((extra_conf or {}).get(engine, {}))
        java_options = [archives.get(engine, ("", ""))[0]]
        if profile_dir is not None and engine == "floe":
            java_options.append(profile_options(profile_dir / f"{'-'.join(ids)}-{engine}.jfr"))
        if any(java_options):
            conf["spark.driver.extraJavaOptions"] = " ".join(o for o in java_options if o)
        spec = {
            "engine": engine, "workloads": ids, "inputs": str(inputs),
            "work": str(run_dir / engine / "-".join(ids)), "quick": quick, "reps": reps,
            "warmups": warmups, "keep": keep, "extra_conf": conf,
            "workload_files": {w: f for w, f in files.items() if w in ids},
        }  # fmt: skip
        loaded, seconds = run_process("--worker", spec, f"{engine} {','.join(ids)}")
        processes.append({"engine": engine, "workloads": ids, "seconds": seconds})
        for wid in ids:
            result = loaded.get("results", {}).get(wid)
            if result is None:
                result = {"error": loaded.get("process_error", "the worker wrote no result")}
            runs[wid][engine] = result
    if not keep:
        shutil.rmtree(run_dir, ignore_errors=True)
    return {
        "runs": runs,
        "errors": errors,
        "processes": processes,
        "prepare_seconds": prepare_seconds,
        "total_seconds": time.perf_counter() - started,
        "quick": quick,
        "shared_jvm": shared,
        "engines": engines,
        "workloads": [w.id for w in workloads],
        "reps": reps if reps is not None else (3 if quick else 5),
        "warmups": warmups,
        "class_data_sharing": {engine: status for engine, (_, status) in archives.items()},
    }


def profile_options(jfr: Path) -> str:
    """JVM options recording ``jfr`` for the whole JVM (bench/jfr_profile.py)."""
    from jfr_profile import driver_java_options

    return driver_java_options(jfr)


def flame_graphs(recordings: Path, into: Path) -> list[Path]:
    """An SVG flame graph per ``.jfr`` in ``recordings`` (bench/jfr_profile.py)."""
    from jfr_profile import flame_svg, load

    into.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for jfr in sorted(recordings.glob("*.jfr")):
        svg = into / f"{jfr.stem}.svg"
        svg.write_text(flame_svg(load(jfr), f"{jfr.stem} (CPU samples)"), "utf-8")
        written.append(svg)
    return written


def cases_of(raw: dict[str, Any], wid: str) -> list[Case]:
    """Every engine's cases of workload ``wid`` in ``raw``."""
    found: list[Case] = []
    for result in raw["runs"].get(wid, {}).values():
        found += [Case.from_json(c) for c in result.get("cases", [])]
    return found


def repetitions(text: str) -> int:
    """``--reps``: a whole number from 1 to 1000 (a case needs a measured run to have a time)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 1000:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of repetitions from 1 to 1000")
    return value


def use_built_jar() -> None:
    """Makes the jar Gradle built this process's and its workers' Floe jar, unless ``FLOE_JAR``
    names one. Only once a run is certain to start, not at import nor before the arguments are
    checked: a test that imports this module, or calls ``main`` with bad arguments, keeps its
    process's jar (and the key of the tests' class-data-sharing archive, which depends on it)."""
    if "FLOE_JAR" not in os.environ and _BUILT_JAR.is_file():
        os.environ["FLOE_JAR"] = str(_BUILT_JAR)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 2 and argv[0] in ("--worker", "--prepare"):
        use_built_jar()
        spec = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
        return worker(spec) if argv[0] == "--worker" else prepare_worker(spec)

    from workloads import REGISTRY

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="3 reps, small inputs, one JVM per engine"
    )
    parser.add_argument("--workloads", help="comma-separated ids, e.g. W1,W3 (default: all)")
    parser.add_argument(
        "--engines", default="parquet,iceberg,delta,floe",
        help="families (parquet, iceberg, delta, floe) or engine names",
    )  # fmt: skip
    parser.add_argument("--profile", action="store_true", help="record JFR in Floe's JVMs")
    parser.add_argument("--dir", type=Path, default=OUT / "suite",
                        help="inputs and scratch (default bench/out/suite)")  # fmt: skip
    parser.add_argument("--keep", action="store_true", help="keep the engines' scratch tables")
    parser.add_argument("--results", type=Path, default=RESULTS, help="report directory")
    parser.add_argument("--reps", type=repetitions, default=None,
                        help="override measured repetitions (1-1000)")  # fmt: skip
    parser.add_argument("--jvm-per-workload", action="store_true",
                        help="with --quick: still one JVM per engine and workload")  # fmt: skip
    parser.add_argument("--no-cds", action="store_true",
                        help="no class-data-sharing archives (bench/suite_cds.py)")  # fmt: skip
    args = parser.parse_args(argv)
    engines = parse_engines(parser, args.engines)
    workloads = parse_workloads(parser, args.workloads, REGISTRY)
    check_applicable(parser, workloads, engines)
    base = args.dir.resolve()
    refused = claim_inputs(base / "inputs")
    if refused:
        parser.error(refused)
    use_built_jar()
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    recordings = base / "profiles" / stamp if args.profile else None
    raw = run_suite(
        workloads, engines, args.quick, base, keep=args.keep, reps=args.reps,
        shared_jvm=args.quick and not args.jvm_per_workload, profile_dir=recordings,
        class_data_sharing=not args.no_cds,
    )  # fmt: skip
    from suite_engines import versions
    from suite_report import answer_problems, machine, write_outputs

    raw["versions"] = versions()
    raw["machine"] = machine()
    raw["finished"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    raw["command"] = shlex.join(["python", "bench/suite.py", *argv])
    if recordings is not None:
        svgs = flame_graphs(recordings, args.results / "profiles" / stamp)
        raw["profiles"] = [str(p) for p in svgs] or str(recordings)
    OUT.mkdir(parents=True, exist_ok=True)
    raw_path = OUT / f"suite-{stamp}.json"
    raw_path.write_text(json.dumps(raw, indent=1) + "\n", encoding="utf-8")
    written = write_outputs(raw, workloads, args.results, stamp)
    for path in [raw_path, *written]:
        print(f"wrote {path}")
    failed = [f"{w} {e}" for w, by in raw["runs"].items() for e, r in by.items() if "error" in r]
    failed += answer_problems(raw)
    if failed or raw["errors"]:
        print(f"FAILED: {', '.join(failed + list(raw['errors']))}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
