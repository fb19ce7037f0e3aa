package io.floe.spark.index;

import io.floe.format.ErrorClass;
import io.floe.format.commit.TableOperations;
import io.floe.format.index.IndexColumns;
import io.floe.format.index.IndexException;
import io.floe.format.index.IndexList;
import io.floe.format.index.TableIndex;
import io.floe.format.types.Schema;
import io.floe.spark.util.SparkExceptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.IndexAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchIndexException;
import org.apache.spark.sql.connector.catalog.index.SupportsIndex;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;

/**
 * Spark's {@link SupportsIndex} calls on a Floe table, in Spark's terms: NamedReference columns,
 * {@code USING type} as {@link SupportsIndex#PROP_TYPE}, Spark's IndexAlreadyExists/NoSuchIndex
 * exceptions (which IF [NOT] EXISTS catch) and AnalysisExceptions for every other user error.
 */
public final class SparkIndexes {
  private final TableIndexes indexes;
  private final String tableName;
  private final TableOperations ops;

  private SparkIndexes(TableOperations ops, String tableName, String quotedName) {
    this.ops = ops;
    this.tableName = tableName;
    this.indexes = new TableIndexes(ops, tableName, quotedName);
  }

  /**
   * The indexes of the table Spark names {@code tableName} (catalog.db.t, for messages);
   * {@code quotedName} is the same name with each part quoted, for SQL.
   */
  public static SparkIndexes of(TableOperations ops, String tableName, String quotedName) {
    return new SparkIndexes(ops, tableName, quotedName);
  }

  public void create(String name, NamedReference[] columns, Map<NamedReference, Map<String, String>> columnProperties,
      Map<String, String> properties) throws IndexAlreadyExistsException {
    Map<String, String> options = new HashMap<>(properties);
    String type = options.remove(SupportsIndex.PROP_TYPE);
    try {
      if (columns.length != 1) {
        throw io.floe.format.index.IndexErrors.notOneColumn(tableName, name, columns.length);
      }
      if (exists(name)) {
        throw new IndexAlreadyExistsException(name, tableName, scala.Option.empty());
      }
      columnProperties.values().forEach(options::putAll);
      indexes.create(SparkSession.active(), name, Arrays.asList(columns[0].fieldNames()), type, options);
    } catch (IndexException e) {
      if (e.errorClass() == ErrorClass.FLOE_INDEX_ALREADY_EXISTS) {
        // another build of this name committed while this one ran: the same answer as the check above,
        // so that CREATE INDEX IF NOT EXISTS is a no-op however the race went
        throw new IndexAlreadyExistsException(name, tableName, scala.Option.apply(e));
      }
      throw SparkExceptions.thrown(e);
    }
  }

  public void drop(String name) throws NoSuchIndexException {
    try {
      if (!exists(name)) {
        throw new NoSuchIndexException(name, tableName, scala.Option.empty());
      }
      indexes.drop(name);
    } catch (IndexException e) {
      if (e.errorClass() == ErrorClass.FLOE_INDEX_NOT_FOUND) {
        // dropped by another statement since the check above: DROP INDEX IF EXISTS is then a no-op
        throw new NoSuchIndexException(name, tableName, scala.Option.apply(e));
      }
      throw SparkExceptions.thrown(e);
    }
  }

  public boolean exists(String name) {
    try {
      return indexes.exists(name);
    } catch (IndexException e) {
      throw SparkExceptions.thrown(e);
    }
  }

  public org.apache.spark.sql.connector.catalog.index.TableIndex[] list() {
    IndexList list;
    try {
      list = indexes.current();
    } catch (IndexException e) {
      throw SparkExceptions.thrown(e);
    }
    Schema schema = ops.current().schema();
    List<org.apache.spark.sql.connector.catalog.index.TableIndex> out = new ArrayList<>();
    for (TableIndex index : list.indexes()) {
      List<String> path = IndexColumns.path(schema, index.sourceFieldId());
      NamedReference[] columns = path == null ? new NamedReference[0]
          : new NamedReference[] {Expressions.column(TableIndexes.quote(path))};
      Properties props = new Properties();
      props.putAll(index.properties());
      out.add(new org.apache.spark.sql.connector.catalog.index.TableIndex(index.name(), index.type().typeName(),
          columns, Map.of(), props));
    }
    return out.toArray(new org.apache.spark.sql.connector.catalog.index.TableIndex[0]);
  }
}
