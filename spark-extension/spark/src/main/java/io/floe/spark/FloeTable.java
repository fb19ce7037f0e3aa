package io.floe.spark;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.OptionErrors;
import io.floe.format.SnapshotErrors;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.ManageRefs;
import io.floe.format.commit.OverwriteFiles;
import io.floe.format.commit.SnapshotListing;
import io.floe.format.expr.Evaluator;
import io.floe.format.expr.Expression;
import io.floe.format.expr.Expressions;
import io.floe.format.expr.Projections;
import io.floe.format.io.Locations;
import io.floe.format.metadata.PastSnapshots;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableMetadataParser;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.scan.FileScanTask;
import io.floe.format.scan.TableScan;
import io.floe.format.sql.SqlTokens;
import io.floe.format.table.TableView;
import io.floe.format.types.Schema;
import io.floe.spark.index.SparkIndexes;
import io.floe.spark.source.FloeScanBuilder;
import io.floe.spark.source.MetadataColumns;
import io.floe.spark.source.SparkFilters;
import io.floe.spark.util.SparkExceptions;
import io.floe.spark.util.SparkPartitioning;
import io.floe.spark.util.SparkSchemas;
import io.floe.spark.write.FloeRowLevelOperationBuilder;
import io.floe.spark.write.FloeWriteBuilder;
import io.floe.spark.write.WriteChecks;
import io.floe.spark.write.WriteRefs;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.MetadataColumn;
import org.apache.spark.sql.connector.catalog.SupportsDeleteV2;
import org.apache.spark.sql.connector.catalog.SupportsMetadataColumns;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsRowLevelOperations;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.index.SupportsIndex;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperationBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** A Floe table as Spark sees it: at its current snapshot, or pinned to one for time travel. */
public class FloeTable implements SupportsRead, SupportsWrite, SupportsDeleteV2, SupportsRowLevelOperations,
    SupportsMetadataColumns, SupportsIndex {
  private static final Set<TableCapability> CAPABILITIES = Set.of(
      TableCapability.BATCH_READ, TableCapability.BATCH_WRITE, TableCapability.TRUNCATE,
      TableCapability.MICRO_BATCH_READ,
      TableCapability.OVERWRITE_BY_FILTER, TableCapability.OVERWRITE_DYNAMIC,
      TableCapability.STREAMING_WRITE);

  private final FloeCatalog catalog;
  /** What scans and writes see of the table: name, operations, metadata, snapshot and read schema. */
  private final TableView view;
  private final Identifier ident;
  private final FileSystemTableOperations ops;
  private final TableMetadata metadata;
  private final Snapshot pinned;
  /** The tag this table was loaded as ({@code t.tag_x}, read-only), or null. */
  private final String tag;

  FloeTable(FloeCatalog catalog, Identifier ident, FileSystemTableOperations ops, Snapshot pinned) {
    this(catalog, ident, TableView.current(catalog.name() + "." + ops.tableName(), ops).pinnedTo(pinned, null), null);
  }

  private FloeTable(FloeCatalog catalog, Identifier ident, TableView view) {
    this(catalog, ident, view, null);
  }

  private FloeTable(FloeCatalog catalog, Identifier ident, TableView view, String tag) {
    this.catalog = catalog;
    this.ident = ident;
    this.view = view;
    this.ops = view.ops();
    this.metadata = view.metadata();
    this.pinned = view.pinnedSnapshot();
    this.tag = tag;
  }

  /**
   * {@code t.branch_b} or {@code t.tag_x} when {@code name} so names an existing branch or tag of
   * this table; null otherwise (see docs/branches.md). A branch reads its head and takes writes; a
   * tag reads its snapshot and refuses writes. Such an identifier takes no VERSION / TIMESTAMP AS OF.
   */
  FloeTable refIdentifier(String name, boolean timeTravel) {
    boolean branch = name.startsWith("branch_");
    if (!branch && !name.startsWith("tag_")) {
      return null;
    }
    String refName = name.substring(branch ? "branch_".length() : "tag_".length());
    SnapshotRef ref = metadata.ref(refName);
    if (refName.isEmpty() || ref == null || ref.isBranch() != branch || metadata.snapshot(ref.snapshotId()) == null) {
      return null;
    }
    if (timeTravel) {
      throw SparkExceptions.thrown(ErrorClass.FLOE_UNSUPPORTED, "Cannot time travel " + name() + "." + name
          + ": it already names " + (branch ? "branch" : "tag") + " '" + refName + "'; use " + name()
          + " VERSION AS OF '" + refName + "' or a snapshot id instead");
    }
    return branch ? new FloeTable(catalog, ident, view.onBranch(refName))
        : new FloeTable(catalog, ident, view.pinnedTo(metadata.snapshot(ref.snapshotId()), null), refName);
  }

  /** The format-level view scans, writes and row-level operations work on. */
  public TableView view() {
    return view;
  }

  public FloeCatalog catalog() {
    return catalog;
  }

  public FileSystemTableOperations ops() {
    return ops;
  }

  public TableMetadata metadata() {
    return metadata;
  }

  /** The snapshot reads see: the pinned one, or the current one (null for an empty table). */
  public Snapshot snapshot() {
    return view.snapshot();
  }

  public boolean isTimeTravel() {
    return pinned != null;
  }

  /** The schema of the snapshot being read (the current schema unless time travelling). */
  public Schema readSchema() {
    return view.readSchema();
  }

  @Override
  public String name() {
    return view.name();
  }

  /** {@code `catalog`.`db`.`t`}: the name for SQL, each part quoted (names may hold dots). */
  private String quotedName() {
    List<String> parts = new ArrayList<>();
    parts.add(catalog.name());
    parts.addAll(Arrays.asList(ident.namespace()));
    parts.add(ident.name());
    return SqlTokens.quote(parts);
  }

  @Override
  public StructType schema() {
    return SparkSchemas.convert(readSchema());
  }

  @Override
  public Transform[] partitioning() {
    return SparkPartitioning.toSpark(metadata.spec());
  }

  @Override
  public Map<String, String> properties() {
    Map<String, String> props = new HashMap<>(metadata.properties());
    props.put("provider", "floe");
    props.put("format", "iceberg/parquet");
    props.put("format-version", Integer.toString(metadata.formatVersion()));
    props.put("location", metadata.location());
    Snapshot current = snapshot();
    props.put("current-snapshot-id", current == null ? "none" : Long.toString(current.snapshotId()));
    return props;
  }

  /**
   * The properties SHOW CREATE TABLE prints: those of {@link #properties()} that CREATE TABLE takes
   * back. Without {@code current-snapshot-id} and {@code format} (state, not settings), and without
   * {@code location} when the table lives in its own warehouse folder: that LOCATION would name
   * this table's folder, which a table created from the statement under another name cannot use.
   */
  public Map<String, String> createStatementProperties() {
    Map<String, String> props = properties();
    props.remove("current-snapshot-id");
    props.remove("format");
    String own = Locations.canonical(ops.metadataRoot());
    if (own != null && own.equals(Locations.canonical(metadata.location()))) {
      props.remove("location");
    }
    return props;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return CAPABILITIES;
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return new FloeScanBuilder(withReadOptions(options).view, options);
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    String branchOption = info == null ? null : info.options().get(WriteRefs.BRANCH_OPTION);
    return new FloeWriteBuilder(WriteRefs.forWrite(view, tag, branchOption), info);
  }

  /** The DataFrame read options that pin a read to a snapshot (Iceberg's names). */
  public static final List<String> TIME_TRAVEL_OPTIONS = List.of("snapshot-id", "as-of-timestamp", "branch", "tag");

  /**
   * {@code VERSION AS OF}: a snapshot id, or a branch or tag name (an existing ref name wins over a
   * number only when no snapshot has that id). Unknown versions are errors listing the table's
   * snapshots and refs.
   */
  FloeTable atVersion(String version) {
    Snapshot snap = null;
    if (version.matches("-?\\d+")) {
      snap = metadata.snapshot(Long.parseLong(version));
    }
    if (snap == null) {
      SnapshotRef ref = metadata.refs().get(version);
      if (ref != null) {
        snap = metadata.snapshot(ref.snapshotId());
      }
    }
    if (snap == null) {
      throw SparkExceptions.thrown(SnapshotErrors.versionNotFound(name(), version, SnapshotListing.describe(metadata)));
    }
    return new FloeTable(catalog, ident, ops, snap);
  }

  /**
   * {@code TIMESTAMP AS OF}: the snapshot that was current on main at that time (the last
   * snapshot-log entry at or before it; when expiration trimmed the log, the metadata file that was
   * current then, see {@link PastSnapshots}). A snapshot that has expired since is an error naming
   * it; a time before the table's history is an error giving the earliest snapshot's commit time.
   */
  FloeTable asOfTimestamp(long timestampMillis) {
    String action = "Cannot time travel table " + name() + " to "
        + java.time.Instant.ofEpochMilli(timestampMillis);
    try {
      return new FloeTable(catalog, ident, ops, PastSnapshots.snapshotAt(metadata, timestampMillis,
          file -> TableMetadataParser.read(ops.io(), file), action));
    } catch (FloeException e) {
      throw SparkExceptions.thrown(e);
    }
  }


  /**
   * The table as the read options {@code snapshot-id}, {@code as-of-timestamp} (milliseconds since
   * the epoch), {@code branch} or {@code tag} pin it; this table when none is set. At most one may
   * be set, and not together with {@code VERSION AS OF} / {@code TIMESTAMP AS OF}.
   */
  public FloeTable withReadOptions(Map<String, String> options) {
    String optionBranch = options.get("branch");
    if (optionBranch != null && optionBranch.trim().equals(view.branch())) {
      Map<String, String> rest = new HashMap<>(options);
      rest.remove("branch");
      return withReadOptions(rest);
    }
    FloeTable snapshotTable = snapshotOf(options);
    if (snapshotTable == this) {
      String wapBranch = pinned == null && view.branch() == null ? WriteRefs.wapReadBranch(metadata) : null;
      return wapBranch == null ? this : new FloeTable(catalog, ident, view.onBranch(wapBranch));
    }
    // Spark resolved the query against the current columns before it passed the options: read the
    // snapshot's files through the current schema, matching columns by field id as for any old file
    // (renamed columns show their old values, columns added later read as null), as Iceberg does.
    return new FloeTable(catalog, ident, view.pinnedTo(snapshotTable.pinned, metadata.schema()));
  }

  private FloeTable snapshotOf(Map<String, String> options) {
    List<String> set = TIME_TRAVEL_OPTIONS.stream().filter(o -> options.get(o) != null).toList();
    if (set.isEmpty()) {
      return this;
    }
    if (set.size() > 1) {
      throw SparkExceptions.thrown(OptionErrors.invalidOption(set.get(1), options.get(set.get(1)), "Cannot read table "
          + name() + ": read options " + String.join(" and ", set) + " both select a snapshot; set only one of "
          + String.join(", ", TIME_TRAVEL_OPTIONS)));
    }
    if (pinned != null || view.branch() != null) {
      throw SparkExceptions.thrown(OptionErrors.invalidOption(set.get(0), options.get(set.get(0)), "Cannot read table "
          + name() + " with read option " + set.get(0) + ": the query already selects "
          + (pinned != null ? "snapshot " + pinned.snapshotId() + " (VERSION AS OF / TIMESTAMP AS OF, or a tag_ name)"
              : "branch '" + view.branch() + "' (a branch_ name)")));
    }
    String option = set.get(0);
    String value = options.get(option).trim();
    switch (option) {
      case "snapshot-id": {
        Snapshot snap = value.matches("-?\\d+") ? metadata.snapshot(Long.parseLong(value)) : null;
        if (snap == null) {
          throw SparkExceptions.thrown(SnapshotErrors.snapshotNotFound(name(), value, "Cannot read table " + name()
              + " at snapshot-id " + value + ": no snapshot has that id; " + SnapshotListing.describe(metadata)));
        }
        return new FloeTable(catalog, ident, ops, snap);
      }
      case "as-of-timestamp":
        if (!value.matches("-?\\d+")) {
          throw SparkExceptions.thrown(OptionErrors.invalidOption(option, value, "Cannot read table " + name()
              + ": read option as-of-timestamp must be milliseconds since the epoch, not '" + value + "'"));
        }
        return asOfTimestamp(Long.parseLong(value));
      default: {
        boolean branch = option.equals("branch");
        SnapshotRef ref = metadata.refs().get(value);
        if (ref == null || ref.isBranch() != branch || metadata.snapshot(ref.snapshotId()) == null) {
          throw SparkExceptions.thrown(SnapshotErrors.snapshotNotFound(name(), value, "Cannot read table " + name()
              + " at " + option + " " + value + ": no " + option + " has that name; "
              + SnapshotListing.describe(metadata)));
        }
        return new FloeTable(catalog, ident, ops, metadata.snapshot(ref.snapshotId()));
      }
    }
  }

  // ---- row-level operations ----------------------------------------------------------------------

  /**
   * DELETE (when not metadata-only), UPDATE and MERGE: copy-on-write or merge-on-read per the
   * table's {@code write.<command>.mode} (see {@link FloeRowLevelOperationBuilder}).
   */
  @Override
  public RowLevelOperationBuilder newRowLevelOperationBuilder(RowLevelOperationInfo info) {
    if (pinned != null && tag == null) {
      return new FloeRowLevelOperationBuilder(view, info); // refuses time travel, naming the command
    }
    return new FloeRowLevelOperationBuilder(WriteRefs.forWrite(view, tag, info.options().get(WriteRefs.BRANCH_OPTION)),
        info);
  }

  // ---- metadata-only DELETE ----------------------------------------------------------------------

  /**
   * True when every live file either certainly holds only matching rows (its partition satisfies the
   * strict projection of the condition) or certainly holds none (inclusive projection of the
   * partition, or column bounds); such a DELETE only drops files from metadata. Otherwise false:
   * Spark then runs the DELETE as a row-level operation ({@link #newRowLevelOperationBuilder}).
   */
  @Override
  public boolean canDeleteWhere(Predicate[] predicates) {
    if (tag != null) {
      WriteRefs.forWrite(view, tag, null); // refuses, naming the tag
    }
    if (pinned != null) {
      throw new UnsupportedOperationException("Cannot DELETE FROM " + name()
          + ": the table is read at a past snapshot (time travel); row-level changes apply to the current snapshot");
    }
    WriteChecks.check("DELETE FROM", name(), metadata);
    return wholeFileDeleteProblem(predicates) == null;
  }

  /** Why the DELETE cannot drop whole files, or null when it can. */
  private String wholeFileDeleteProblem(Predicate[] predicates) {
    if (pinned != null) {
      return "the table is read at a past snapshot (time travel)";
    }
    Expression filter = deleteFilter(predicates);
    if (filter == null) {
      return "the condition cannot be evaluated against partition values and column bounds";
    }
    List<FileScanTask> candidates;
    try {
      candidates = matchingFiles(filter, writeView());
    } catch (IllegalArgumentException e) {
      // a column the format cannot bind (a full name two fields share): Spark deletes row by row
      return "the condition cannot be evaluated against partition values and column bounds ("
          + e.getMessage() + ")";
    }
    for (FileScanTask task : candidates) {
      if (!strictlyMatches(task, filter, metadata.schema())) {
        return "data file " + task.file().path() + " holds both rows that match and rows that do not";
      }
    }
    return null;
  }

  /** The condition as a Floe expression, or null when some part cannot be converted safely. */
  private Expression deleteFilter(Predicate[] predicates) {
    Expression filter = Expressions.alwaysTrue();
    for (Predicate p : predicates) {
      if (hasUnsafeNot(p)) {
        return null;
      }
      Expression converted = SparkFilters.convert(p);
      if (converted == null) {
        return null;
      }
      filter = Expressions.and(filter, converted);
    }
    return filter;
  }

  /**
   * SQL {@code NOT (a = 1)} is null, so keeps the row, when a is null, but a negated predicate
   * evaluated on a partition tuple is true there: only NOT of IS [NOT] NULL is safe.
   */
  private static boolean hasUnsafeNot(org.apache.spark.sql.connector.expressions.Expression e) {
    if (e instanceof Predicate p && "NOT".equals(p.name())) {
      org.apache.spark.sql.connector.expressions.Expression child = p.children()[0];
      if (!(child instanceof Predicate c) || !("IS_NULL".equals(c.name()) || "IS_NOT_NULL".equals(c.name()))) {
        return true;
      }
    }
    for (org.apache.spark.sql.connector.expressions.Expression child : e.children()) {
      if (hasUnsafeNot(child)) {
        return true;
      }
    }
    return false;
  }

  /** Where a metadata-only DELETE commits: this table's branch, the session's WAP branch, or staged. */
  private TableView writeView() {
    return WriteRefs.forWrite(view, tag, null);
  }

  /**
   * Live files of the head of {@code target}'s branch (main's current snapshot for main or a staged
   * write) that may hold matching rows (partition values and bounds).
   */
  private List<FileScanTask> matchingFiles(Expression filter, TableView target) {
    TableMetadata current = ops.refresh();
    Snapshot head = current == null ? null : ManageRefs.branchHead(current,
        target.branch() == null ? SnapshotRef.MAIN_BRANCH : target.branch(), name());
    if (head == null) {
      return List.of();
    }
    return TableScan.of(ops.io(), current).useSnapshot(head).schema(current.schema())
        .filter(filter).planFiles().tasks();
  }

  /** Whether every row of the file matches: by its partition values, or by its column bounds. */
  private static boolean strictlyMatches(FileScanTask task, Expression filter, Schema schema) {
    PartitionSpec spec = task.spec();
    try {
      return new Evaluator(spec.partitionType(), Projections.strict(spec).project(filter))
          .eval(task.file().partition())
          || new io.floe.format.expr.StrictMetricsEvaluator(schema, filter).eval(task.file());
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * Drops the matching files in a {@code delete} snapshot. The file set is recomputed against every
   * retry's base, and a concurrent commit that added a file holding both matching and other rows
   * fails the DELETE (nothing is committed).
   */
  @Override
  public void deleteWhere(Predicate[] predicates) {
    String reason = wholeFileDeleteProblem(predicates);
    if (reason != null) {
      throw SparkExceptions.thrown(ErrorClass.FLOE_UNSUPPORTED, "Cannot DELETE FROM " + name() + " WHERE "
          + Arrays.stream(predicates).map(Predicate::describe).collect(Collectors.joining(" AND "))
          + " by dropping whole data files: " + reason);
    }
    Expression filter = deleteFilter(predicates);
    TableView target = writeView();
    if (matchingFiles(filter, target).isEmpty()) {
      return; // nothing to delete: no snapshot
    }
    OverwriteFiles delete = target.target(new OverwriteFiles(ops)).overwriteByRowFilter(filter);
    delete.set("spark.app.id", org.apache.spark.sql.SparkSession.active().sparkContext().applicationId());
    try {
      delete.commit();
    } catch (FloeException e) {
      throw SparkExceptions.atRuntime(e);
    }
  }

  // ---- metadata columns ----------------------------------------------------------------------------

  @Override
  public MetadataColumn[] metadataColumns() {
    return MetadataColumns.of(view);
  }

  /** CREATE INDEX (docs/indexes.md): builds the index over the current snapshot and commits it. */
  @Override
  public void createIndex(String indexName, NamedReference[] columns,
      Map<NamedReference, Map<String, String>> columnProperties, Map<String, String> properties)
      throws org.apache.spark.sql.catalyst.analysis.IndexAlreadyExistsException {
    if (pinned != null) {
      throw new IllegalArgumentException("Cannot create an index on table " + name() + " at a past snapshot");
    }
    SparkIndexes.of(ops, name(), quotedName()).create(indexName, columns, columnProperties, properties);
  }

  @Override
  public void dropIndex(String indexName) throws org.apache.spark.sql.catalyst.analysis.NoSuchIndexException {
    SparkIndexes.of(ops, name(), quotedName()).drop(indexName);
  }

  @Override
  public boolean indexExists(String indexName) {
    return SparkIndexes.of(ops, name(), quotedName()).exists(indexName);
  }

  @Override
  public org.apache.spark.sql.connector.catalog.index.TableIndex[] listIndexes() {
    return SparkIndexes.of(ops, name(), quotedName()).list();
  }

  @Override
  public String toString() {
    return name();
  }
}
