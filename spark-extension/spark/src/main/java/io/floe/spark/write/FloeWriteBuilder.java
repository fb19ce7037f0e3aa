package io.floe.spark.write;

import io.floe.format.ErrorClass;
import io.floe.format.SchemaErrors;
import io.floe.format.StreamingErrors;
import io.floe.format.expr.Expression;
import io.floe.format.expr.Expressions;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionField;
import io.floe.format.table.TableView;
import io.floe.spark.source.SparkFilters;
import io.floe.spark.util.SparkExceptions;
import java.util.HashSet;
import java.util.Set;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsDynamicOverwrite;
import org.apache.spark.sql.connector.write.SupportsOverwriteV2;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.internal.connector.SupportsStreamingUpdateAsAppend;

/**
 * INSERT INTO (append), INSERT OVERWRITE with a static partition or {@code overwrite(cond)} (files of
 * matching partitions are replaced), dynamic partition overwrite, and truncate. An overwrite
 * condition must only use identity-partition columns, so that it selects whole files. A streaming
 * query's micro-batches are appends, or truncates in complete mode; {@code update} mode is refused
 * with an error saying what to do (Spark asks a builder that is not a
 * {@code SupportsStreamingUpdateAsAppend} nothing and fails with a bare "does not support Update mode").
 */
public final class FloeWriteBuilder implements WriteBuilder, SupportsDynamicOverwrite, SupportsOverwriteV2,
    SupportsTruncate, SupportsStreamingUpdateAsAppend {
  private final FloeWriteTarget target;
  private final LogicalWriteInfo info;
  private FloeBatchWrite.Mode mode = FloeBatchWrite.Mode.APPEND;
  private Expression overwriteFilter = null;

  public FloeWriteBuilder(TableView table, LogicalWriteInfo info) {
    this(FloeWriteTarget.forTable(table), info);
  }

  FloeWriteBuilder(FloeWriteTarget target, LogicalWriteInfo info) {
    this.target = target;
    this.info = info;
  }

  @Override
  public WriteBuilder overwriteDynamicPartitions() {
    mode = FloeBatchWrite.Mode.OVERWRITE_DYNAMIC;
    return this;
  }

  @Override
  public WriteBuilder truncate() {
    mode = FloeBatchWrite.Mode.TRUNCATE;
    return this;
  }

  /** Always true: {@link #overwrite} explains a condition it cannot apply better than Spark's generic error. */
  @Override
  public boolean canOverwrite(Predicate[] predicates) {
    return true;
  }

  private void checkOverwriteCondition(Predicate p) {
    Set<String> identitySources = identityPartitionColumns(target.metadata());
    for (NamedReference ref : p.references()) {
      String column = String.join(".", ref.fieldNames());
      if (!identitySources.contains(column)) {
        throw SparkExceptions.thrown(SchemaErrors.overwriteNotOnIdentityPartition(target.name(), p.describe(), column,
            identitySources.stream().sorted().toList()));
      }
    }
  }

  private static Set<String> identityPartitionColumns(TableMetadata metadata) {
    Set<String> names = new HashSet<>();
    for (PartitionField f : metadata.spec().fields()) {
      if (f.transform().isIdentity()) {
        names.add(metadata.schema().findColumnName(f.sourceId()));
      }
    }
    return names;
  }

  @Override
  public WriteBuilder overwrite(Predicate[] predicates) {
    Expression filter = Expressions.alwaysTrue();
    boolean alwaysTrue = true;
    for (Predicate p : predicates) {
      checkOverwriteCondition(p);
      Expression converted = SparkFilters.convert(p);
      if (converted == null) {
        throw SparkExceptions.thrown(ErrorClass.FLOE_OVERWRITE_CONDITION_INVALID, "Cannot overwrite table "
            + target.name() + " by condition " + p + ": the condition cannot be converted to a partition filter");
      }
      filter = Expressions.and(filter, converted);
      alwaysTrue &= converted.equals(Expressions.alwaysTrue());
    }
    if (alwaysTrue) {
      mode = FloeBatchWrite.Mode.TRUNCATE;
    } else {
      mode = FloeBatchWrite.Mode.OVERWRITE_BY_FILTER;
      overwriteFilter = filter;
    }
    return this;
  }

  @Override
  public Write build() {
    if (mode == FloeBatchWrite.Mode.APPEND && StreamingOutputModes.isUpdate(info)) {
      throw SparkExceptions.thrown(StreamingErrors.updateModeUnsupported(target.name(), info.queryId()));
    }
    if (FileSetWrite.isRequested(info) && mode == FloeBatchWrite.Mode.APPEND) {
      WriteChecks.checkFormatVersion("rewrite", target.name(), target.metadata());
      return new FileSetWrite(target, info); // a rewrite_data_files file group: staged, not committed
    }
    WriteChecks.check(mode == FloeBatchWrite.Mode.APPEND ? "write to" : "overwrite", target.name(),
        target.metadata());
    return new FloeWrite(target, info, mode, overwriteFilter);
  }
}
