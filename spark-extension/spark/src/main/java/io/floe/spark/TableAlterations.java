package io.floe.spark;

import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.metadata.TableMetadata;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.TableChange;

/** Applies ALTER TABLE changes as one metadata commit. */
final class TableAlterations {
  private TableAlterations() {}

  /** Commits the changes; a lost race is retried on the new version (property changes never conflict). */
  static void apply(FileSystemTableOperations ops, TableChange... changes) {
    for (int attempt = 1; ; attempt++) {
      try {
        applyOnce(ops, ops.refresh(), changes);
        return;
      } catch (io.floe.format.commit.CommitFailedException e) {
        if (attempt >= 5) {
          throw e;
        }
      }
    }
  }

  private static void applyOnce(FileSystemTableOperations ops, TableMetadata base, TableChange... changes) {
    Map<String, String> updates = new HashMap<>();
    Set<String> removals = new HashSet<>();
    Integer newFormatVersion = null;
    for (TableChange change : changes) {
      if (change instanceof TableChange.SetProperty) {
        TableChange.SetProperty set = (TableChange.SetProperty) change;
        if (set.property().equals("format-version")) {
          newFormatVersion = parseFormatVersion(ops, base, set.value());
        } else if (set.property().equals("location") || set.property().equals("provider")) {
          throw new IllegalArgumentException("Cannot change reserved table property '" + set.property()
              + "' of table " + ops.tableName());
        } else {
          updates.put(set.property(), set.value());
        }
      } else if (change instanceof TableChange.RemoveProperty) {
        String key = ((TableChange.RemoveProperty) change).property();
        if (key.equals("format-version")) {
          throw new IllegalArgumentException("Cannot remove format-version of table " + ops.tableName());
        }
        removals.add(key);
      } else {
        throw new UnsupportedOperationException("Unsupported table change for table " + ops.tableName() + ": "
            + change.getClass().getSimpleName());
      }
    }
    io.floe.format.metadata.TableMetadataBuilder builder = TableMetadata.buildFrom(base).setProperties(updates).removeProperties(removals);
    if (newFormatVersion != null && newFormatVersion != base.formatVersion()) {
      builder.upgradeFormatVersion(newFormatVersion);
    }
    ops.commit(base, builder.build());
  }

  private static int parseFormatVersion(FileSystemTableOperations ops, TableMetadata base, String value) {
    int v;
    try {
      v = Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Invalid format-version '" + value + "' for table " + ops.tableName()
          + ": use 1, 2 or 3");
    }
    if (v < base.formatVersion()) {
      throw new IllegalArgumentException("Cannot downgrade table " + ops.tableName() + " from format version "
          + base.formatVersion() + " to " + v);
    }
    if (v > 3) {
      throw new IllegalArgumentException("Unsupported format-version " + v + " for table " + ops.tableName()
          + ": Floe supports format versions up to 3");
    }
    return v;
  }
}
