package io.floe.format.sql;

import io.floe.format.partition.Transform;
import io.floe.format.partition.Transforms;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A partition transform as written in SQL: a column ({@code id}, {@code `my col`}), or
 * {@code bucket(16, id)}, {@code truncate(4, s)}, {@code identity(id)} and the time transforms in
 * Spark's spelling ({@code years|months|days|hours(ts)}) or Iceberg's ({@code year|month|day|hour}).
 * {@code bucket} and {@code truncate} also accept the column first, as Iceberg's SQL does.
 */
public final class TransformTerm {
  private static final String EXAMPLES = "a column, bucket(N, col), truncate(W, col), years(col), months(col), "
      + "days(col) or hours(col)";

  private final String function;
  private final Integer width;
  private final List<String> column;

  private TransformTerm(String function, Integer width, List<String> column) {
    this.function = function;
    this.width = width;
    this.column = List.copyOf(column);
  }

  /** Parses a whole text as one term (the {@code transform} argument of the procedures). */
  public static TransformTerm parse(String text) {
    SqlTokens tokens = SqlTokens.of(text);
    TransformTerm term = parse(tokens, "partition transform '" + text + "'");
    if (!tokens.atEnd()) {
      throw tokens.unexpected("end of the transform", "partition transform '" + text + "'");
    }
    return term;
  }

  /** Reads one term from {@code tokens}; {@code context} names the statement in errors. */
  public static TransformTerm parse(SqlTokens tokens, String context) {
    if (!tokens.peek().isIdentifier()) {
      throw tokens.unexpected(EXAMPLES, context);
    }
    if (tokens.peek().kind() == SqlTokens.Kind.WORD && tokens.peek(1).isSymbol('(')) {
      SqlTokens.Token name = tokens.take();
      tokens.take();
      TransformTerm term = function(tokens, SqlTokens.lower(name.text()), name, context);
      tokens.expectSymbol(')', context);
      return term;
    }
    return new TransformTerm(null, null, tokens.expectMultipartIdentifier("a column", context));
  }

  private static TransformTerm function(SqlTokens tokens, String name, SqlTokens.Token at, String context) {
    switch (name) {
      case "bucket":
      case "truncate":
        Integer width = null;
        List<String> column = null;
        for (int i = 0; i < 2; i++) {
          if (i == 1) {
            tokens.expectSymbol(',', context);
          }
          if (width == null && tokens.peek().kind() == SqlTokens.Kind.NUMBER) {
            width = integer(tokens.take(), context);
          } else if (column == null) {
            column = tokens.expectMultipartIdentifier(i == 0 ? "a number or a column" : "a column", context);
          } else {
            throw tokens.unexpected("a number", context);
          }
        }
        return new TransformTerm(name, width, column);
      case "identity":
      case "years":
      case "year":
      case "months":
      case "month":
      case "days":
      case "day":
      case "hours":
      case "hour":
      case "date_hour":
        return new TransformTerm(name, null, tokens.expectMultipartIdentifier("a column", context));
      default:
        throw new SqlSyntaxException("Unsupported partition transform '" + at.text() + "' in " + context
            + ": use " + EXAMPLES, at.offset());
    }
  }

  private static int integer(SqlTokens.Token token, String context) {
    try {
      return Integer.parseInt(token.text());
    } catch (NumberFormatException e) {
      throw new SqlSyntaxException("Number " + token.text() + " is too large in " + context, token.offset());
    }
  }

  /** True for a bare column reference, which may also name a partition field. */
  public boolean isColumnReference() {
    return function == null;
  }

  /** The source column's dotted name (unquoted). */
  public String columnName() {
    return String.join(".", column);
  }

  public List<String> columnParts() {
    return column;
  }

  /** The Floe transform; a non-positive bucket count or width is an IllegalArgumentException. */
  public Transform toTransform() {
    return function == null ? Transforms.identity() : transformFor(function, width);
  }

  /**
   * The Floe transform a SQL transform function names, with its width for bucket and truncate:
   * Spark's plural time names ({@code days}) and Iceberg's singular ones ({@code day}) become the
   * spec's, {@code date_hour} is {@code hour}; null for any other name. A non-positive width is an
   * IllegalArgumentException.
   */
  public static Transform transformFor(String function, Integer width) {
    switch (function) {
      case "identity":
        return Transforms.identity();
      case "bucket":
        return Transforms.bucket(width);
      case "truncate":
        return Transforms.truncate(width);
      case "years":
      case "year":
        return Transforms.fromString("year");
      case "months":
      case "month":
        return Transforms.fromString("month");
      case "days":
      case "day":
        return Transforms.fromString("day");
      case "hours":
      case "hour":
      case "date_hour":
        return Transforms.fromString("hour");
      default:
        return null;
    }
  }

  /** The term as SQL, with every column part quoted: {@code bucket(16, `id`)}. */
  public String toSql() {
    String col = column.stream().map(SqlTokens::quote).collect(Collectors.joining("."));
    if (function == null) {
      return col;
    }
    return width == null ? function + "(" + col + ")" : function + "(" + width + ", " + col + ")";
  }

  /** The term as users read it in messages: {@code bucket(16, id)}. */
  @Override
  public String toString() {
    String col = columnName();
    if (function == null) {
      return col;
    }
    return width == null ? function + "(" + col + ")" : function + "(" + width + ", " + col + ")";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TransformTerm && Objects.equals(function, ((TransformTerm) o).function)
        && Objects.equals(width, ((TransformTerm) o).width) && column.equals(((TransformTerm) o).column);
  }

  @Override
  public int hashCode() {
    return Objects.hash(function, width, column);
  }
}
