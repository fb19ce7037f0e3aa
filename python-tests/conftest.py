"""Shared pytest fixtures: one Floe SparkSession per pytest worker (the whole run without xdist),
its warehouse, namespaces."""

from __future__ import annotations

import itertools
import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest
from class_data_sharing import C1_ONLY

if TYPE_CHECKING:
    from iceberg_runtime import IcebergRuntime
    from pyspark.sql import DataFrame, SparkSession
    from s3_runtime import S3Jars

T = TypeVar("T")
CATALOG = "floe"
ICEBERG_CATALOG = "iceberg"
# Pinned so that results do not depend on the machine: UTC, en_US.
# Test hooks (ScanReports, CommitGate) work only in a JVM started with floe.test-hooks.
# C1 only, as in the workers: the tests' JVMs run short jobs (class_data_sharing.C1_ONLY).
JVM_OPTIONS = f"{C1_ONLY} -Duser.timezone=UTC -Duser.language=en -Duser.country=US"
JVM_OPTIONS += " -Dfloe.test-hooks=true"

_names = itertools.count()

#: ``FLOE_TEST_SCALE=full`` (``scripts/test.sh --full``): the stress tests run at the scale their
#: goals name (R1's 2,000 commits, 20 stream kills, 500 hostile names, ...). Unset, they run with
#: smaller counts that exercise the same paths, so that the whole suite fits CI's time budget.
FULL_SCALE = os.environ.get("FLOE_TEST_SCALE", "").lower() == "full"


def scaled(full: int, standard: int) -> int:
    """``full`` with FLOE_TEST_SCALE=full, else ``standard``."""
    return full if FULL_SCALE else standard


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--soak",
        action="store_true",
        default=False,
        help="also run the reliability soak (R7, about 5 minutes; not part of CI)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "soak: the reliability soak (R7); runs only with --soak")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--soak"):
        return
    skip = pytest.mark.skip(reason="the soak runs only with pytest --soak (not part of CI)")
    for item in items:
        if "soak" in item.keywords:
            item.add_marker(skip)


#: Variables a test may leave changed: PySpark sets the first two when it starts a JVM; pytest
#: sets the third for each test.
ENVIRONMENT_SET_BY_OTHERS = frozenset({"SPARK_AUTH_SOCKET_TIMEOUT", "SPARK_BUFFER_SIZE",
                                       "PYTEST_CURRENT_TEST"})  # fmt: skip


@pytest.fixture(autouse=True)
def _environment_left_as_found(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fails a test that leaves this process's environment changed. A pytest worker runs many
    modules, and a leaked variable changes every later one: a test that ran bench/suite.py's
    ``main`` left ``FLOE_JAR`` naming Gradle's jar, so the tests' class-data-sharing archive got
    another key in that worker, and its rebuild deleted the archive the other worker's JVMs were
    starting with. Set variables with ``monkeypatch.setenv``, which puts them back."""
    before = dict(os.environ)
    yield
    changed = sorted(
        name
        for name in before.keys() | os.environ.keys()
        if name not in ENVIRONMENT_SET_BY_OTHERS and before.get(name) != os.environ.get(name)
    )
    if changed:
        pytest.fail(f"{request.node.nodeid} left the environment changed: {', '.join(changed)}; "
                    "set variables with monkeypatch.setenv, which restores them")  # fmt: skip


@pytest.fixture(scope="session")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The local warehouse directory of the ``floe`` catalog (and of the ``iceberg`` catalog)."""
    return tmp_path_factory.mktemp("warehouse").resolve()


@pytest.fixture(scope="session")
def iceberg_runtime(request: pytest.FixtureRequest) -> IcebergRuntime:
    """The Apache Iceberg Spark runtime jar (fetched once into ~/.cache/floe), or why it is missing.

    Fetched only when a collected test uses the ``iceberg`` fixture, so runs without interop tests
    never touch the network. A failed download makes those tests skip, saying why, except with
    ``CI=true``, where they fail.
    """
    from iceberg_runtime import IcebergRuntime, find_iceberg_runtime

    items = request.session.items
    if not any(ICEBERG_CATALOG in getattr(item, "fixturenames", ()) for item in items):
        return IcebergRuntime(None, "no collected test needs the Apache Iceberg Spark runtime")
    return find_iceberg_runtime()


#: Tests using a fixture of this name need S3A's jars in the shared session (test_s3_warehouse.py).
S3_FIXTURE = "s3_catalog"


@pytest.fixture(scope="session")
def s3_jars(request: pytest.FixtureRequest) -> S3Jars:
    """hadoop-aws and the AWS SDK modules (fetched once into ~/.cache/floe), or why they are
    missing; fetched only when a collected test uses ``s3_catalog``, like ``iceberg_runtime``."""
    from s3_runtime import S3Jars, find_s3_jars

    items = request.session.items
    if not any(S3_FIXTURE in getattr(item, "fixturenames", ()) for item in items):
        return S3Jars((), "no collected test needs S3")
    return find_s3_jars()


@pytest.fixture(scope="session")
def spark(
    warehouse: Path,
    iceberg_runtime: IcebergRuntime,
    s3_jars: S3Jars,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[SparkSession]:
    """One SparkSession per pytest worker (for the whole run without workers): catalog ``floe``
    on ``warehouse``, plus, when the Apache Iceberg Spark runtime jar is available, catalog
    ``iceberg`` (Iceberg's own runtime, hadoop type) on the same warehouse for interop."""
    import floe

    conf = {
        "spark.ui.enabled": "false",
        "spark.sql.shuffle.partitions": "2",
        "spark.sql.session.timeZone": "UTC",
        "spark.driver.extraJavaOptions": JVM_OPTIONS,
        "spark.sql.warehouse.dir": str(tmp_path_factory.mktemp("spark-warehouse")),
    }
    if iceberg_runtime.jar is not None:
        conf |= {
            "spark.jars": str(iceberg_runtime.jar),
            f"spark.sql.catalog.{ICEBERG_CATALOG}": "org.apache.iceberg.spark.SparkCatalog",
            f"spark.sql.catalog.{ICEBERG_CATALOG}.type": "hadoop",
            f"spark.sql.catalog.{ICEBERG_CATALOG}.warehouse": floe.warehouse_uri(str(warehouse)),
            # as in any warehouse shared by engines: see the other engine's commits at once
            f"spark.sql.catalog.{ICEBERG_CATALOG}.cache-enabled": "false",
        }
    if s3_jars.jars:
        # on the JVM's class path, where Hadoop's FileSystem loader finds S3A (test-only jars)
        conf["spark.driver.extraClassPath"] = os.pathsep.join(str(j) for j in s3_jars.jars)
    session = floe.session(
        str(warehouse), catalog=CATALOG, app_name="floe-python-tests", master="local[2]", conf=conf
    )
    yield session
    session.stop()


#: The Spark setting up to which Floe reads a small scan on the driver (FloeLocalRead) instead of
#: in a job; tests of the job's scan node (its metrics, partitioning, pruning) set it to 0.
LOCAL_READ_ROWS = "spark.floe.read.local-max-rows"


@contextmanager
def spark_setting(spark: SparkSession, key: str, value: str) -> Iterator[None]:
    """The session's Spark setting ``key`` is ``value`` inside the block, unset after it."""
    spark.conf.set(key, value)
    try:
        yield
    finally:
        spark.conf.unset(key)


def region_folders(spark: SparkSession, path: Path, rows: int) -> Path:
    """Parquet of ``(id, region)`` under ``path`` in Hive-style folders ``region=eu|us|ap``, one
    file each (``rows`` ids, a third per region): input that an insert into a table partitioned by
    ``region`` writes without a shuffle (README "Writing")."""
    spark.sql(
        "SELECT id, element_at(array('eu', 'us', 'ap'), CAST(id % 3 AS INT) + 1) AS region "
        f"FROM range(0, {rows}, 1, 2)"
    ).repartition(1).write.partitionBy("region").parquet(str(path))
    return path


@contextmanager
def spark_settings(spark: SparkSession, settings: dict[str, str]) -> Iterator[None]:
    """The session's Spark settings are ``settings`` inside the block; after it, each is back to
    what it was (or unset if it was not set)."""
    before = {key: spark.conf.get(key, None) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key, old in before.items():
            if old is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, old)


@pytest.fixture
def job_scans(spark: SparkSession) -> Iterator[None]:
    """Floe scans run as Spark jobs (BatchScan nodes) during the test, however small: for tests of
    the scan node itself. Floe reads scans of up to 100,000 rows on the driver by default."""
    spark.conf.set(LOCAL_READ_ROWS, "0")
    try:
        yield
    finally:
        spark.conf.unset(LOCAL_READ_ROWS)


@pytest.fixture
def iceberg(spark: SparkSession, iceberg_runtime: IcebergRuntime) -> str:
    """The name of the Apache Iceberg catalog (hadoop type, same warehouse as ``floe``) in the
    shared session; skips the test, saying why, when the Iceberg runtime jar is unavailable."""
    require_iceberg_runtime(iceberg_runtime)
    return ICEBERG_CATALOG


def require_iceberg_runtime(runtime: IcebergRuntime) -> None:
    """Skip the calling test, saying why, when the Iceberg runtime jar is unavailable; with
    ``CI=true`` fail it instead, so CI cannot pass with the interop suite silently skipped."""
    if runtime.jar is not None:
        return
    message = f"Apache Iceberg Spark runtime unavailable: {runtime.problem}"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message + " (CI=true: a failed download is a failure, not a skip)")
    pytest.skip(message)


def scan_report(spark: SparkSession, table: str) -> dict[str, Any]:
    """Floe's counts of its last planned scan of ``table`` (``floe.<ns>.<t>``): data files and
    manifests scanned and kept, files pruned by each index (``ScanReports``, a test hook)."""
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    report = jvm.io.floe.spark.source.ScanReports.lastAsJson(table)
    parsed: dict[str, Any] | None = json.loads(str(report))
    assert parsed is not None, f"no scan of {table} was planned"
    return parsed


def scan_metrics(df: DataFrame, table: str) -> dict[str, int]:
    """The metrics of the scan of ``table`` in ``df``'s executed plan (after it ran)."""
    found: list[dict[str, int]] = []

    def walk(node: Any) -> None:
        name = node.getClass().getSimpleName()
        if name == "AdaptiveSparkPlanExec":
            walk(node.executedPlan())
            return
        if name.endswith("QueryStageExec"):
            walk(node.plan())
            return
        # a job's scan, or Floe's read on the driver (its second product element is the FloeScan)
        if (name == "BatchScanExec" and node.table().name() == table) or (
            name == "FloeLocalReadExec"
            and node.productElement(1).description().startswith(f"FloeScan {table} ")
        ):
            metrics = node.metrics()
            keys = metrics.keys().iterator()
            values: dict[str, int] = {}
            while keys.hasNext():
                key = keys.next()
                values[key] = int(metrics.apply(key).value())
            found.append(values)
        children = node.children()
        for i in range(children.size()):
            walk(children.apply(i))

    walk(df._jdf.queryExecution().executedPlan())
    assert len(found) == 1, f"expected one scan of {table}, found {len(found)}"
    return found[0]


def spark_jobs(spark: SparkSession, run: Callable[[], T]) -> tuple[T, list[int]]:
    """Calls ``run`` in a Spark job group of its own; returns its result and the ids of the Spark
    jobs it started. Spark's status tracker is fed by its listener bus, asynchronously, so this
    waits for the bus to deliver every event posted so far before counting: a job that ran could
    otherwise be missed, and a "no job" assertion pass that should fail. Call ``spark.sql``
    inside ``run``: a command (CALL, INSERT, ...) runs at ``spark.sql``, not at ``collect``."""
    context = spark.sparkContext
    group = unique_name("jobs")
    context.setJobGroup(group, group)
    try:
        result = run()
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)  # type: ignore[arg-type]
    context._jsc.sc().listenerBus().waitUntilEmpty()
    return result, list(context.statusTracker().getJobIdsForGroup(group))


def unique_name(prefix: str) -> str:
    """Return a name no other call in this run returns, usable as a namespace or table name."""
    stem = re.sub(r"[^a-z0-9_]", "_", prefix.lower()).strip("_")[:40] or "t"
    return f"{stem}_{next(_names)}"


@pytest.fixture
def new_namespace(spark: SparkSession, request: pytest.FixtureRequest) -> Callable[[], str]:
    """A factory that creates a fresh namespace in ``floe`` and returns its (unqualified) name."""

    def create() -> str:
        name = unique_name(request.node.name)
        spark.sql(f"CREATE NAMESPACE {CATALOG}.{name}")
        return name

    return create


@pytest.fixture
def namespace(new_namespace: Callable[[], str]) -> str:
    """A fresh namespace in ``floe`` for this test (unqualified name: use f"floe.{namespace}.t")."""
    return new_namespace()
