package io.floe.spark.extensions;

import io.floe.format.sql.SqlSyntaxException;
import io.floe.spark.FloeCatalog;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.parser.ParameterContext;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.trees.Origin;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.collection.immutable.Seq;

/**
 * Spark's parser plus the partition-field DDL it lacks. {@code ALTER TABLE t ADD|DROP|REPLACE
 * PARTITION FIELD ...} is rewritten into a {@code CALL <catalog>.system.*_partition_field(...)}
 * statement that Spark's own parser then parses, so the work happens in Floe's procedures and the
 * same procedures can be called directly; Iceberg's {@code ALTER TABLE ... CREATE|REPLACE|DROP BRANCH|TAG}
 * is rewritten the same way ({@link RefStatement}). {@code ANALYZE TABLE} of a Floe table, which Spark parses
 * and then refuses for v2 tables, becomes a call of {@code compute_table_stats} ({@link AnalyzeStatement}).
 * Everything else goes to Spark's parser unchanged.
 */
public final class FloeSqlParser implements ParserInterface {
  private static final Pattern NEAR_TOKEN = Pattern.compile("`(?:[^`]|``)*`|\\w+|\\S");

  private final SparkSession spark;
  private final ParserInterface delegate;

  public FloeSqlParser(SparkSession spark, ParserInterface delegate) {
    this.spark = spark;
    this.delegate = delegate;
  }

  @Override
  public LogicalPlan parsePlan(String sql) throws ParseException {
    RefStatement ref = refStatement(sql);
    if (ref != null) {
      return refPlan(sql, ref);
    }
    PartitionFieldStatement statement = statement(sql);
    return statement == null ? analyzePlan(sql, delegate.parsePlan(sql)) : partitionFieldPlan(sql, statement);
  }

  @Override
  public LogicalPlan parsePlanWithParameters(String sql, ParameterContext context) throws ParseException {
    RefStatement ref = refStatement(sql);
    if (ref != null) {
      return refPlan(sql, ref);
    }
    PartitionFieldStatement statement = statement(sql);
    return statement == null ? analyzePlan(sql, delegate.parsePlanWithParameters(sql, context))
        : partitionFieldPlan(sql, statement);
  }

  /** ANALYZE TABLE of a Floe table as the CALL of compute_table_stats; any other plan unchanged. */
  private LogicalPlan analyzePlan(String sql, LogicalPlan plan) throws ParseException {
    AnalyzeStatement analyze;
    try {
      analyze = AnalyzeStatement.of(plan, spark);
    } catch (AnalyzeStatement.Unsupported e) {
      throw syntaxError(sql, 0, e.getMessage());
    }
    return analyze == null ? plan : delegate.parsePlan(analyze.toCall());
  }

  private static PartitionFieldStatement statement(String sql) throws ParseException {
    try {
      return PartitionFieldStatement.parse(sql);
    } catch (SqlSyntaxException e) {
      throw syntaxError(sql, e.offset(), e.getMessage());
    }
  }

  private static RefStatement refStatement(String sql) throws ParseException {
    try {
      return RefStatement.parse(sql);
    } catch (SqlSyntaxException e) {
      throw syntaxError(sql, e.offset(), e.getMessage());
    }
  }

  /** The CALL plan for branch and tag DDL ({@link RefStatement}), resolving the table as below. */
  private LogicalPlan refPlan(String sql, RefStatement statement) throws ParseException {
    List<String> parts = new ArrayList<>(statement.table());
    String catalog = floeCatalog(parts);
    if (catalog != null) {
      return delegate.parsePlan(statement.toCall(catalog, parts));
    }
    try {
      return delegate.parsePlan(sql);
    } catch (ParseException e) {
      throw syntaxError(sql, 0, "ALTER TABLE ... BRANCH / TAG works on tables of a Floe catalog, and table "
          + String.join(".", statement.table()) + " is not in one");
    }
  }

  /**
   * The Floe catalog of the table named {@code parts}, which becomes its namespace and name; null
   * when its catalog is not a Floe catalog.
   */
  private String floeCatalog(List<String> parts) {
    CatalogManager catalogs = spark.sessionState().catalogManager();
    String catalog = parts.size() > 1 && catalogs.isCatalogRegistered(parts.get(0))
        ? parts.remove(0) : catalogs.currentCatalog().name();
    if (parts.size() == 1) {
      parts.addAll(0, Arrays.asList(catalogs.currentNamespace()));
    }
    return catalogs.catalog(catalog) instanceof FloeCatalog ? catalog : null;
  }

  /**
   * The CALL plan for partition-field DDL on a Floe table. The table's catalog is resolved as Spark
   * does: a first part naming a registered catalog is that catalog, otherwise the current catalog,
   * and a bare name is in the current namespace. A table of another catalog is left to the parser
   * underneath (Iceberg's extensions, say); if that cannot parse it either, the error says why.
   */
  private LogicalPlan partitionFieldPlan(String sql, PartitionFieldStatement statement) throws ParseException {
    CatalogManager catalogs = spark.sessionState().catalogManager();
    List<String> parts = new ArrayList<>(statement.table());
    String catalog = parts.size() > 1 && catalogs.isCatalogRegistered(parts.get(0))
        ? parts.remove(0) : catalogs.currentCatalog().name();
    if (parts.size() == 1) {
      List<String> qualified = new ArrayList<>(Arrays.asList(catalogs.currentNamespace()));
      qualified.addAll(parts);
      parts = qualified;
    }
    if (catalogs.catalog(catalog) instanceof FloeCatalog) {
      return delegate.parsePlan(statement.toCall(catalog, parts));
    }
    try {
      return delegate.parsePlan(sql);
    } catch (ParseException e) {
      throw syntaxError(sql, 0, "ALTER TABLE ... " + statement.action() + " PARTITION FIELD works on tables of a "
          + "Floe catalog, and catalog " + catalog + " is not one (table " + String.join(".", statement.table()) + ")");
    }
  }

  /** A ParseException pointing at the offending token, with the statement in its message. */
  private static ParseException syntaxError(String sql, int at, String message) {
    int offset = Math.min(Math.max(at, 0), sql.length());
    String before = sql.substring(0, offset);
    int line = (int) before.chars().filter(c -> c == '\n').count() + 1;
    int column = offset - (before.lastIndexOf('\n') + 1);
    Matcher near = NEAR_TOKEN.matcher(sql.substring(offset));
    String token = near.lookingAt() ? "'" + near.group() + "'" : "end of input";
    Origin origin = Origin.apply(Option.apply(line), Option.apply(column), Origin.apply$default$3(),
        Origin.apply$default$4(), Origin.apply$default$5(), Origin.apply$default$6(), Origin.apply$default$7(),
        Origin.apply$default$8(), Origin.apply$default$9(), Origin.apply$default$10());
    scala.collection.immutable.Map<String, String> params =
        new scala.collection.immutable.Map.Map2<>("error", token, "hint", ": " + message);
    return new ParseException(Option.apply(sql), origin, "PARSE_SYNTAX_ERROR", params);
  }

  @Override
  public Expression parseExpression(String sqlText) throws ParseException {
    return delegate.parseExpression(sqlText);
  }

  @Override
  public TableIdentifier parseTableIdentifier(String sqlText) throws ParseException {
    return delegate.parseTableIdentifier(sqlText);
  }

  @Override
  public FunctionIdentifier parseFunctionIdentifier(String sqlText) throws ParseException {
    return delegate.parseFunctionIdentifier(sqlText);
  }

  @Override
  public Seq<String> parseMultipartIdentifier(String sqlText) throws ParseException {
    return delegate.parseMultipartIdentifier(sqlText);
  }

  @Override
  public LogicalPlan parseQuery(String sqlText) throws ParseException {
    return delegate.parseQuery(sqlText);
  }

  @Override
  public StructType parseRoutineParam(String sqlText) throws ParseException {
    return delegate.parseRoutineParam(sqlText);
  }

  @Override
  public StructType parseTableSchema(String sqlText) throws ParseException {
    return delegate.parseTableSchema(sqlText);
  }

  @Override
  public DataType parseDataType(String sqlText) throws ParseException {
    return delegate.parseDataType(sqlText);
  }
}
