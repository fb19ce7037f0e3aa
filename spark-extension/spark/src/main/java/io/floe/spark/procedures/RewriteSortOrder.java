package io.floe.spark.procedures;

import io.floe.format.ErrorClass;
import io.floe.format.FloeException;
import io.floe.format.SchemaErrors;
import io.floe.format.metadata.NullOrder;
import io.floe.format.metadata.SortDirection;
import io.floe.format.metadata.SortField;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.sql.SqlTokens;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute$;
import org.apache.spark.sql.functions;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The sort of the {@code sort} strategy as Spark columns: the {@code sort_order} argument
 * ({@code 'id DESC NULLS LAST, name'}: columns, each optionally ASC or DESC and NULLS FIRST or
 * NULLS LAST; ASC sorts nulls first and DESC last by default), or else the table's sort order.
 * Every column of {@code sort_order} must exist in the table before any file is read; {@code zorder(...)}
 * and transforms are refused as unsupported.
 */
final class RewriteSortOrder {
  private RewriteSortOrder() {}

  private static final Pattern ZORDER = Pattern.compile("(?i)^\\s*zorder\\s*\\(.*");

  /** The columns of {@code text}, each checked against {@code schema}. */
  static List<Column> parse(String text, Schema schema, String describe) {
    if (ZORDER.matcher(text).matches()) {
      throw SchemaErrors.invalidSortOrder(null, describe + ": sort_order '" + text.trim() + "' asks for a z-order, "
          + "which Floe does not support; sort by columns instead, e.g. sort_order => 'a, b'");
    }
    List<Column> out = new ArrayList<>();
    for (String item : splitTopLevel(text, describe)) {
      List<String> words = words(item.trim(), describe);
      if (!words.isEmpty() && words.get(0).indexOf('(') >= 0 && !words.get(0).startsWith("`")) {
        throw SchemaErrors.invalidSortOrder(null, describe + ": invalid sort_order term '" + item.trim()
            + "': sorting by a transform or expression is not supported; name table columns");
      }
      if (words.isEmpty() || words.size() > 4) {
        throw SchemaErrors.invalidSortOrder(null, describe + ": invalid sort_order term '" + item.trim()
            + "' (expected: column [ASC|DESC] [NULLS FIRST|NULLS LAST])");
      }
      boolean desc = false;
      Boolean nullsFirst = null;
      int i = 1;
      if (i < words.size() && List.of("ASC", "DESC").contains(words.get(i).toUpperCase(Locale.ROOT))) {
        desc = words.get(i).equalsIgnoreCase("DESC");
        i++;
      }
      int remaining = words.size() - i;
      if (remaining == 2 && words.get(i).equalsIgnoreCase("NULLS")
          && List.of("FIRST", "LAST").contains(words.get(i + 1).toUpperCase(Locale.ROOT))) {
        nullsFirst = words.get(i + 1).equalsIgnoreCase("FIRST");
      } else if (remaining != 0) {
        throw SchemaErrors.invalidSortOrder(null, describe + ": invalid sort_order term '" + item.trim()
            + "' (expected: column [ASC|DESC] [NULLS FIRST|NULLS LAST])");
      }
      checkColumn(schema, words.get(0), describe);
      out.add(column(words.get(0), desc, nullsFirst == null ? !desc : nullsFirst));
    }
    return out;
  }

  /** Resolves {@code name} ({@code a}, {@code a.b}, {@code `a.b`}) as Spark would, ignoring case. */
  private static void checkColumn(Schema schema, String name, String describe) {
    List<String> parts;
    try {
      parts = CollectionConverters.asJava(UnresolvedAttribute$.MODULE$.parseAttributeName(name));
    } catch (RuntimeException e) {
      throw FloeException.reworded(e, ErrorClass.FLOE_SORT_ORDER_INVALID,
          describe + ": invalid column name '" + name + "' in sort_order");
    }
    Types.StructType struct = schema.asStruct();
    for (int i = 0; i < parts.size(); i++) {
      Types.NestedField found = null;
      for (Types.NestedField f : struct.fields()) {
        if (f.name().equalsIgnoreCase(parts.get(i))) {
          found = f;
          break;
        }
      }
      boolean last = i == parts.size() - 1;
      if (found == null || (!last && found.type().typeId() != Type.TypeID.STRUCT)) {
        throw SchemaErrors.columnNotFound(name, describe + ": sort_order column " + name + " does not exist; the "
            + "table's columns are " + schema.columns().stream().map(Types.NestedField::name)
                .collect(Collectors.joining(", ")));
      }
      if (!last) {
        struct = found.type().asStructType();
      }
    }
  }

  /** The table's sort order; identity fields only (other transforms need an explicit sort_order). */
  static List<Column> of(TableMetadata metadata, String describe) {
    if (metadata.sortOrder() == null || metadata.sortOrder().isUnsorted()) {
      throw SchemaErrors.invalidSortOrder(null, describe + ": strategy 'sort' needs a sort order: pass sort_order => "
          + "'col [ASC|DESC] [NULLS FIRST|LAST], ...' or set one with ALTER TABLE ... WRITE ORDERED BY");
    }
    List<Column> out = new ArrayList<>();
    for (SortField f : metadata.sortOrder().fields()) {
      List<String> path = metadata.schema().findColumnPath(f.sourceId());
      if (path == null || !f.transform().isIdentity()) {
        throw SchemaErrors.invalidSortOrder(null, describe + ": the table's sort order field " + f + " is not a plain "
            + "column; pass sort_order explicitly");
      }
      out.add(column(SqlTokens.quote(path), f.direction() == SortDirection.DESC,
          f.nullOrder() == NullOrder.NULLS_FIRST));
    }
    return out;
  }

  private static Column column(String name, boolean desc, boolean nullsFirst) {
    Column c = functions.col(name);
    if (desc) {
      return nullsFirst ? c.desc_nulls_first() : c.desc_nulls_last();
    }
    return nullsFirst ? c.asc_nulls_first() : c.asc_nulls_last();
  }

  /** Splits on commas outside backquotes. */
  private static List<String> splitTopLevel(String text, String describe) {
    List<String> parts = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    boolean quoted = false;
    for (char c : text.toCharArray()) {
      if (c == '`') {
        quoted = !quoted;
      }
      if (c == ',' && !quoted) {
        parts.add(current.toString());
        current.setLength(0);
      } else {
        current.append(c);
      }
    }
    if (quoted) {
      throw SchemaErrors.invalidSortOrder(null, describe + ": unclosed backquote in sort_order '" + text + "'");
    }
    parts.add(current.toString());
    return parts;
  }

  /** Whitespace-separated words; a backquoted name (with {@code ``} for a backquote) is one word. */
  private static List<String> words(String item, String describe) {
    List<String> words = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    boolean quoted = false;
    for (char c : item.toCharArray()) {
      if (c == '`') {
        quoted = !quoted;
        current.append(c);
      } else if (Character.isWhitespace(c) && !quoted) {
        if (current.length() > 0) {
          words.add(current.toString());
          current.setLength(0);
        }
      } else {
        current.append(c);
      }
    }
    if (current.length() > 0) {
      words.add(current.toString());
    }
    return words;
  }
}
