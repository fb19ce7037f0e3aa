package io.floe.spark;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.OptionErrors;
import io.floe.spark.util.SparkExceptions;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.SupportsCatalogOptions;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The data source {@code floe}: DataFrame reads and writes of a table of a Floe catalog by name,
 * as Iceberg's {@code IcebergSource} does. Spark asks for the catalog and identifier of the
 * {@code path} (the name given to {@code load}, {@code save} or {@code saveAsTable}) and then goes
 * through that catalog, so every read, append, overwrite and create is the catalog's own.
 *
 * <pre>
 *   df.write.format("floe").saveAsTable("floe.db.t")          // create (CTAS)
 *   df.write.format("floe").mode("append").save("floe.db.t")  // append to an existing table
 *   spark.read.format("floe").load("floe.db.t")
 * </pre>
 *
 * <p>A name is {@code catalog.namespace.table} with a Floe catalog, or {@code namespace.table} /
 * {@code table} in the current catalog when that is a Floe catalog. Paths are not table names.
 */
public class FloeSource implements TableProvider, SupportsCatalogOptions, DataSourceRegister {
  private static final String CATALOG_PREFIX = "spark.sql.catalog.";

  @Override
  public String shortName() {
    return "floe";
  }

  @Override
  public Identifier extractIdentifier(CaseInsensitiveStringMap options) {
    return resolve(options).ident();
  }

  @Override
  public String extractCatalog(CaseInsensitiveStringMap options) {
    return resolve(options).catalog().name();
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    return load(options).schema();
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
    return load(new CaseInsensitiveStringMap(properties));
  }

  private Table load(CaseInsensitiveStringMap options) {
    Resolved resolved = resolve(options);
    try {
      return resolved.catalog().loadTable(resolved.ident());
    } catch (NoSuchTableException e) {
      throw SparkExceptions.thrown(ErrorClass.FLOE_TABLE_NOT_FOUND, "Table " + resolved.catalog().name() + "."
          + resolved.ident() + " does not exist");
    }
  }

  private record Resolved(FloeCatalog catalog, Identifier ident) {}

  /** The Floe catalog and identifier the {@code path} option names. */
  private Resolved resolve(CaseInsensitiveStringMap options) {
    String name = options.get("path");
    if (name == null || name.isBlank()) {
      throw SparkExceptions.thrown(OptionErrors.invalidOption("path", null, "Missing table name for data source "
          + shortName() + ": pass it to load(), save() or saveAsTable(), e.g. load(\"floe.db.t\")"));
    }
    SparkSession spark = SparkSession.active();
    List<String> parts;
    try {
      parts = CollectionConverters.asJava(spark.sessionState().sqlParser().parseMultipartIdentifier(name));
    } catch (ParseException | RuntimeException e) {
      throw notATableName(spark, name, "it is not a table name", e);
    }
    CatalogManager manager = spark.sessionState().catalogManager();
    if (parts.size() >= 2) {
      FloeCatalog named = floeCatalog(spark, manager, parts.get(0));
      if (named != null) {
        return new Resolved(named, identifier(parts.subList(1, parts.size()), manager));
      }
    }
    CatalogPlugin current = manager.currentCatalog();
    if (current instanceof FloeCatalog floe) {
      return new Resolved(floe, identifier(parts, manager));
    }
    throw notATableName(spark, name, "it does not start with a Floe catalog and the current catalog, "
        + current.name() + ", is not one", null);
  }

  private static Identifier identifier(List<String> parts, CatalogManager manager) {
    if (parts.size() == 1) {
      return Identifier.of(manager.currentNamespace(), parts.get(0));
    }
    return Identifier.of(parts.subList(0, parts.size() - 1).toArray(new String[0]), parts.get(parts.size() - 1));
  }

  /** The catalog {@code name} when it is configured and is a Floe catalog; null otherwise. */
  private static FloeCatalog floeCatalog(SparkSession spark, CatalogManager manager, String name) {
    if (!spark.conf().contains(CATALOG_PREFIX + name)) {
      return null;
    }
    try {
      return manager.catalog(name) instanceof FloeCatalog floe ? floe : null;
    } catch (Exception e) {
      return null; // a catalog that fails to load is not one we can use; Spark reports it on use
    }
  }

  private RuntimeException notATableName(SparkSession spark, String name, String why, Throwable cause) {
    TreeSet<String> catalogs = new TreeSet<>();
    for (Map.Entry<String, String> e : CollectionConverters.asJava(spark.conf().getAll()).entrySet()) {
      String key = e.getKey();
      if (key.startsWith(CATALOG_PREFIX) && key.indexOf('.', CATALOG_PREFIX.length()) < 0
          && FloeCatalog.class.getName().equals(e.getValue())) {
        catalogs.add(key.substring(CATALOG_PREFIX.length()));
      }
    }
    String example = catalogs.isEmpty() ? "<catalog>" : catalogs.first();
    return SparkExceptions.thrown(new FloeException(ErrorClass.FLOE_OPTION_INVALID,
        "Cannot use '" + name + "' with data source " + shortName() + ": " + why
        + ". Name a table of a Floe catalog, e.g. '" + example + ".db.t'"
        + (catalogs.isEmpty() ? " (no Floe catalog is configured: set spark.sql.catalog.<name>="
            + FloeCatalog.class.getName() + ")" : " (Floe catalogs: " + String.join(", ", catalogs) + ")")
        + "; Floe does not read or write tables by path", FloeException.params("path", name), cause));
  }
}
