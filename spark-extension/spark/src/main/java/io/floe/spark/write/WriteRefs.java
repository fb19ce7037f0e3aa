package io.floe.spark.write;

import io.floe.format.ErrorClass;
import io.floe.format.OptionErrors;
import io.floe.format.SnapshotErrors;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableProperties;
import io.floe.format.table.TableView;
import io.floe.spark.util.SparkExceptions;
import org.apache.spark.sql.SparkSession;

/**
 * Where a write commits and which branch a read sees, as Iceberg's Spark runtime decides it: the
 * branch of a {@code t.branch_b} identifier, the {@code branch} write option, and write-audit-publish.
 * With the table property {@code write.wap.enabled=true}, a session's {@code spark.wap.branch} sends
 * writes to that branch (creating it from main) and reads to it once it exists, and a session's
 * {@code spark.wap.id} stages writes: they add a snapshot with {@code wap.id} in its summary that no
 * branch points at, for {@code cherrypick_snapshot} to publish. Without the property both settings
 * are ignored, as in Iceberg. A tag never takes writes.
 */
public final class WriteRefs {
  public static final String WAP_ID = "spark.wap.id";
  public static final String WAP_BRANCH = "spark.wap.branch";
  public static final String BRANCH_OPTION = "branch";

  private WriteRefs() {}

  /**
   * The view writes to {@code view} commit through: on the branch named by the identifier, the
   * {@code optionBranch} write option or {@code spark.wap.branch}, or staged with {@code spark.wap.id}.
   * {@code tag} is the tag the table was loaded as ({@code t.tag_x}), or null.
   */
  public static TableView forWrite(TableView view, String tag, String optionBranch) {
    String table = view.name();
    if (tag != null) {
      throw SparkExceptions.thrown(SnapshotErrors.writeToTag(table, tag));
    }
    if (view.isTimeTravel()) {
      throw SparkExceptions.thrown(ErrorClass.FLOE_UNSUPPORTED, "Cannot write to table " + table
          + " at a past snapshot (time travel): write to the table without VERSION AS OF / TIMESTAMP AS OF");
    }
    String branch = view.branch();
    if (optionBranch != null && !optionBranch.isBlank()) {
      if (branch != null && !branch.equals(optionBranch)) {
        throw SparkExceptions.thrown(OptionErrors.invalidOption(BRANCH_OPTION, optionBranch, "Cannot write to table "
            + table + ": the table identifier names branch '" + branch + "' and the write option branch names '"
            + optionBranch + "'; give one of them"));
      }
      branch = optionBranch;
    }
    TableView target = view;
    if (TableProperties.booleanValue(view.metadata().properties(), TableProperties.WRITE_AUDIT_PUBLISH_ENABLED)) {
      String wapId = setting(WAP_ID);
      String wapBranch = setting(WAP_BRANCH);
      if (wapId != null && wapBranch != null) {
        throw SparkExceptions.thrown(OptionErrors.invalidOption(WAP_ID, wapId, "Cannot write to table " + table
            + ": the session sets both " + WAP_ID + "=" + wapId + " and " + WAP_BRANCH + "=" + wapBranch
            + "; unset one of them (RESET " + WAP_ID + ")"));
      }
      if (wapBranch != null) {
        if (branch != null && !branch.equals(wapBranch)) {
          throw SparkExceptions.thrown(OptionErrors.invalidOption(WAP_BRANCH, wapBranch, "Cannot write to branch '"
              + branch + "' of table " + table + ": the session's " + WAP_BRANCH + " is '" + wapBranch
              + "'; write without naming a branch, or RESET " + WAP_BRANCH));
        }
        branch = wapBranch;
      } else if (wapId != null) {
        if (branch != null) {
          throw SparkExceptions.thrown(OptionErrors.invalidOption(WAP_ID, wapId, "Cannot write to branch '" + branch
              + "' of table " + table + " with " + WAP_ID + "=" + wapId + ": a staged write goes to no branch; "
              + "write without naming a branch, or RESET " + WAP_ID));
        }
        target = target.stagedWithWapId(wapId);
      }
    }
    if (branch != null) {
      SnapshotRef ref = view.metadata().ref(branch);
      if (ref != null && ref.isTag()) {
        throw SparkExceptions.thrown(SnapshotErrors.writeToTag(table, branch));
      }
    }
    return target.onBranch(branch);
  }

  /**
   * The branch reads of a table with no branch of its own see under write-audit-publish: the
   * session's {@code spark.wap.branch} when the table has {@code write.wap.enabled=true} and the
   * branch exists; null (main) otherwise.
   */
  public static String wapReadBranch(TableMetadata metadata) {
    if (!TableProperties.booleanValue(metadata.properties(), TableProperties.WRITE_AUDIT_PUBLISH_ENABLED)) {
      return null;
    }
    String wapBranch = setting(WAP_BRANCH);
    SnapshotRef ref = wapBranch == null ? null : metadata.ref(wapBranch);
    return ref != null && ref.isBranch() ? wapBranch : null;
  }

  private static String setting(String key) {
    SparkSession spark = SparkSession.getActiveSession().isDefined() ? SparkSession.active() : null;
    String value = spark == null ? null : spark.conf().get(key, null);
    return value == null || value.isBlank() ? null : value.trim();
  }
}
