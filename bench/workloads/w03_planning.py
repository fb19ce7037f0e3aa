"""W3 planning at scale (BENCH.md 9.2; ported from bench/planning.py): the time from the SQL text
to the scan's input partitions on D3, synthetic tables of 10K and 100K data-file entries (1M with
``FLOE_BENCH_W3_1M=1``), in three query shapes, cold and warm.

D3 (built once by ``prepare`` under ``inputs/d3``, through Iceberg's Java API in a Spark process
of its own; bench/planning_helper/SyntheticManifests.java): one Iceberg format-v2 table per size,
``(id BIGINT, ts TIMESTAMP, category STRING, amount DOUBLE, p INT)`` partitioned by ``identity(p)``,
with SIZE synthetic entries (no data files) in manifests of 100 entries, bounds and counts on
every column, entry ``i`` covering ids ``[1000 i, 1000 i + 1000)`` in partition ``p = i / 1000``;
plus 3 real data files of 1,000 rows in partition ``p = -1`` covering a gap of ids in the middle.
Every engine plans the very same metadata files: the Floe and Iceberg catalogs both read the
Hadoop-style warehouse (``catalog d3``, registered at run time).

Shapes: ``minmax`` (``id BETWEEN`` the gap: only column bounds prune, every manifest is read),
``partition`` (``p = -1``: the manifest list's partition summaries prune) and ``nofilter``
(every entry planned; not executed, as the synthetic files do not exist). The first two are then
run once and their answers checked equal across engines.

Cold: in a full run, at 100K entries and more (where the goals apply), ``COLD_REPS`` fresh Spark
processes per engine and size, each running a query on a tiny table first (Spark's and the
engine's classes loaded) and then planning the ``minmax`` shape once; at 10K, the first plan in the
workload's own fresh JVM (one sample, after the same tiny query). With ``--quick``, the first
``minmax`` plan in the workload's JVM, which ``--quick`` shares with the other workloads: a smoke
figure only. Each cold case keeps the driver JVM's garbage-collection seconds during each of its
plans (``extra["gc_seconds"]``): decoding 100K manifest entries allocates enough to make GC a
large part of a cold plan. Warm: the same session's later plans (``ctx.time``, a warm-up then the
measured reps).

Floor: ``floor: the partition shape on a 10-row table`` plans ``partition``'s query on the tiny
table of the warm-up (one file, one manifest), warm, as the cases above: what planning costs a
Spark session whatever the table's size (parsing, analysis, optimization, the py4j calls of the
timing). The ``partition`` cases name it (``extra["floor_case"]``), so a missed goal's line in the
report says how much of Iceberg's time the fastest session's floor already takes.

Engines: floe, iceberg-default (manifest cache off) and iceberg-best (``io.manifest.cache-enabled``;
``rewrite_manifests`` is not run, as the shared D3 tables are read-only and their manifests are
already clustered, 100 entries each). Delta is not measured: delta-spark has no public API to
commit file entries without data files, so a comparable synthetic table would mean hand-writing
its log and checkpoint.

Budget (issue 17: 6 min full, 40 s quick): 1M entries take about 2 minutes to build and Iceberg
about half a minute per plan on this 2-core box, which does not fit; BENCH.md 9.1 makes the
1M-entry cold planning an opt-in long variant, hence ``FLOE_BENCH_W3_1M=1``.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import planning_tables as tables
from bench_session import gc_seconds
from suite_api import Case, Context, Workload, answer_digest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

BENCH = Path(__file__).resolve().parent.parent
CATALOG = "d3"
NAMESPACE = "bench"
REAL_PARTITION = -1
COLD_REPS = 3
LARGE_ENV = "FLOE_BENCH_W3_1M"
ENGINES = ("iceberg-default", "iceberg-best", "floe")
SHAPES = ("minmax", "partition", "nofilter")
COLUMNS = f"{tables.COLUMNS}, p INT"
CHILD_TIMEOUT_S = 900
GOAL_COLD = 0.33
GOAL_SIZE = 100_000  # the goals apply from this many entries on
GOAL_WARM = 0.2


def sizes(quick: bool) -> list[int]:
    if quick:
        return [10_000]
    return [10_000, 100_000] + ([1_000_000] if os.environ.get(LARGE_ENV) == "1" else [])


def label(size: int) -> str:
    return f"{size // 1_000_000}M" if size >= 1_000_000 else f"{size // 1000}K"


def query(size: int, shape: str) -> str:
    table = f"{CATALOG}.{NAMESPACE}.{tables.table_name(size)}"
    if shape == "minmax":
        return tables.minmax_sql(table, size)
    if shape == "partition":
        return f"SELECT count(*), sum(amount) FROM {table} WHERE p = {REAL_PARTITION}"
    return f"SELECT count(*), sum(amount) FROM {table}"


def warehouse(inputs: Path) -> Path:
    return inputs / "d3" / "warehouse"


# ----------------------------------------------------------------------------------------------
# prepare: D3 built in a Spark process with the Iceberg runtime and the compiled helper


def prepare(spark: SparkSession, inputs: Path, quick: bool) -> None:
    wanted = sizes(quick)
    done = inputs / "d3" / "built.json"
    built: dict[str, Any] = json.loads(done.read_text()) if done.is_file() else {}
    if all(str(s) in built for s in wanted):
        return
    spec = {"inputs": str(inputs), "sizes": wanted}
    run_child("--build", spec)


def build(spec: dict[str, Any]) -> dict[str, Any]:
    from iceberg_runtime import iceberg_runtime_jar
    from pyspark.sql import SparkSession
    from suite_engines import engine_conf

    inputs = Path(spec["inputs"])
    work = inputs / "d3"
    helper = tables.compile_helper(iceberg_runtime_jar(), work / "helper-classes")
    conf = engine_conf("iceberg-default", work) | {
        "spark.driver.extraClassPath": os.pathsep.join([str(iceberg_runtime_jar()), str(helper)]),
        f"spark.sql.catalog.{CATALOG}": "org.apache.iceberg.spark.SparkCatalog",
        f"spark.sql.catalog.{CATALOG}.type": "hadoop",
        f"spark.sql.catalog.{CATALOG}.warehouse": str(warehouse(inputs)),
        f"spark.sql.catalog.{CATALOG}.cache-enabled": "false",
    }  # fmt: skip
    builder = SparkSession.builder.appName("floe-suite-w3-build")
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    done = work / "built.json"
    built: dict[str, Any] = json.loads(done.read_text()) if done.is_file() else {}
    try:
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {CATALOG}.{NAMESPACE}")
        existing = {
            r.tableName for r in spark.sql(f"SHOW TABLES IN {CATALOG}.{NAMESPACE}").collect()
        }
        props = "PARTITIONED BY (p) TBLPROPERTIES ('format-version' = '2')"
        if "tiny" not in existing:
            spark.sql(f"CREATE TABLE {CATALOG}.{NAMESPACE}.tiny ({COLUMNS}) USING iceberg {props}")
            spark.sql(f"INSERT INTO {CATALOG}.{NAMESPACE}.tiny {tables.rows_sql(0, 10, 0)}")
        for size in spec["sizes"]:
            name = f"{CATALOG}.{NAMESPACE}.{tables.table_name(size)}"
            if str(size) in built:
                continue
            if tables.table_name(size) in existing:  # a build that did not finish
                spark.sql(f"DROP TABLE {name} PURGE")
            built[str(size)] = tables.build_table(
                spark, name, size, f"({COLUMNS}) USING iceberg {props}",
                lambda first, count: tables.rows_sql(first, count, REAL_PARTITION),
            )
            done.write_text(json.dumps(built))
    finally:
        spark.stop()
    return built


def register_catalog(spark: SparkSession, engine: str, inputs: Path) -> None:
    """Catalog ``d3`` of ``engine`` on the D3 warehouse (read-only)."""
    location = str(warehouse(inputs))
    prefix = f"spark.sql.catalog.{CATALOG}"
    if engine == "floe":
        import floe

        conf = {
            k: v
            for k, v in floe.floe_conf(location, catalog=CATALOG).items()
            if k.startswith(prefix)
        }
    else:
        conf = {prefix: "org.apache.iceberg.spark.SparkCatalog", f"{prefix}.type": "hadoop",
                f"{prefix}.warehouse": location}  # fmt: skip
        if engine == "iceberg-best":
            conf[f"{prefix}.io.manifest.cache-enabled"] = "true"
    for key, value in conf.items():
        spark.conf.set(key, value)


#: The floor case (see above): its name and query.
FLOOR = (
    "floor: the partition shape on a 10-row table",
    f"SELECT count(*), sum(amount) FROM {CATALOG}.{NAMESPACE}.tiny WHERE p = 0",
)


def warm_up(spark: SparkSession) -> None:
    """A query on the tiny table: Spark's and the engine's classes loaded, no D3 metadata read."""
    spark.sql(
        f"SELECT count(*), sum(amount) FROM {CATALOG}.{NAMESPACE}.tiny WHERE id < 5"
    ).collect()


def cold(spec: dict[str, Any]) -> dict[str, Any]:
    """One cold plan in this fresh process (``--cold``)."""
    from suite_engines import session

    spark = session(spec["engine"], Path(spec["work"]), app_name="floe-suite-w3-cold")
    try:
        register_catalog(spark, spec["engine"], Path(spec["inputs"]))
        warm_up(spark)
        gc_before = gc_seconds(spark)
        seconds, partitions = tables.plan_seconds(spark, query(spec["size"], "minmax"))
        gc = gc_seconds(spark) - gc_before
    finally:
        spark.stop()
    return {"seconds": seconds, "partitions": partitions, "gc_seconds": gc}


def answer(spark: SparkSession, sql: str) -> str:
    rows = [
        [round(v, 6) if isinstance(v, float) else v for v in r] for r in spark.sql(sql).collect()
    ]
    return answer_digest(rows)


def run(ctx: Context) -> list[Case]:
    register_catalog(ctx.spark, ctx.engine, ctx.inputs)
    warm_up(ctx.spark)
    cases: list[Case] = []
    last: dict[str, int] = {}  # input partitions of the latest plan

    def plan(sql: str) -> None:
        last["partitions"] = tables.plan_seconds(ctx.spark, sql)[1]

    for size in sizes(ctx.quick):
        minmax = query(size, "minmax")
        if ctx.quick or size < GOAL_SIZE:
            # the first plan of D3 in this JVM: in a full run the workload's JVM is fresh, so this
            # is a true cold plan (one sample, no goal below GOAL_SIZE); --quick shares the JVM
            gc_before = gc_seconds(ctx.spark)
            first, _ = tables.plan_seconds(ctx.spark, minmax)
            cold_seconds = [first]
            cold_gc = [gc_seconds(ctx.spark) - gc_before]
        else:
            spec = {"engine": ctx.engine, "size": size, "inputs": str(ctx.inputs),
                    "work": str(ctx.work / "cold")}  # fmt: skip
            children = [run_child("--cold", spec) for _ in range(COLD_REPS)]
            cold_seconds = [child["seconds"] for child in children]
            cold_gc = [child["gc_seconds"] for child in children]
        cases.append(
            ctx.case(
                f"minmax {label(size)} cold",
                cold_seconds,
                entries=size + tables.REAL_FILES,
                gc_seconds=cold_gc,
            )
        )
        for shape in SHAPES:
            sql = query(size, shape)
            seconds = ctx.time(functools.partial(plan, sql))
            partitions = last["partitions"]
            digest = None if shape == "nofilter" else answer(ctx.spark, sql)
            name = f"{shape} {label(size)} warm"
            entries = size + tables.REAL_FILES
            case = ctx.case(
                name, seconds, answer=digest, entries=entries, input_partitions=partitions
            )
            if shape == "partition":
                case.extra["floor_case"] = FLOOR[0]
            cases.append(case)
    floor_seconds = ctx.time(functools.partial(plan, FLOOR[1]))
    cases.append(ctx.case(FLOOR[0], floor_seconds, answer=answer(ctx.spark, FLOOR[1])))
    return cases


def run_child(mode: str, spec: dict[str, Any]) -> dict[str, Any]:
    """Runs this module as ``mode`` (``--build``, ``--cold``) in a fresh Python and JVM."""
    env = dict(os.environ)
    paths = [str(BENCH), str(BENCH.parent / "python-tests"), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), mode, json.dumps(spec)],
        capture_output=True, text=True, env=env, timeout=CHILD_TIMEOUT_S, check=False,
    )  # fmt: skip
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"W3 {mode} failed ({done.returncode}):\n{done.stdout[-2000:]}\n"
                           f"{done.stderr[-4000:]}")  # fmt: skip
    result: dict[str, Any] = json.loads(lines[-1][len("RESULT ") :])
    return result


def goals() -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for size in (GOAL_SIZE, 1_000_000):
        out[f"minmax {label(size)} cold"] = {"iceberg": GOAL_COLD}
        for shape in SHAPES:
            out[f"{shape} {label(size)} warm"] = {"iceberg": GOAL_WARM}
    return out


WORKLOAD = Workload(
    id="W3",
    title="Planning at scale",
    family="metadata",
    engines=ENGINES,
    prepare=prepare,
    run=run,
    goals=goals(),
)


if __name__ == "__main__":
    sys.path.insert(0, str(BENCH))
    mode, payload = sys.argv[1], json.loads(sys.argv[2])
    result = build(payload) if mode == "--build" else cold(payload)
    print("RESULT " + json.dumps(result), flush=True)
