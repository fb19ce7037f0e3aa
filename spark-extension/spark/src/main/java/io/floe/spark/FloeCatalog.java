package io.floe.spark;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.OptionErrors;
import io.floe.format.SchemaErrors;
import io.floe.format.catalog.CatalogErrors;
import io.floe.format.catalog.CatalogException;
import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.catalog.TableLocations;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.io.FileIO;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.TypeUtil;
import io.floe.spark.functions.FloeFunctions;
import io.floe.spark.metadata.MetadataTables;
import io.floe.spark.procedures.CatalogAccess;
import io.floe.spark.procedures.FloeProcedures;
import io.floe.spark.util.SparkExceptions;
import io.floe.spark.util.SparkPartitioning;
import io.floe.spark.util.SparkSchemas;
import io.floe.spark.write.PositionDeleteFileRewriter;
import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchFunctionException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.FunctionCatalog;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.ProcedureCatalog;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.StagingTableCatalog;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Floe's Spark catalog: namespaces and tables in a warehouse folder laid out like Iceberg's
 * file-system catalog. Configure with {@code spark.sql.catalog.<name>=io.floe.spark.FloeCatalog}
 * and {@code spark.sql.catalog.<name>.warehouse=<path or URI>}.
 */
public class FloeCatalog implements StagingTableCatalog, SupportsNamespaces, ProcedureCatalog, FunctionCatalog,
    CatalogAccess {
  public static final String WAREHOUSE = "warehouse";
  /** {@code auto} (local paths: hard-link publish; other URIs: Hadoop), {@code local}, or {@code hadoop}. */
  public static final String IO_IMPL = "io-impl";
  private static final List<String> RESERVED_PROPERTIES = List.of(
      TableCatalog.PROP_PROVIDER, TableCatalog.PROP_LOCATION, TableCatalog.PROP_EXTERNAL,
      TableCatalog.PROP_IS_MANAGED_LOCATION, TableCatalog.PROP_OWNER, "format-version", "current-snapshot-id",
      "format");

  private String name;
  private FileSystemCatalog catalog;
  private Configuration hadoopConf;
  private Map<String, String> catalogOptions;

  @Override
  public void initialize(String catalogName, CaseInsensitiveStringMap options) {
    this.name = catalogName;
    this.catalogOptions = new HashMap<>(options.asCaseSensitiveMap());
    String warehouse = options.get(WAREHOUSE);
    if (warehouse == null || warehouse.isBlank()) {
      throw SparkExceptions.thrown(OptionErrors.invalidOption("spark.sql.catalog." + catalogName + ".warehouse", null,
          "Missing warehouse for Floe catalog " + catalogName + ": set spark.sql.catalog." + catalogName
              + ".warehouse to a local path or a file system URI"));
    }
    this.hadoopConf = SparkSession.active().sessionState().newHadoopConf();
    String location = qualify(warehouse);
    FileIO io = fileIO(options.getOrDefault(IO_IMPL, "auto"), location);
    this.catalog = new FileSystemCatalog(io, location);
  }

  private FileIO fileIO(String impl, String location) {
    boolean unsafe = unsafeObjectStoreCommits();
    switch (impl.toLowerCase(Locale.ROOT)) {
      case "auto":
        if (unsafe && !location.startsWith("file:")) {
          return HadoopFileIO.withUnsafeObjectStoreCommits(hadoopConf);
        }
        return HadoopFileIO.forLocation(location, hadoopConf);
      case "hadoop":
        return unsafe ? HadoopFileIO.withUnsafeObjectStoreCommits(hadoopConf) : new HadoopFileIO(hadoopConf);
      case "local":
        if (!location.startsWith("file:")) {
          throw SparkExceptions.thrown(OptionErrors.invalidOption(IO_IMPL, impl, "Invalid " + IO_IMPL
              + "=local for catalog " + name + ": warehouse " + location + " is not a local path"));
        }
        return new io.floe.format.io.LocalFileIO();
      default:
        throw SparkExceptions.thrown(OptionErrors.invalidOption(IO_IMPL, impl, "Invalid " + IO_IMPL + " '" + impl
            + "' for catalog " + name + ": use auto, local or hadoop"));
    }
  }

  /**
   * {@code object-store-commits}: {@code conditional-create} (default; commits on object stores are
   * conditional writes) or {@code unsafe-rename} (copy-then-delete publish, which loses commits when
   * writers race; for stores without conditional writes and one writer at a time).
   */
  private boolean unsafeObjectStoreCommits() {
    String mode = catalogOptions.getOrDefault(CatalogErrors.OBJECT_STORE_COMMITS_OPTION, "conditional-create");
    switch (mode.toLowerCase(Locale.ROOT)) {
      case "conditional-create":
        return false;
      case "unsafe-rename":
        return true;
      default:
        throw SparkExceptions.thrown(OptionErrors.invalidOption(CatalogErrors.OBJECT_STORE_COMMITS_OPTION, mode,
            "Invalid " + CatalogErrors.OBJECT_STORE_COMMITS_OPTION + " '" + mode + "' for catalog " + name
                + ": use conditional-create (safe, the default) or unsafe-rename"));
    }
  }

  /** A local path becomes a {@code file:///} URI; URIs are kept as given. */
  static String qualify(String warehouse) {
    if (warehouse.contains("://") || warehouse.startsWith("file:")) {
      return warehouse.startsWith("file:") && !warehouse.startsWith("file:///")
          ? "file:///" + warehouse.substring("file:".length()).replaceFirst("^/+", "") : warehouse;
    }
    return "file://" + new File(warehouse).getAbsolutePath();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public FileSystemCatalog formatCatalog() {
    return catalog;
  }

  Configuration hadoopConf() {
    return hadoopConf;
  }

  Map<String, String> catalogOptions() {
    return catalogOptions;
  }

  static TableIdentifier toIdentifier(Identifier ident) {
    try {
      return TableIdentifier.of(Arrays.asList(ident.namespace()), ident.name());
    } catch (CatalogException e) {
      throw SparkExceptions.thrown(e);
    }
  }

  private static RuntimeException asSparkError(CatalogException e) {
    return SparkExceptions.thrown(e);
  }

  /** Before anything of a new table is written: the namespace exists, the name and folder are free. */
  private void checkCanCreate(Identifier ident) throws TableAlreadyExistsException, NoSuchNamespaceException {
    try {
      catalog.checkCanCreateTable(toIdentifier(ident));
    } catch (CatalogException e) {
      throw rethrow(createError(ident, e));
    }
  }

  /** Throws {@code e}: a checked TableAlreadyExists/NoSuchNamespace as declared, anything else unchecked. */
  private static RuntimeException rethrow(Exception e) throws TableAlreadyExistsException, NoSuchNamespaceException {
    if (e instanceof TableAlreadyExistsException) {
      throw (TableAlreadyExistsException) e;
    }
    if (e instanceof NoSuchNamespaceException) {
      throw (NoSuchNamespaceException) e;
    }
    throw (RuntimeException) e;
  }

  /** A format error of CREATE as Spark's own exception where one fits. */
  private static Exception createError(Identifier ident, CatalogException e) {
    switch (e.kind()) {
      case TABLE_EXISTS:
        return SparkExceptions.tableExists(ident);
      case NO_SUCH_NAMESPACE:
        return SparkExceptions.noSuchNamespace(ident.namespace());
      default:
        return asSparkError(e);
    }
  }

  // ---- tables ----

  @Override
  public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
    try {
      return catalog.listTables(Arrays.asList(namespace)).stream()
          .map(t -> Identifier.of(t.namespace().toArray(new String[0]), t.name()))
          .toArray(Identifier[]::new);
    } catch (CatalogException e) {
      if (e.kind() == CatalogException.Kind.NO_SUCH_NAMESPACE) {
        throw SparkExceptions.noSuchNamespace(namespace);
      }
      throw asSparkError(e);
    }
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    try {
      return new FloeTable(this, ident, loadOps(ident), null);
    } catch (NoSuchTableException e) {
      return metadataTable(ident, null, null, e);
    }
  }

  /**
   * {@code db.t.branch_b} / {@code db.t.tag_x} (an existing branch or tag of {@code db.t}), else
   * {@code db.t.snapshots} and the other metadata tables ({@link MetadataTables}) when {@code db.t} is a
   * table; {@code notFound} (why {@code ident} itself did not load) when it is not.
   */
  private Table metadataTable(Identifier ident, String version, Long timestampMillis, NoSuchTableException notFound)
      throws NoSuchTableException {
    String[] ns = ident.namespace();
    if (ns.length < 2) {
      throw notFound;
    }
    Identifier base = Identifier.of(Arrays.copyOf(ns, ns.length - 1), ns[ns.length - 1]);
    FileSystemTableOperations ops;
    try {
      ops = loadOps(base);
    } catch (AnalysisException | IllegalArgumentException e) {
      throw notFound;
    }
    FloeTable ref = new FloeTable(this, base, ops, null).refIdentifier(ident.name(),
        version != null || timestampMillis != null);
    if (ref != null) {
      return ref; // t.branch_b or t.tag_x (docs/branches.md)
    }
    return MetadataTables.load(name + "." + ops.tableName(), ops, ident.name(), version, timestampMillis);
  }

  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    FloeTable table;
    try {
      table = new FloeTable(this, ident, loadOps(ident), null);
    } catch (NoSuchTableException e) {
      return metadataTable(ident, version, null, e);
    }
    return table.atVersion(version);
  }

  @Override
  public Table loadTable(Identifier ident, long timestampMicros) throws NoSuchTableException {
    FloeTable table;
    try {
      table = new FloeTable(this, ident, loadOps(ident), null);
    } catch (NoSuchTableException e) {
      return metadataTable(ident, null, Math.floorDiv(timestampMicros, 1000L), e);
    }
    return table.asOfTimestamp(timestampMicros / 1000);
  }

  FileSystemTableOperations loadOps(Identifier ident) throws NoSuchTableException {
    try {
      return catalog.loadTable(toIdentifier(ident));
    } catch (CatalogException e) {
      if (e.kind() == CatalogException.Kind.NO_SUCH_TABLE) {
        throw SparkExceptions.noSuchTable(ident);
      }
      throw asSparkError(e);
    } catch (FloeException e) {
      throw SparkExceptions.thrown(e); // e.g. a metadata file that is missing or corrupt, naming the file
    }
  }

  @Override
  public boolean tableExists(Identifier ident) {
    try {
      return catalog.tableExists(toIdentifier(ident));
    } catch (CatalogException e) {
      throw asSparkError(e);
    }
  }

  @Override
  public void invalidateTable(Identifier ident) {
    // every lookup finds the current version on storage; the format catalog reuses a parse only
    // for a metadata file whose bytes it has parsed (or written) before, so nothing can be stale
  }

  /** New table metadata from Spark's columns, transforms and properties, not yet published. */
  TableMetadata newMetadata(Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> props,
      String action) {
    try {
      return checkedMetadata(ident, columns, partitions, props, action);
    } catch (FloeException e) {
      // a user's statement asked for something Floe refuses: an AnalysisException, not a Java error
      throw SparkExceptions.thrown(e);
    } catch (IllegalArgumentException e) {
      throw SparkExceptions.thrown("", e, ErrorClass.FLOE_UNSUPPORTED);
    }
  }

  private TableMetadata checkedMetadata(Identifier ident, Column[] columns, Transform[] partitions,
      Map<String, String> props, String action) {
    String table = name + "." + ident;
    Schema schema;
    PartitionSpec spec;
    String prefix = "Cannot " + action + " table " + table + ": ";
    checkProvider(prefix, props.get(TableCatalog.PROP_PROVIDER));
    try {
      StructType sparkSchema = org.apache.spark.sql.connector.catalog.CatalogV2Util.v2ColumnsToStructType(columns);
      SparkSchemas.refuseCharVarchar(sparkSchema);
      schema = SparkSchemas.convert(sparkSchema);
    } catch (IllegalArgumentException | FloeException e) {
      throw FloeException.prefixed(prefix, e, ErrorClass.FLOE_TYPE_UNSUPPORTED);
    }
    String duplicate = TypeUtil.duplicateFullName(schema.asStruct());
    if (duplicate != null) {
      throw FloeException.prefixed(prefix, SchemaErrors.ambiguousName(duplicate), ErrorClass.FLOE_COLUMN_NAME_AMBIGUOUS);
    }
    try {
      spec = SparkPartitioning.toSpec(schema, partitions);
    } catch (IllegalArgumentException | FloeException e) {
      throw FloeException.prefixed(prefix, e, ErrorClass.FLOE_PARTITIONING_INVALID);
    }
    int formatVersion = formatVersion(table, props.getOrDefault("format-version", "2"));
    Map<String, String> properties = tableProperties(props);
    SparkExceptions.checkTableProperties(table, properties);
    String location = props.get(TableCatalog.PROP_LOCATION);
    String tableLocation = location == null ? catalog.tableLocation(toIdentifier(ident)) : qualify(location);
    checkLocation(ident, tableLocation, table, !action.equals("create"));
    return TableMetadata.newTableMetadata(schema, spec, SortOrder.unsorted(), tableLocation,
        properties, formatVersion);
  }

  /**
   * A new table's location must be its own ({@link TableLocations}); a replaced table may keep its
   * location. Throws a CatalogException naming the location and what is there.
   */
  private void checkLocation(Identifier ident, String tableLocation, String table, boolean replacing) {
    TableIdentifier id = toIdentifier(ident);
    TableMetadata replaced = replacing ? catalog.newTableOps(id).refresh() : null;
    TableLocations.checkNewTable(catalog.io(), catalog.warehouse(), catalog.tableLocation(id), tableLocation, table,
        replaced == null ? null : replaced.location());
  }

  private static int formatVersion(String table, String value) {
    int formatVersion;
    try {
      formatVersion = Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw OptionErrors.invalidProperty(table, "format-version", "Invalid format-version '" + value + "' for table "
          + table + ": use 2 or 3");
    }
    if (formatVersion == 1) {
      throw OptionErrors.invalidProperty(table, "format-version", "Cannot create table " + table
          + " with format-version 1: Floe reads format v1 tables but cannot write them; use format-version 2 (the"
          + " default) or 3");
    }
    if (formatVersion < 1 || formatVersion > 3) {
      throw OptionErrors.invalidProperty(table, "format-version", "Unsupported format-version " + formatVersion
          + " for table " + table + ": Floe writes format versions 2 and 3");
    }
    return formatVersion;
  }

  /**
   * {@code floe}, {@code iceberg}, and {@code parquet} (Floe tables store Parquet files; Spark also
   * passes its default source, parquet, for {@code saveAsTable} without a format), as Iceberg does.
   */
  private static void checkProvider(String prefix, String provider) {
    if (provider != null && !List.of("floe", "iceberg", "parquet").contains(provider.toLowerCase(Locale.ROOT))) {
      throw OptionErrors.unsupported(prefix + "Unsupported table provider '" + provider
          + "' in a Floe catalog: Floe tables store Parquet files; use USING floe (or omit USING), or "
          + "DataFrameWriter.format(\"floe\")");
    }
  }

  static Map<String, String> tableProperties(Map<String, String> props) {
    Map<String, String> out = new HashMap<>();
    props.forEach((k, v) -> {
      if (!RESERVED_PROPERTIES.contains(k) && !k.startsWith(TableCatalog.OPTION_PREFIX)) {
        out.put(k, v);
      }
    });
    return out;
  }

  @Override
  public Table createTable(Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> props)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    TableIdentifier id = toIdentifier(ident);
    checkCanCreate(ident);
    TableMetadata metadata = newMetadata(ident, columns, partitions, props, "create");
    try {
      return new FloeTable(this, ident, catalog.createTable(id, metadata), null);
    } catch (CatalogException e) {
      throw rethrow(createError(ident, e));
    }
  }

  @Override
  public Table createTable(Identifier ident, StructType schema, Transform[] partitions, Map<String, String> props)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    return createTable(ident, org.apache.spark.sql.connector.catalog.CatalogV2Util.structTypeToV2Columns(schema),
        partitions, props);
  }

  @Override
  public StagedTable stageCreate(Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> props)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    checkCanCreate(ident);
    return new StagedFloeTable(this, ident, newMetadata(ident, columns, partitions, props, "create"),
        StagedFloeTable.Mode.CREATE);
  }

  @Override
  public StagedTable stageReplace(Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> props)
      throws NoSuchNamespaceException, NoSuchTableException {
    if (!catalog.tableExists(toIdentifier(ident))) {
      throw SparkExceptions.noSuchTable(ident);
    }
    return new StagedFloeTable(this, ident, newMetadata(ident, columns, partitions, props, "replace"),
        StagedFloeTable.Mode.REPLACE);
  }

  @Override
  public StagedTable stageCreateOrReplace(Identifier ident, Column[] columns, Transform[] partitions,
      Map<String, String> props) throws NoSuchNamespaceException {
    if (!catalog.tableExists(toIdentifier(ident))) {
      try {
        checkCanCreate(ident);
      } catch (TableAlreadyExistsException e) {
        // created concurrently: the staged commit replaces it
      }
    }
    return new StagedFloeTable(this, ident, newMetadata(ident, columns, partitions, props, "create or replace"),
        StagedFloeTable.Mode.CREATE_OR_REPLACE);
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) throws NoSuchTableException {
    FileSystemTableOperations ops = loadOps(ident);
    TableAlterations.apply(ops, changes);
    return new FloeTable(this, ident, ops, null);
  }

  @Override
  public boolean dropTable(Identifier ident) {
    try {
      return catalog.dropTable(toIdentifier(ident), false);
    } catch (CatalogException e) {
      throw asSparkError(e);
    }
  }

  @Override
  public boolean purgeTable(Identifier ident) {
    try {
      return catalog.dropTable(toIdentifier(ident), true);
    } catch (CatalogException e) {
      throw asSparkError(e);
    }
  }

  @Override
  public void renameTable(Identifier from, Identifier to) throws NoSuchTableException, TableAlreadyExistsException {
    Identifier target = withoutCatalogPrefix(to);
    try {
      catalog.renameTable(toIdentifier(from), toIdentifier(target), new PositionDeleteFileRewriter(hadoopConf));
    } catch (CatalogException e) {
      switch (e.kind()) {
        case NO_SUCH_TABLE:
          throw SparkExceptions.noSuchTable(from);
        case TABLE_EXISTS:
          throw SparkExceptions.tableExists(to);
        case NO_SUCH_NAMESPACE:
          throw SparkExceptions.thrown("Cannot rename table " + name + "." + from + " to " + to + ": ", e,
              ErrorClass.FLOE_NAMESPACE_NOT_FOUND);
        default:
          throw asSparkError(e);
      }
    }
  }

  /**
   * Spark passes RENAME TO's target as written; {@code RENAME TO floe.db.t} names namespace
   * {@code floe.db} when the catalog is {@code floe}. Drop a leading catalog name when only the
   * shorter namespace exists.
   */
  private Identifier withoutCatalogPrefix(Identifier ident) {
    String[] ns = ident.namespace();
    if (ns.length > 1 && ns[0].equals(name) && !namespaceExists(ns)) {
      String[] shorter = Arrays.copyOfRange(ns, 1, ns.length);
      if (namespaceExists(shorter)) {
        return Identifier.of(shorter, ident.name());
      }
    }
    return ident;
  }

  // ---- procedures ----

  @Override
  public UnboundProcedure loadProcedure(Identifier ident) {
    return FloeProcedures.load(this, ident);
  }

  @Override
  public Identifier[] listProcedures(String[] namespace) {
    return FloeProcedures.list(namespace);
  }

  // ---- functions ----

  @Override
  public Identifier[] listFunctions(String[] namespace) throws NoSuchNamespaceException {
    if (FloeFunctions.isFunctionNamespace(namespace)) {
      return FloeFunctions.list(namespace);
    } else if (namespaceExists(namespace)) {
      return new Identifier[0];
    }
    throw SparkExceptions.noSuchNamespace(namespace);
  }

  @Override
  public UnboundFunction loadFunction(Identifier ident) throws NoSuchFunctionException {
    UnboundFunction function = FloeFunctions.load(ident);
    if (function == null) {
      throw new NoSuchFunctionException(ident);
    }
    return function;
  }

  // ---- namespaces ----

  @Override
  public String[][] listNamespaces() throws NoSuchNamespaceException {
    return listNamespaces(new String[0]);
  }

  @Override
  public String[][] listNamespaces(String[] namespace) throws NoSuchNamespaceException {
    try {
      List<List<String>> children = catalog.listNamespaces(Arrays.asList(namespace));
      return children.stream().map(ns -> ns.toArray(new String[0])).toArray(String[][]::new);
    } catch (CatalogException e) {
      if (e.kind() == CatalogException.Kind.NO_SUCH_NAMESPACE) {
        throw SparkExceptions.noSuchNamespace(namespace);
      }
      throw asSparkError(e);
    }
  }

  @Override
  public boolean namespaceExists(String[] namespace) {
    try {
      return catalog.namespaceExists(Arrays.asList(namespace));
    } catch (CatalogException e) {
      throw asSparkError(e);
    }
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(String[] namespace) throws NoSuchNamespaceException {
    try {
      return catalog.loadNamespaceProperties(Arrays.asList(namespace));
    } catch (CatalogException e) {
      if (e.kind() == CatalogException.Kind.NO_SUCH_NAMESPACE) {
        throw SparkExceptions.noSuchNamespace(namespace);
      }
      throw asSparkError(e);
    }
  }

  @Override
  public void createNamespace(String[] namespace, Map<String, String> metadata)
      throws NamespaceAlreadyExistsException {
    Map<String, String> props = new HashMap<>(metadata);
    if (props.containsKey(SupportsNamespaces.PROP_LOCATION)) {
      throw SparkExceptions.thrown(OptionErrors.unsupported("Cannot create namespace " + String.join(".", namespace)
          + " with a LOCATION: Floe namespaces are folders of the warehouse; omit LOCATION"));
    }
    props.remove(SupportsNamespaces.PROP_OWNER);
    try {
      catalog.createNamespace(Arrays.asList(namespace), props);
    } catch (CatalogException e) {
      if (e.kind() == CatalogException.Kind.NAMESPACE_EXISTS) {
        throw SparkExceptions.namespaceExists(namespace);
      }
      throw asSparkError(e);
    }
  }

  @Override
  public void alterNamespace(String[] namespace, NamespaceChange... changes) throws NoSuchNamespaceException {
    Map<String, String> updates = new HashMap<>();
    List<String> removals = new ArrayList<>();
    for (NamespaceChange change : changes) {
      if (change instanceof NamespaceChange.SetProperty) {
        NamespaceChange.SetProperty set = (NamespaceChange.SetProperty) change;
        if (set.property().equals(SupportsNamespaces.PROP_LOCATION)) {
          throw SparkExceptions.thrown(OptionErrors.unsupported("Cannot change the location of namespace "
              + String.join(".", namespace) + ": Floe namespaces are folders of the warehouse"));
        }
        updates.put(set.property(), set.value());
      } else if (change instanceof NamespaceChange.RemoveProperty) {
        removals.add(((NamespaceChange.RemoveProperty) change).property());
      }
    }
    try {
      catalog.setNamespaceProperties(Arrays.asList(namespace), updates, removals);
    } catch (CatalogException e) {
      if (e.kind() == CatalogException.Kind.NO_SUCH_NAMESPACE) {
        throw SparkExceptions.noSuchNamespace(namespace);
      }
      throw asSparkError(e);
    }
  }

  @Override
  public boolean dropNamespace(String[] namespace, boolean cascade)
      throws NoSuchNamespaceException, NonEmptyNamespaceException {
    try {
      if (!catalog.namespaceExists(Arrays.asList(namespace))) {
        throw SparkExceptions.noSuchNamespace(namespace);
      }
      return catalog.dropNamespace(Arrays.asList(namespace), cascade);
    } catch (CatalogException e) {
      if (e.kind() == CatalogException.Kind.NAMESPACE_NOT_EMPTY) {
        throw SparkExceptions.namespaceNotEmpty(namespace, e.getMessage());
      }
      throw asSparkError(e);
    }
  }
}
