package io.floe.spark.write;

import io.floe.format.ErrorClass;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableProperties;
import io.floe.format.metadata.TableProperty;
import io.floe.spark.util.SparkExceptions;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * Writes Floe refuses before any file is written, rather than committing something other than what
 * was asked: a write-audit-publish write (staging is not implemented, and publishing it to
 * {@code main} would make unaudited data visible), and a write to a format v1 table (Floe reads v1
 * but writes only v2 and v3 manifests). Every write path checks here: INSERT and overwrites (also
 * through the DataFrame API), DELETE, UPDATE and MERGE.
 */
public final class WriteChecks {
  /** Session settings with which Iceberg's runtime stages a write instead of publishing it. */
  static final String WAP_ID = "spark.wap.id";
  static final String WAP_BRANCH = "spark.wap.branch";

  private WriteChecks() {}

  /** Fails a write of {@code command} (e.g. "INSERT INTO", "DELETE FROM") to {@code table} that Floe cannot do. */
  public static void check(String command, String table, TableMetadata metadata) {
    checkFormatVersion(command, table, metadata);
    checkStoredProperties(command, table, metadata);
    if (!TableProperties.booleanValue(metadata.properties(), TableProperties.WRITE_AUDIT_PUBLISH_ENABLED)) {
      return;
    }
    SparkSession spark = SparkSession.active();
    for (String setting : new String[] {WAP_ID, WAP_BRANCH}) {
      String value = spark.conf().get(setting, null);
      if (value != null && !value.isEmpty()) {
        throw SparkExceptions.thrown(ErrorClass.FLOE_WRITE_REFUSED, "Cannot " + command + " table " + table
            + ": it has " + TableProperties.WRITE_AUDIT_PUBLISH_ENABLED + "=true and the session sets " + setting + "="
            + value + ", but Floe does not stage write-audit-publish writes yet, and publishing this write to main "
            + "would make unaudited data visible. Unset " + setting + " (RESET " + setting + ") to write to main, or "
            + "stage the write with an engine that supports write-audit-publish. Nothing was written");
      }
    }
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
