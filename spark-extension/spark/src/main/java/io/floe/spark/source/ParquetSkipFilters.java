package io.floe.spark.source;

import io.floe.spark.util.SparkSchemas;
import java.util.HashMap;
import java.util.Map;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.apache.spark.sql.catalyst.util.QuotingUtils;
import org.apache.spark.sql.catalyst.util.RebaseDateTime;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFilters;
import org.apache.spark.sql.internal.LegacyBehaviorPolicy$;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.IsNotNull;
import org.apache.spark.sql.sources.IsNull;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.sources.Not;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.sources.StringStartsWith;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Option;

/**
 * The query's filters as a Parquet predicate for one data file, so that Parquet skips the row
 * groups (by statistics, dictionaries and bloom filters) and pages (by the column index) that hold
 * no matching row. Only for skipping: Spark still evaluates every filter on the rows read, so a
 * filter may be dropped (less skipping) but never narrowed.
 *
 * <p>The filters name the table's columns; the file may know a column by another name (renamed
 * since, or matched through the name mapping) or hold an unrelated column under a reused name. So
 * each filter is rewritten to the file's names first, through the field ids ({@code fileNames}),
 * and a filter on a column the file does not hold as a top-level column of that id is dropped
 * (within a negation, the whole negation). Spark's own {@link ParquetFilters} then turns the
 * rewritten filters into Parquet's, checking every value against the file's physical types.
 *
 * <p>Never used where row positions are counted (position deletes, {@code _pos}) or every row is
 * needed (row-level operations): skipped row groups would shift the positions.
 */
final class ParquetSkipFilters {
  /** Spark's default for {@code spark.sql.parquet.pushdown.inFilterThreshold}. */
  private static final int IN_FILTER_THRESHOLD = 10;

  private ParquetSkipFilters() {}

  /**
   * The Parquet predicate of {@code filters} for a file with schema {@code fileSchema}, whose columns
   * are requested as {@code requested} (table names, field ids in the metadata) and read as
   * {@code read} (the same columns under the names the file uses); null when none applies.
   */
  static FilterPredicate predicate(Filter[] filters, StructType requested, StructType read, MessageType fileSchema,
      boolean byId) {
    if (filters == null || filters.length == 0) {
      return null;
    }
    Map<String, String> names = fileNames(requested, read, fileSchema, byId);
    if (names.isEmpty()) {
      return null;
    }
    ParquetFilters convert = new ParquetFilters(fileSchema, true, true, true, true, IN_FILTER_THRESHOLD, true,
        new RebaseDateTime.RebaseSpec(LegacyBehaviorPolicy$.MODULE$.CORRECTED(), Option.empty()));
    FilterPredicate combined = null;
    for (Filter filter : filters) {
      Filter renamed = rename(filter, names, false);
      Option<FilterPredicate> converted = renamed == null ? Option.empty() : convert.createFilter(renamed);
      if (converted.isDefined()) {
        combined = combined == null ? converted.get() : FilterApi.and(combined, converted.get());
      }
    }
    return combined;
  }

  /**
   * Table column name to file column name, for top-level primitive columns the file holds under
   * their id; both quoted as Spark's V1 filters name them ({@code `a b`}, {@code `a.b`}), so that a
   * nested field's {@code a.b} never matches a top-level column named {@code a.b}.
   */
  static Map<String, String> fileNames(StructType requested, StructType read, MessageType fileSchema, boolean byId) {
    Map<String, Type> fileColumns = new HashMap<>();
    Map<Integer, Type> fileColumnsById = new HashMap<>();
    for (Type column : fileSchema.getFields()) {
      fileColumns.put(column.getName(), column);
      if (column.getId() != null) {
        fileColumnsById.putIfAbsent(column.getId().intValue(), column);
      }
    }
    Map<String, String> names = new HashMap<>();
    StructField[] fields = requested.fields();
    for (int i = 0; i < fields.length; i++) {
      StructField field = fields[i];
      if (!field.metadata().contains(SparkSchemas.FIELD_ID_KEY)) {
        continue; // a metadata column
      }
      Type column = byId
          ? fileColumnsById.get((int) field.metadata().getLong(SparkSchemas.FIELD_ID_KEY))
          : fileColumns.get(read.fields()[i].name());
      if (column != null && column.isPrimitive()) {
        // as Spark's V1 filters and ParquetFilters name columns: quoted when not a plain identifier
        names.put(QuotingUtils.quoteIfNeeded(field.name()), QuotingUtils.quoteIfNeeded(column.getName()));
      }
    }
    return names;
  }

  /**
   * {@code filter} on the file's column names; null when it cannot be rewritten. Outside a negation
   * an AND keeps the side it can rewrite (a weaker filter); inside one ({@code exact}) nothing may be
   * dropped.
   */
  static Filter rename(Filter filter, Map<String, String> names, boolean exact) {
    if (filter instanceof And and) {
      Filter left = rename(and.left(), names, exact);
      Filter right = rename(and.right(), names, exact);
      if (left != null && right != null) {
        return new And(left, right);
      }
      return exact ? null : left != null ? left : right;
    }
    if (filter instanceof Or or) {
      Filter left = rename(or.left(), names, exact);
      Filter right = rename(or.right(), names, exact);
      return left != null && right != null ? new Or(left, right) : null;
    }
    if (filter instanceof Not not) {
      Filter child = rename(not.child(), names, true);
      return child != null ? new Not(child) : null;
    }
    String[] refs = filter.references();
    if (refs.length != 1 || !names.containsKey(refs[0])) {
      return null;
    }
    String name = names.get(refs[0]);
    if (filter instanceof EqualTo f) {
      return new EqualTo(name, f.value());
    } else if (filter instanceof EqualNullSafe f) {
      return new EqualNullSafe(name, f.value());
    } else if (filter instanceof GreaterThan f) {
      return new GreaterThan(name, f.value());
    } else if (filter instanceof GreaterThanOrEqual f) {
      return new GreaterThanOrEqual(name, f.value());
    } else if (filter instanceof LessThan f) {
      return new LessThan(name, f.value());
    } else if (filter instanceof LessThanOrEqual f) {
      return new LessThanOrEqual(name, f.value());
    } else if (filter instanceof In f) {
      return new In(name, f.values());
    } else if (filter instanceof IsNull) {
      return new IsNull(name);
    } else if (filter instanceof IsNotNull) {
      return new IsNotNull(name);
    } else if (filter instanceof StringStartsWith f) {
      return new StringStartsWith(name, f.value());
    }
    return null;
  }
}
