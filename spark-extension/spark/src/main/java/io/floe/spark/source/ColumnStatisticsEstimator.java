package io.floe.spark.source;

import io.floe.format.commit.ManageSnapshots;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.scan.FileScanTask;
import io.floe.format.table.TableView;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import io.floe.spark.util.SparkSchemas;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.expressions.FieldReference;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.colstats.ColumnStatistics;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The statistics a scan reports to Spark's optimizer (and to {@code DESCRIBE EXTENDED t col}):
 * row count and size of the planned files, and per top-level column of primitive type:
 * <ul>
 *   <li>distinct count: from the theta sketches of the statistics file of the scanned snapshot,
 *       else of its newest ancestor that has one, adjusted for the rows added since (see
 *       {@link #staleNdv}), at most the column's non-null rows in the scan;</li>
 *   <li>min/max: from the planned files' lower/upper bounds, for the types Spark's own ANALYZE gives
 *       min/max (numbers, boolean, date, timestamp), only when every file that holds a non-null
 *       value has both bounds (and, for float/double, counts no NaN);</li>
 *   <li>null count: the sum of the files' null value counts, when every file has one;</li>
 *   <li>average/max length: the type's size for fixed-width types (as Spark's ANALYZE); for string
 *       and binary columns the stored bytes per non-null value from the files' column sizes (no max,
 *       which the manifests do not give).</li>
 * </ul>
 * The size is that of the planned files scaled by the share of a row the scan reads (Spark's
 * default size per type, as Spark scales a plain Parquet relation under a projection), so that
 * the optimizer sees a narrow read of a wide table as small as Spark's Parquet source would, and
 * makes the same broadcast choices on the same files.
 * Only manifests already read for the scan and (cached) Puffin footers are read.
 */
final class ColumnStatisticsEstimator {
  private ColumnStatisticsEstimator() {
  }

  static Statistics estimate(TableView table, StructType requested, List<FileScanTask> tasks) {
    long rows = 0;
    long bytes = 0;
    for (FileScanTask task : tasks) {
      rows += task.file().recordCount();
      bytes += task.file().fileSizeInBytes();
    }
    Schema schema = table.readSchema();
    Map<Integer, Long> ndvs = tasks.isEmpty() ? Map.of() : distinctCounts(table);
    Map<NamedReference, ColumnStatistics> columns = new LinkedHashMap<>();
    for (StructField requestedField : requested.fields()) {
      Types.NestedField field = schema.asStruct().field(requestedField.name());
      if (field == null || !field.type().isPrimitiveType() || tasks.isEmpty()) {
        continue; // metadata columns, nested types, empty scans
      }
      columns.put(FieldReference.column(field.name()), column(field, tasks, rows, ndvs.get(field.fieldId())));
    }
    return new FloeStatistics(Math.max(1, projectedBytes(bytes, schema, requested)), rows, columns);
  }

  /**
   * {@code bytes} of whole rows of {@code schema} scaled to the columns in {@code requested}: by
   * Spark's size per row (8 bytes of row overhead plus each column type's default size), the
   * ratio Spark applies to a file source's size under a projection.
   */
  static long projectedBytes(long bytes, Schema schema, StructType requested) {
    long full = 8;
    for (Types.NestedField field : schema.asStruct().fields()) {
      full += SparkSchemas.convert(field.type()).defaultSize();
    }
    long read = 8;
    for (StructField field : requested.fields()) {
      read += field.dataType().defaultSize();
    }
    if (read >= full) {
      return bytes;
    }
    return java.math.BigInteger.valueOf(bytes).multiply(java.math.BigInteger.valueOf(read))
        .divide(java.math.BigInteger.valueOf(full)).longValueExact();
  }

  private static ColumnStatistics column(Types.NestedField field, List<FileScanTask> tasks, long rows, Long ndv) {
    int id = field.fieldId();
    Type type = field.type();
    Long nulls = sum(tasks, id, Metric.NULLS);
    Long distinct = ndv;
    if (distinct != null) {
      long nonNull = nulls == null ? rows : Math.max(0, rows - nulls);
      distinct = Math.min(distinct, nonNull);
    }
    Object[] range = MinMax.of(type, tasks, id);
    Long avgLen = null;
    Long maxLen = null;
    switch (type.typeId()) {
      case STRING:
      case BINARY: {
        Long sizes = sum(tasks, id, Metric.SIZES);
        Long values = sum(tasks, id, Metric.VALUES);
        if (sizes != null && values != null) {
          long nonNull = Math.max(0, values - (nulls == null ? 0 : nulls));
          avgLen = nonNull == 0 ? 0 : (sizes + nonNull - 1) / nonNull;
        }
        break;
      }
      case UUID:
        avgLen = 36L; // read as its 36-character string
        maxLen = 36L;
        break;
      case FIXED:
        avgLen = (long) ((Types.FixedType) type).length();
        maxLen = avgLen;
        break;
      default:
        avgLen = (long) SparkSchemas.convert(type).defaultSize();
        maxLen = avgLen;
    }
    return new FloeStatistics.Column(distinct, range == null ? null : range[0], range == null ? null : range[1],
        nulls, avgLen, maxLen);
  }

  enum Metric { NULLS, VALUES, SIZES }

  /** The sum of one per-file metric of field {@code id}, or null when some file lacks it. */
  private static Long sum(List<FileScanTask> tasks, int id, Metric metric) {
    long total = 0;
    for (FileScanTask task : tasks) {
      Map<Integer, Long> values = switch (metric) {
        case NULLS -> task.file().nullValueCounts();
        case VALUES -> task.file().valueCounts();
        case SIZES -> task.file().columnSizes();
      };
      Long value = values == null ? null : values.get(id);
      if (value == null) {
        return null;
      }
      total += value;
    }
    return total;
  }

  /**
   * The distinct counts by field id for the scanned snapshot, from the statistics file of the
   * snapshot or else of its newest ancestor that has one; a file that cannot be read is skipped
   * (with a warning) for the next older one.
   */
  private static Map<Integer, Long> distinctCounts(TableView table) {
    TableMetadata metadata = table.metadata();
    Snapshot current = table.snapshot();
    if (current == null || metadata.statisticsFiles().isEmpty()) {
      return Map.of();
    }
    Map<Long, StatisticsFile> bySnapshot = new HashMap<>();
    for (StatisticsFile file : metadata.statisticsFiles()) {
      bySnapshot.put(file.snapshotId(), file);
    }
    for (Snapshot ancestor : ManageSnapshots.ancestors(metadata, current.snapshotId())) {
      StatisticsFile file = bySnapshot.get(ancestor.snapshotId());
      Map<Integer, StatisticsFileNdvs.Ndv> ndvs =
          file == null ? null : StatisticsFileNdvs.read(table.ops().io(), file, table.name());
      if (ndvs == null) {
        continue; // none for this snapshot, or unreadable (warned)
      }
      Map<Integer, Long> result = new HashMap<>();
      for (Map.Entry<Integer, StatisticsFileNdvs.Ndv> e : ndvs.entrySet()) {
        Snapshot source = metadata.snapshot(e.getValue().snapshotId());
        result.put(e.getKey(), staleNdv(e.getValue().value(), source == null ? ancestor : source, current));
      }
      return result;
    }
    return Map.of();
  }

  /**
   * The distinct count of a column at {@code current} given {@code ndv} computed at the ancestor
   * {@code source}. Unchanged when they are the same snapshot, or when the table did not grow (rows
   * removed may or may not remove values). When rows were added, the new rows are assumed to bring
   * new values at the rate the analyzed rows did: {@code ndv * rows(current) / rows(source)}, from
   * the snapshots' {@code total-records}. This lies between the lower bound ({@code ndv}: appends
   * remove no value) and the upper bound ({@code ndv + rows added}); the caller caps it at the
   * scan's non-null rows.
   */
  static long staleNdv(long ndv, Snapshot source, Snapshot current) {
    if (source.snapshotId() == current.snapshotId()) {
      return ndv;
    }
    Long before = totalRecords(source);
    Long now = totalRecords(current);
    if (before == null || now == null || before <= 0 || now <= before) {
      return ndv;
    }
    double scaled = Math.ceil((double) ndv * now / before);
    return scaled >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) scaled;
  }

  private static Long totalRecords(Snapshot snapshot) {
    String value = snapshot.summary() == null ? null : snapshot.summary().get("total-records");
    try {
      return value == null ? null : Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
