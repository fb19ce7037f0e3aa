package io.floe.spark.write;

import io.floe.format.ErrorClass;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableProperties;
import io.floe.format.metadata.TableProperty;
import io.floe.spark.util.SparkExceptions;
import java.util.HashMap;
import java.util.Map;

/**
 * Writes Floe refuses before any file is written, rather than committing something other than what
 * was asked: a write to a format v1 table (Floe reads v1 but writes only v2 and v3 manifests), and
 * a write while a table property holds a value Floe cannot use. Every write path checks here: INSERT
 * and overwrites (also through the DataFrame API), DELETE, UPDATE and MERGE. Where a write commits
 * (branch, write-audit-publish) is {@link WriteRefs}'s.
 */
public final class WriteChecks {
  private WriteChecks() {}

  /** Fails a write of {@code command} (e.g. "INSERT INTO", "DELETE FROM") to {@code table} that Floe cannot do. */
  public static void check(String command, String table, TableMetadata metadata) {
    checkFormatVersion(command, table, metadata);
    checkStoredProperties(command, table, metadata);
  }

  /**
   * Fails a write when a known property the table already holds (set before Floe checked values,
   * or by another engine) has a value Floe cannot use, instead of failing later in a task.
   */
  static void checkStoredProperties(String command, String table, TableMetadata metadata) {
    Map<String, String> stored = new HashMap<>(metadata.properties());
    // another engine's default file format (orc, avro) is valid for the table: Floe adds Parquet files
    stored.remove(TableProperties.DEFAULT_FILE_FORMAT);
    TableProperty invalid = TableProperties.firstInvalid(stored);
    if (invalid != null) {
      throw SparkExceptions.thrown(ErrorClass.FLOE_TABLE_PROPERTY_INVALID, "Cannot " + command + " table " + table
          + ": its table property "
          + invalid.key() + " is '" + metadata.properties().get(invalid.key()) + "', expected " + invalid.accepted()
          + ". Fix it with ALTER TABLE " + table + " SET TBLPROPERTIES ('" + invalid.key() + "' = ...) or UNSET it");
    }
  }

  /** Fails a write to a format v1 table (created by another engine). */
  static void checkFormatVersion(String command, String table, TableMetadata metadata) {
    if (metadata.formatVersion() < 2) {
      throw SparkExceptions.thrown(ErrorClass.FLOE_WRITE_REFUSED, "Cannot " + command + " table " + table
          + ": it has format version "
          + metadata.formatVersion() + ", which Floe reads but does not write. Upgrade it first with ALTER TABLE "
          + table + " SET TBLPROPERTIES ('format-version' = '2')");
    }
  }
}
