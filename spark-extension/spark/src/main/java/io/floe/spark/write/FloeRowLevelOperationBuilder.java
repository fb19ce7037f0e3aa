package io.floe.spark.write;

import io.floe.format.ErrorClass;
import io.floe.format.OptionErrors;
import io.floe.format.commit.IsolationLevel;
import io.floe.format.table.TableView;
import io.floe.spark.util.SparkExceptions;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.connector.write.RowLevelOperation;
import org.apache.spark.sql.connector.write.RowLevelOperationBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;

/**
 * Chooses how a DELETE, UPDATE or MERGE changes the table, from its properties
 * {@code write.<command>.mode} ({@code copy-on-write}, the default, or {@code merge-on-read}) and
 * {@code write.<command>.isolation-level} ({@code serializable}, the default, or {@code snapshot}).
 */
public final class FloeRowLevelOperationBuilder implements RowLevelOperationBuilder {
  static final String COPY_ON_WRITE = "copy-on-write";
  static final String MERGE_ON_READ = "merge-on-read";

  private final TableView table;
  private final RowLevelOperationInfo info;

  public FloeRowLevelOperationBuilder(TableView table, RowLevelOperationInfo info) {
    this.table = table;
    this.info = info;
  }

  @Override
  public RowLevelOperation build() {
    if (table.isTimeTravel()) {
      throw SparkExceptions.thrown(ErrorClass.FLOE_UNSUPPORTED, "Cannot " + info.command() + " table "
          + table.name() + " at a past snapshot (time travel): run it on the table without VERSION AS OF / TIMESTAMP"
          + " AS OF");
    }
    Map<String, String> props = table.metadata().properties();
    String command = info.command().name().toLowerCase(Locale.ROOT);
    WriteChecks.check(command.equals("update") ? "UPDATE" : command.equals("merge") ? "MERGE INTO" : "DELETE FROM",
        table.name(), table.metadata());
    IsolationLevel isolation = IsolationLevel.fromProperties(props, "write." + command + ".isolation-level",
        table.name());
    return isMergeOnRead(props, "write." + command + ".mode")
        ? new PositionDeltaOperation(table, info.command(), isolation)
        : new CopyOnWriteOperation(table, info.command(), isolation);
  }

  private boolean isMergeOnRead(Map<String, String> props, String key) {
    String value = props.get(key);
    if (value == null) {
      return false;
    }
    switch (value.trim().toLowerCase(Locale.ROOT)) {
      case COPY_ON_WRITE:
        return false;
      case MERGE_ON_READ:
        return true;
      default:
        throw SparkExceptions.thrown(OptionErrors.invalidProperty(table.name(), key, "Invalid table property " + key
            + " of table " + table.name() + ": '" + value + "' (valid values: " + COPY_ON_WRITE + ", " + MERGE_ON_READ
            + ")"));
    }
  }
}
