"""Setting up Spark with Floe: the bundled jar, the SQL extensions and the catalog.

Nothing here reaches the network: the jar ships inside this package (``floe/jars/``).
``connect`` is the one exception: it opens a Spark Connect session on a server (``floe connect``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from floe.errors import FloeError, JarNotFoundError
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CATALOG_CLASS = "io.floe.spark.FloeCatalog"
EXTENSIONS_CLASS = "io.floe.spark.extensions.FloeSparkSessionExtensions"

#: Environment variable naming a jar to use instead of the bundled one (for development).
JAR_ENV = "FLOE_JAR"

_BUNDLED_JAR = Path(__file__).resolve().parent / "jars" / "floe-spark.jar"
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:")
_CATALOG_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def jar_path() -> str:
    """Return the path of the Floe Spark jar.

    That is the jar bundled in this package, or the file named by ``$FLOE_JAR`` when it is set.
    Raises JarNotFoundError when the file does not exist.
    """
    override = os.environ.get(JAR_ENV)
    if override:
        path = Path(override).expanduser().resolve()
        if not path.is_file():
            raise JarNotFoundError(f"Cannot find the Floe jar named by ${JAR_ENV}: {path}")
        return str(path)
    if not _BUNDLED_JAR.is_file():
        raise JarNotFoundError(
            f"Cannot find the Floe Spark jar at {_BUNDLED_JAR}: this floe-spark package was "
            "installed without it. Build it with `gradle -q jar` at the repository root, copy "
            "spark-extension/spark/build/libs/floe-spark.jar to pyspark-shim/floe/jars/ and "
            "reinstall (`pip install ./pyspark-shim`), or run `bash scripts/setup.sh`; "
            f"or point ${JAR_ENV} at a built jar."
        )
    return str(_BUNDLED_JAR)


def warehouse_uri(warehouse: str) -> str:
    """Normalize a warehouse location.

    A local path (relative, absolute or ``~``) becomes an absolute ``file:///...`` URI, and so do
    ``file:/...`` URIs; other URIs (``hdfs://``, ``s3a://``...) are returned unchanged.
    """
    if not warehouse:
        raise FloeError("Invalid warehouse: empty location")
    if warehouse.startswith("file:"):
        path = local_path(warehouse)
        if not path.is_absolute():
            raise FloeError(f"Invalid warehouse {warehouse!r}: a file URI needs an absolute path")
        return "file://" + _strip_trailing_slash(os.path.normpath(path))
    if _SCHEME.match(warehouse):
        return _strip_trailing_slash(warehouse)
    absolute = str(Path(warehouse).expanduser().resolve())
    # Not Path.as_uri(): Hadoop's Path does not decode %-escapes, so a space must stay a space.
    return "file://" + _strip_trailing_slash(absolute)


def _strip_trailing_slash(location: str) -> str:
    stripped = location.rstrip("/")
    return stripped if stripped and not stripped.endswith(":") else location


def floe_conf(
    warehouse: str,
    *,
    catalog: str = "floe",
    default: bool = False,
    existing: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Return the Spark configuration entries that enable Floe.

    ``existing`` holds configuration already chosen (by the caller or on a builder): Floe's jar
    and extensions class are appended to its ``spark.jars`` and ``spark.sql.extensions`` values
    instead of replacing them. ``spark.sql.defaultCatalog`` is set only when ``default`` is true.
    """
    if not _CATALOG_NAME.match(catalog):
        raise FloeError(f"Invalid catalog name {catalog!r}: use letters, digits and underscores")
    existing = existing or {}
    conf = {
        "spark.jars": _append_csv(existing.get("spark.jars"), jar_path()),
        "spark.sql.extensions": _append_csv(existing.get("spark.sql.extensions"), EXTENSIONS_CLASS),
        f"spark.sql.catalog.{catalog}": CATALOG_CLASS,
        f"spark.sql.catalog.{catalog}.warehouse": warehouse_uri(warehouse),
    }
    if default:
        conf["spark.sql.defaultCatalog"] = catalog
    return conf


def _append_csv(current: str | None, item: str) -> str:
    items = [part.strip() for part in (current or "").split(",") if part.strip()]
    if item not in items:
        items.append(item)
    return ",".join(items)


def configure(
    builder: SparkSession.Builder,
    warehouse: str,
    *,
    catalog: str = "floe",
    default: bool = False,
    conf: Mapping[str, str] | None = None,
) -> SparkSession.Builder:
    """Configure a SparkSession builder for Floe and return it.

    Sets ``spark.jars`` (the bundled jar), ``spark.sql.extensions`` (appended to any value already
    given in ``conf`` or on the builder), ``spark.sql.catalog.<catalog>`` and its ``warehouse``.
    ``conf`` entries are applied first; the default catalog changes only when ``default=True``.
    """
    user = dict(conf or {})
    already = {**_builder_options(builder), **user}
    for key, value in user.items():
        builder = builder.config(key, value)
    for key, value in floe_conf(
        warehouse, catalog=catalog, default=default, existing=already
    ).items():
        builder = builder.config(key, value)
    return builder


def _builder_options(builder: SparkSession.Builder) -> dict[str, str]:
    # PySpark has no public getter for what a builder holds; read it so that Floe appends to, not
    # replaces, extensions and jars configured earlier on the same builder.
    options = getattr(builder, "_options", None)
    if not isinstance(options, dict):
        return {}
    return {str(key): str(value) for key, value in options.items()}


def session(
    warehouse: str,
    *,
    catalog: str = "floe",
    app_name: str = "floe",
    master: str | None = None,
    default: bool = False,
    conf: Mapping[str, str] | None = None,
) -> SparkSession:
    """Start (or join) a SparkSession with Floe's catalog ``catalog`` on ``warehouse``.

    ``master`` defaults to PySpark's own default (``local[*]`` outside spark-submit). ``conf`` holds
    any other Spark settings, e.g. ``{"spark.sql.session.timeZone": "UTC"}``.
    Raises FloeError when a SparkContext without Floe is already running in this process, because
    jars and SQL extensions cannot be added to a running context.
    """
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(app_name)
    if master is not None:
        builder = builder.master(master)
    spark = configure(builder, warehouse, catalog=catalog, default=default, conf=conf).getOrCreate()
    extensions = spark.sparkContext.getConf().get("spark.sql.extensions") or ""
    if EXTENSIONS_CLASS not in extensions.split(","):
        raise FloeError(
            "Cannot enable Floe in a running SparkContext that was started without it: stop it "
            "first (spark.stop()), then call floe.session(...) again"
        )
    return spark


#: The package extra that installs the Spark Connect client's dependencies.
CONNECT_EXTRA = "pip install 'floe-spark[connect]'"


def connect(url: str, *, conf: Mapping[str, str] | None = None) -> SparkSession:
    """Open a new Spark Connect session on the server at ``url`` (``sc://host:port``).

    The server decides the catalogs: ``floe connect`` starts one with Floe configured. ``conf``
    holds session settings (e.g. ``{"spark.sql.session.timeZone": "UTC"}``). The session is a
    ``pyspark.sql.connect`` SparkSession; as PySpark requires, a process that opened one cannot
    start a classic SparkContext afterwards.

    Raises FloeError when the Spark Connect client's packages (grpcio, pandas, ...) are missing:
    they come with the package's ``connect`` extra.
    """
    if not url.startswith("sc://"):
        raise FloeError(
            f"Invalid Spark Connect URL {url!r}: use sc://host:port, e.g. sc://localhost:15002"
        )
    try:
        from pyspark.sql.connect.utils import check_dependencies

        check_dependencies(__name__)
    except ImportError as e:
        raise FloeError(
            f"Cannot open a Spark Connect session: {e}. The Spark Connect client needs more "
            f"packages than PySpark itself; install them with {CONNECT_EXTRA}"
        ) from e
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.remote(url)
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    session: SparkSession = builder.create()
    return session
