package io.floe.spark.procedures;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.stream.ChangelogOptions;
import io.floe.format.stream.ChangelogScan;
import io.floe.spark.source.FloeChangelogScan;
import io.floe.spark.source.FloeChangesTable;
import io.floe.spark.util.SparkExceptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.OrderUtils;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code CALL floe.system.create_changelog_view(table => 'db.t', changelog_view => 'v',
 * options => map('start-snapshot-id', '1', 'end-snapshot-id', '2'), compute_updates => true,
 * identifier_columns => array('id'), net_changes => false)}: Iceberg's procedure, parameters and
 * output. Creates the session's temporary view {@code changelog_view} (default {@code `<table>_changes`})
 * over {@code db.t.changes} with carry-over rows removed ({@link ChangelogRows}) and, when
 * {@code compute_updates} (default: whether {@code identifier_columns} are given; identifier columns
 * default to the table's identifier fields), update images; returns the view's name.
 */
final class CreateChangelogViewProcedure extends FloeProcedure {
  static final String NAME = "create_changelog_view";

  static final StructType OUTPUT = new StructType().add("changelog_view", DataTypes.StringType, false);

  CreateChangelogViewProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Creates a temporary view of the rows a range of snapshots inserted, deleted or updated",
        new ProcedureParameter[] {
            required("table", DataTypes.StringType),
            optional("changelog_view", DataTypes.StringType),
            optional("options", DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType)),
            optional("compute_updates", DataTypes.BooleanType),
            optional("identifier_columns", DataTypes.createArrayType(DataTypes.StringType)),
            optional("net_changes", DataTypes.BooleanType)});
  }

  @Override
  Iterator<Scan> run(InternalRow args) {
    TableIdentifier ident = resolveTable(requiredString(args, 0, "table"));
    String table = tableName(ident);
    FileSystemTableOperations ops = loadTable(ident);
    Map<String, String> options = stringMap(args, 2);
    checkRange(table, ops.current(), options);
    List<String> identifiers = args.isNullAt(4) ? null : stringList(args.getArray(4), "identifier_columns");
    boolean computeUpdates = args.isNullAt(3) ? identifiers != null : args.getBoolean(3);
    boolean netChanges = Boolean.TRUE.equals(optionalBoolean(args, 5));
    if (identifiers == null) {
      identifiers = identifierFields(ops.current());
    }
    SparkSession spark = SparkSession.active();
    Dataset<Row> changes = spark.read().options(options).table(quoted(ident) + "." + FloeChangesTable.NAME);
    checkColumns(table, changes.schema(), identifiers, computeUpdates);
    Dataset<Row> view;
    if (computeUpdates) {
      if (netChanges) {
        throw argumentError("net_changes", "Cannot run " + qualifiedName() + " on " + table + ": net_changes with "
            + "compute_updates is not supported (as in Apache Iceberg 1.11); set one of them to false");
      }
      view = ChangelogRows.computeUpdates(changes, identifiers, table);
    } else {
      view = ChangelogRows.removeCarryovers(changes, netChanges);
    }
    String name = optionalString(args, 1);
    if (name == null) {
      name = "`" + ident.name().replace("`", "``") + "_changes`";
    }
    try {
      view.createOrReplaceTempView(name);
    } catch (RuntimeException e) {
      throw argumentError("changelog_view", "Cannot run " + qualifiedName() + " on " + table
          + ": invalid changelog_view '" + name + "': " + e.getMessage());
    }
    return result(OUTPUT, new GenericInternalRow(new Object[] {UTF8String.fromString(name)}));
  }

  /** Fails now, not when the view is read, for bad options and unknown, expired or reversed snapshots. */
  private void checkRange(String table, TableMetadata metadata, Map<String, String> options) {
    try {
      ChangelogOptions.Range range = ChangelogOptions.parse(table, options).resolve(metadata);
      if (!range.empty()) {
        ChangelogScan.of(table, null, metadata).snapshots(range.startExclusive(), range.endInclusive());
      }
    } catch (FloeException e) {
      throw SparkExceptions.thrown("", e, ErrorClass.FLOE_OPTION_INVALID);
    }
  }

  private void checkColumns(String table, StructType schema, List<String> identifiers, boolean computeUpdates) {
    List<String> dataColumns = new ArrayList<>(Arrays.asList(schema.fieldNames()));
    dataColumns.removeAll(List.of(FloeChangelogScan.CHANGE_TYPE, FloeChangelogScan.CHANGE_ORDINAL,
        FloeChangelogScan.COMMIT_SNAPSHOT_ID));
    if (computeUpdates && identifiers.isEmpty()) {
      throw argumentError("identifier_columns", "Cannot compute the update images of " + table + ": identifier "
          + "columns are not set; pass identifier_columns => array('<column>', ...) (columns: "
          + String.join(", ", dataColumns) + ") or set the table's identifier fields");
    }
    for (String column : identifiers) {
      if (!dataColumns.contains(column)) {
        throw argumentError("identifier_columns", "Cannot run " + qualifiedName() + " on " + table
            + ": identifier column '" + column + "' is not a column of the table (columns: "
            + String.join(", ", dataColumns) + ")");
      }
    }
    for (StructField field : schema.fields()) {
      if (!OrderUtils.isOrderable(field.dataType())) {
        throw userError(ErrorClass.FLOE_UNSUPPORTED, "Cannot run " + qualifiedName() + " on " + table
            + ": column " + field.name() + " has type " + field.dataType().simpleString() + ", whose values cannot be"
            + " compared to find carry-over rows; read the rows with carry-overs from " + table + "."
            + FloeChangesTable.NAME + " instead");
      }
    }
  }

  private static List<String> identifierFields(TableMetadata metadata) {
    List<String> out = new ArrayList<>();
    metadata.schema().identifierFieldIds().forEach(id -> out.add(metadata.schema().findColumnName(id)));
    return out;
  }

  private List<String> stringList(ArrayData array, String parameter) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < array.numElements(); i++) {
      if (array.isNullAt(i)) {
        throw argumentError(parameter, "Cannot run " + qualifiedName() + ": " + parameter + " must not contain NULL");
      }
      out.add(array.getUTF8String(i).toString());
    }
    return out;
  }

  private static Map<String, String> stringMap(InternalRow args, int ordinal) {
    Map<String, String> out = new LinkedHashMap<>();
    if (!args.isNullAt(ordinal)) {
      MapData map = args.getMap(ordinal);
      for (int i = 0; i < map.numElements(); i++) {
        out.put(map.keyArray().getUTF8String(i).toString(),
            map.valueArray().isNullAt(i) ? null : map.valueArray().getUTF8String(i).toString());
      }
    }
    return out;
  }
}
