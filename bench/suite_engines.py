"""Per-engine Spark settings, jars and table operations of the benchmark suite.

Engines (bench/suite_api.ENGINES): ``parquet`` (plain Spark Parquet: temp views over the files),
``iceberg-default`` and ``iceberg-best`` (the Apache Iceberg Spark runtime for Spark 4.1, a
Hadoop catalog ``iceberg``),
``delta`` (delta-spark for Spark 4.1, path tables ``delta.`/path```, deletion vectors on) and
``floe`` (catalog ``floe``). Jars are fetched once from Maven Central with the Apache Ivy in
pyspark's jars and cached in ~/.cache/floe ($FLOE_CACHE).
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from suite_api import NAMESPACE, Context, catalog_of, link_tree, quote_path

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python-tests"))

from iceberg_runtime import VERSION as ICEBERG_VERSION  # noqa: E402
from iceberg_runtime import cache_dir, iceberg_runtime_jar, ivy_retrieve  # noqa: E402

MASTER = "local[2]"
DRIVER_MEMORY = os.environ.get("FLOE_BENCH_DRIVER_MEMORY", "8g")
#: Delta Lake for Spark 4.1: from Delta 4.1.0 on the Maven artifacts carry the Spark version.
DELTA_GROUP = "io.delta"
DELTA_ARTIFACT = "delta-spark_4.1_2.13"
#: 4.3.0: the first release for Spark 4.1 that runs on Spark 4.1.4 (4.1.0 and 4.2.0 call a
#: ParquetToSparkSchemaConverter constructor of Spark 4.1.0 that 4.1.4 no longer has); 4.4.0 also
#: needs the Unity Catalog client. Not transitive: Spark ships what these jars need.
DELTA_VERSION = os.environ.get("FLOE_DELTA_VERSION", "4.3.0")
DELTA_MODULES = ("delta-storage", "delta-kernel-api", "delta-kernel-defaults")
#: Parquet settings every writer shares (docs/benchmarks.md, 'Engines'): zstd, 128 MB row groups.
ROW_GROUP_BYTES = 128 * 1024 * 1024
CODEC = "zstd"


def delta_jars() -> list[Path]:
    """delta-spark for Spark 4.1 with delta-storage and Delta Kernel (no transitive
    dependencies: Spark ships what they need), fetched once into the cache."""
    cache = cache_dir() / f"delta-{DELTA_VERSION}"
    modules = [(m, DELTA_VERSION) for m in (DELTA_ARTIFACT, *DELTA_MODULES)]
    jars = [cache / f"{artifact}-{version}.jar" for artifact, version in modules]
    for (artifact, version), jar in zip(modules, jars, strict=True):
        if jar.is_file():
            continue
        cache.mkdir(parents=True, exist_ok=True)
        done = ivy_retrieve(
            ["-dependency", DELTA_GROUP, artifact, version, "-notransitive", "-types", "jar"], cache
        )
        if done.returncode != 0 or not jar.is_file():
            raise RuntimeError(
                f"Cannot fetch {DELTA_GROUP}:{artifact}:{version} from Maven Central into "
                f"{cache}:\n{done.stdout}{done.stderr}"
            )
    return jars


def java_version() -> str:
    java = Path(os.environ["JAVA_HOME"]) / "bin" / "java" if "JAVA_HOME" in os.environ else "java"
    done = subprocess.run([str(java), "-version"], capture_output=True, text=True, check=False)
    return (done.stderr.splitlines() or ["?"])[0]


def versions() -> dict[str, str]:
    import pyspark

    import floe

    return {
        "spark": pyspark.__version__,
        "iceberg": f"iceberg-spark-runtime-4.1_2.13 {ICEBERG_VERSION}",
        "delta": f"{DELTA_ARTIFACT} {DELTA_VERSION}",
        "floe": f"{floe.__version__} ({floe.jar_path()})",
        "java": java_version(),
        "python": sys.version.split()[0],
    }


def common_conf(work: Path) -> dict[str, str]:
    """The suite's session: local[2], a large driver heap, 4 shuffle partitions, AQE on, UI off, G1;
    zstd and 128 MB row groups for every Parquet writer."""
    return {
        "spark.master": MASTER,
        "spark.driver.memory": DRIVER_MEMORY,
        "spark.driver.extraJavaOptions": "-XX:+UseG1GC",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.adaptive.enabled": "true",
        "spark.sql.warehouse.dir": str(work / "spark-warehouse"),
        "spark.sql.parquet.compression.codec": CODEC,
        "spark.hadoop.parquet.block.size": str(ROW_GROUP_BYTES),
    }


def engine_conf(engine: str, work: Path) -> dict[str, str]:
    """Spark settings (jars, extensions, catalogs) of ``engine`` with its tables under ``work``."""
    conf = common_conf(work)
    if engine.startswith("iceberg"):
        conf.update({
            "spark.jars": str(iceberg_runtime_jar()),
            "spark.sql.extensions":
                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
            "spark.sql.catalog.iceberg": "org.apache.iceberg.spark.SparkCatalog",
            "spark.sql.catalog.iceberg.type": "hadoop",
            "spark.sql.catalog.iceberg.warehouse": str(work / "iceberg-warehouse"),
        })  # fmt: skip
        if engine == "iceberg-best":
            conf["spark.sql.catalog.iceberg.io.manifest.cache-enabled"] = "true"
    elif engine == "delta":
        conf.update({
            "spark.jars": ",".join(str(j) for j in delta_jars()),
            "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
            "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
            "spark.databricks.delta.properties.defaults.enableDeletionVectors": "true",
        })  # fmt: skip
    elif engine == "floe":
        import floe

        conf.update(floe.floe_conf(str(work / "floe-warehouse"), existing=conf))
    return conf


def session(
    engine: str,
    work: Path,
    app_name: str | None = None,
    extra_conf: Mapping[str, str] | None = None,
) -> SparkSession:
    """A new SparkSession (a new JVM: call once per process) for ``engine``; ``extra_conf``
    adds settings (``spark.driver.extraJavaOptions`` is appended to the suite's)."""
    from pyspark.sql import SparkSession

    conf = engine_conf(engine, work)
    for key, value in (extra_conf or {}).items():
        if key == "spark.driver.extraJavaOptions":
            value = f"{conf.get(key, '')} {value}".strip()
        conf[key] = value
    builder = SparkSession.builder.appName(app_name or f"floe-suite-{engine}")
    for key, value in conf.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def plain_session(
    work: Path, app_name: str = "floe-suite-prepare", java_options: str = ""
) -> SparkSession:
    """A plain Spark session (input generation), with ``java_options`` for its JVM."""
    extra = {"spark.driver.extraJavaOptions": java_options} if java_options else None
    return session("parquet", work, app_name, extra)


def table_properties(engine: str) -> dict[str, str]:
    """Table properties of a new table of ``engine`` (the engine's configuration in the suite)."""
    if engine == "iceberg-default":
        return {"format-version": "2", "write.parquet.compression-codec": CODEC}
    if engine == "iceberg-best":
        return {
            "format-version": "3",
            "write.parquet.compression-codec": CODEC,
            "write.delete.mode": "merge-on-read",
            "write.update.mode": "merge-on-read",
            "write.merge.mode": "merge-on-read",
        }
    if engine == "delta":
        return {"delta.enableDeletionVectors": "true"}
    return {}


def _ddl_properties(properties: Mapping[str, str]) -> str:
    if not properties:
        return ""
    items = ", ".join(f"{quote_text(k)} = {quote_text(v)}" for k, v in properties.items())
    return f" TBLPROPERTIES ({items})"


def _empty_catalog_table(
    ctx: Context, ident: str, schema_df: DataFrame, partition_cols: tuple[str, ...],
    properties: Mapping[str, str],
) -> None:  # fmt: skip
    """CREATE TABLE ``ident`` with ``schema_df``'s schema (partition columns last, as Hive
    partition discovery puts them)."""
    ctx.spark.sql(f"DROP TABLE IF EXISTS {ident}")
    columns = ", ".join(f"`{f.name}` {f.dataType.simpleString()}" for f in schema_df.schema.fields)
    partitioned = (
        f" PARTITIONED BY ({', '.join(quote_name(c) for c in partition_cols)})"
        if partition_cols
        else ""
    )
    using = " USING iceberg" if ctx.engine.startswith("iceberg") else ""
    ctx.spark.sql(
        f"CREATE TABLE {ident} ({columns}){using}{partitioned}{_ddl_properties(properties)}"
    )


def import_parquet(ctx: Context, name: str, linked: Path, partition_cols: tuple[str, ...]) -> str:
    """``ctx.import_parquet`` after the files are linked to ``linked`` (this engine's own copy)."""
    statement = import_statement(ctx, name, linked, partition_cols)
    if statement is None:
        ctx.refresh(name)
        return ctx.table(name)
    ctx.spark.sql(statement).collect()
    ident = ctx.table(name)
    if ctx.engine == "delta":
        ctx.spark.sql(f"ALTER TABLE {ident} SET{_ddl_properties(table_properties('delta'))}")
    return ident


def import_statement(
    ctx: Context, name: str, linked: Path, partition_cols: tuple[str, ...]
) -> str | None:  # fmt: skip
    """Makes ready to import the Parquet files linked to ``linked`` as table ``name`` (Iceberg
    and Floe: the empty table, and for Floe the files linked again inside its location) and
    returns the statement that imports them: ``add_files`` (``iceberg-best`` with
    ``parallelism => 2``, one thread per core, as Iceberg documents for it), Delta's ``CONVERT TO
    DELTA``; None for plain Parquet, which reads the folder as it is."""
    spark = ctx.spark
    source = f"parquet.{quote_path(linked)}"
    if ctx.engine == "parquet":
        return None
    if ctx.engine == "delta":
        schema = spark.read.parquet(str(linked)).schema
        parts = ", ".join(f"`{c}` {schema[c].dataType.simpleString()}" for c in partition_cols)
        by = f" PARTITIONED BY ({parts})" if partition_cols else ""
        return f"CONVERT TO DELTA {source}{by}"
    ident = ctx.table(name)
    catalog = catalog_of(ctx.engine)
    _empty_catalog_table(
        ctx, ident, spark.read.parquet(str(linked)), partition_cols, ctx.table_properties()
    )
    if ctx.engine == "floe":
        # Floe's add_files takes only folders inside the table location (its maintenance deletes
        # only there): link the same files once more, below the table's data folder
        linked = link_tree(linked, table_location(ctx, name) / "data" / "imported")
    parallelism = ", parallelism => 2" if ctx.engine == "iceberg-best" else ""
    return (
        f"CALL {catalog}.system.add_files(table => '{NAMESPACE}.{name}', "
        f"source_table => {quote_text('`parquet`.' + quote_path(linked))}{parallelism})"
    )


def create_table(
    ctx: Context, name: str, df: DataFrame, partition_cols: tuple[str, ...],
    properties: Mapping[str, str],
) -> str:  # fmt: skip
    """``ctx.create_table``: writes ``df`` as this engine's table ``name``."""
    if ctx.engine in ("parquet", "delta"):
        path = ctx.table_path(name)
        spark = ctx.spark
        defaults = {
            f"spark.databricks.delta.properties.defaults.{k.removeprefix('delta.')}": v
            for k, v in properties.items()
        }
        for key, value in defaults.items():
            spark.conf.set(key, value)
        try:
            writer = df.write.mode("overwrite").format(ctx.engine)
            if partition_cols:
                writer = writer.partitionBy(*partition_cols)
            writer.save(str(path))
        finally:
            for key in defaults:
                spark.conf.unset(key)
        ctx.refresh(name)
        return ctx.table(name)
    # A catalog table comes from SQL's CREATE TABLE ... AS SELECT over a view of ``df``, not from
    # ``df.writeTo(...).create()``: Spark 4.1 analyzes the DataFrame's plan again inside
    # ``DataFrameWriterV2``, and for a Parquet source that infers its schema again, with a Spark
    # job, which Parquet's write above (``DataFrameWriter.save``) does not run (docs/benchmarks.md,
    # W12).
    ident = ctx.table(name)
    ctx.spark.sql(f"DROP TABLE IF EXISTS {ident}")
    view = f"bench_ctas_source_{uuid.uuid4().hex}"  # a plain identifier whatever the table's name
    using = " USING iceberg" if ctx.engine.startswith("iceberg") else ""
    partitioned = (
        f" PARTITIONED BY ({', '.join(quote_name(c) for c in partition_cols)})"
        if partition_cols
        else ""
    )
    df.createOrReplaceTempView(view)
    try:
        ctx.spark.sql(
            f"CREATE TABLE {ident}{using}{partitioned}{_ddl_properties(properties)} "
            f"AS SELECT * FROM {quote_name(view)}"
        )
    finally:
        ctx.spark.catalog.dropTempView(view)
    return ident


def quote_name(name: str) -> str:
    """``name`` as a SQL identifier (backquoted, backquotes doubled)."""
    return "`" + name.replace("`", "``") + "`"


def quote_text(text: str) -> str:
    """``text`` as a SQL string literal (quotes and backslashes escaped)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def table_location(ctx: Context, name: str) -> Path:
    """The directory holding table ``name``'s files (data and metadata) for ``ctx.engine``."""
    catalog = catalog_of(ctx.engine)
    if catalog is None:
        return ctx.table_path(name)
    warehouse = ctx.spark.conf.get(f"spark.sql.catalog.{catalog}.warehouse") or ""
    return Path(warehouse.removeprefix("file://").removeprefix("file:")) / NAMESPACE / name
