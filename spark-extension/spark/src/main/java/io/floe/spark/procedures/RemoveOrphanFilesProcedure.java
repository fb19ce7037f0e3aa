package io.floe.spark.procedures;

import io.floe.format.catalog.CatalogException;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.maintenance.OrphanFiles;
import io.floe.spark.util.SparkExceptions;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code CALL floe.system.remove_orphan_files(table => 'db.t' [, older_than => TIMESTAMP '...']
 * [, location => '...'] [, dry_run => true] [, max_concurrent_deletes => 4] [, equal_schemes =>
 * map(...)] [, equal_authorities => map(...)] [, prefix_mismatch_mode => 'ERROR'|'IGNORE'|'DELETE']
 * [, prefix_listing => false] [, allow_short_interval => true])}: deletes the files below the table
 * location that no metadata reaches and that were last modified before {@code older_than} (default
 * three days ago; less than 24 hours ago only with {@code allow_short_interval => true}). Returns one
 * row per orphan file, column {@code orphan_file_location}, as Iceberg does.
 */
final class RemoveOrphanFilesProcedure extends FloeProcedure {
  static final String NAME = "remove_orphan_files";

  static final StructType OUTPUT = new StructType().add("orphan_file_location", DataTypes.StringType, false);

  private static final org.apache.spark.sql.types.DataType STRING_MAP =
      DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType);

  RemoveOrphanFilesProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Deletes files below the table location that no metadata reaches",
        new ProcedureParameter[] {
            required("table", DataTypes.StringType),
            optional("older_than", DataTypes.TimestampType),
            optional("location", DataTypes.StringType),
            optional("dry_run", DataTypes.BooleanType),
            optional("max_concurrent_deletes", DataTypes.IntegerType),
            optional("equal_schemes", STRING_MAP),
            optional("equal_authorities", STRING_MAP),
            optional("prefix_mismatch_mode", DataTypes.StringType),
            optional("prefix_listing", DataTypes.BooleanType),
            optional("allow_short_interval", DataTypes.BooleanType)});
  }

  @Override
  Iterator<Scan> run(InternalRow args) {
    TableIdentifier ident = resolveTable(requiredString(args, 0, "table"));
    String table = tableName(ident);
    FileSystemTableOperations ops = loadTable(ident);
    Integer concurrency = optionalInt(args, 4);
    if (concurrency != null && concurrency < 1) {
      throw argumentError("max_concurrent_deletes", "Cannot run " + qualifiedName() + " on table " + table
          + ": max_concurrent_deletes must be at least 1, got " + concurrency);
    }
    List<String> orphans;
    try {
      OrphanFiles action = OrphanFiles.of(ops)
          .olderThan(optionalTimestampMillis(args, 1))
          .location(optionalString(args, 2))
          .dryRun(Boolean.TRUE.equals(optionalBoolean(args, 3)))
          .threads(concurrency == null ? 4 : concurrency)
          .equalSchemes(stringMap(args, 5))
          .equalAuthorities(stringMap(args, 6))
          .allowShortInterval(Boolean.TRUE.equals(optionalBoolean(args, 9)));
      String mode = optionalString(args, 7);
      if (mode != null) {
        action.prefixMismatchMode(OrphanFiles.PrefixMismatchMode.fromString(mode));
      }
      orphans = action.execute();
    } catch (CatalogException e) {
      throw SparkExceptions.thrown(e); // another table's metadata is in the way; the message says what to do
    } catch (IllegalArgumentException | IllegalStateException e) {
      // the format's messages already say what could not be done and name the table
      throw refused(e.getMessage().startsWith("Cannot ") ? "" : "Cannot run " + qualifiedName() + " on table "
          + table + ": ", e);
    }
    InternalRow[] rows = new InternalRow[orphans.size()];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = new GenericInternalRow(new Object[] {UTF8String.fromString(orphans.get(i))});
    }
    return result(OUTPUT, rows);
  }

  private static Map<String, String> stringMap(InternalRow args, int ordinal) {
    Map<String, String> map = new HashMap<>();
    if (args.isNullAt(ordinal)) {
      return map;
    }
    MapData data = args.getMap(ordinal);
    ArrayData keys = data.keyArray();
    ArrayData values = data.valueArray();
    for (int i = 0; i < data.numElements(); i++) {
      if (!values.isNullAt(i)) {
        map.put(keys.getUTF8String(i).toString(), values.getUTF8String(i).toString());
      }
    }
    return map;
  }
}
