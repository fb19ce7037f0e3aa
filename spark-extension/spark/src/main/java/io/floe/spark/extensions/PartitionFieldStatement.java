package io.floe.spark.extensions;

import io.floe.format.sql.SqlSyntaxException;
import io.floe.format.sql.SqlTokens;
import io.floe.format.sql.TransformTerm;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The partition-field DDL Spark does not parse, and its rewrite into a procedure call:
 * <pre>
 * ALTER TABLE t ADD PARTITION FIELD transform [AS name]
 * ALTER TABLE t DROP PARTITION FIELD transform|name
 * ALTER TABLE t REPLACE PARTITION FIELD transform|name WITH transform [AS name]
 * </pre>
 * becomes {@code CALL cat.system.add_partition_field(table => 'ns.t', transform => '...', name => '...')}
 * (or drop_/replace_partition_field), which Spark parses and runs natively. Pure: no Spark here.
 */
public final class PartitionFieldStatement {
  /** The three statements, by their procedure. */
  public enum Action {
    ADD("add_partition_field"), DROP("drop_partition_field"), REPLACE("replace_partition_field");

    private final String procedure;

    Action(String procedure) {
      this.procedure = procedure;
    }

    public String procedure() {
      return procedure;
    }
  }

  private final Action action;
  private final List<String> table;
  private final TransformTerm field;
  private final TransformTerm transform;
  private final String name;

  private PartitionFieldStatement(Action action, List<String> table, TransformTerm field, TransformTerm transform,
      String name) {
    this.action = action;
    this.table = List.copyOf(table);
    this.field = field;
    this.transform = transform;
    this.name = name;
  }

  /**
   * The statement in {@code sql}, or null when {@code sql} is not partition-field DDL (Spark parses
   * it). A malformed partition-field statement is a {@link SqlSyntaxException} naming the statement.
   */
  public static PartitionFieldStatement parse(String sql) {
    String upper = sql.toUpperCase(Locale.ROOT);
    if (!upper.contains("PARTITION") || !upper.contains("FIELD") || !upper.contains("ALTER")) {
      return null;
    }
    AlterTablePrefix prefix = AlterTablePrefix.parse(sql);
    if (prefix == null) {
      return null;
    }
    SqlTokens tokens = prefix.tokens();
    List<String> table = prefix.table();
    Action action = actionAt(tokens);
    if (action == null) {
      return null;
    }
    String context = "ALTER TABLE ... " + action + " PARTITION FIELD";
    TransformTerm field = null;
    TransformTerm transform = null;
    String name = null;
    if (action == Action.ADD) {
      transform = TransformTerm.parse(tokens, context);
    } else {
      field = TransformTerm.parse(tokens, context);
    }
    if (action == Action.REPLACE) {
      if (!tokens.takeWord("WITH")) {
        throw tokens.unexpected("WITH", context);
      }
      transform = TransformTerm.parse(tokens, context);
    }
    if (action != Action.DROP && tokens.takeWord("AS")) {
      name = tokens.expectIdentifier("a partition field name", context);
    }
    if (!tokens.atEnd()) {
      throw tokens.unexpected(action == Action.DROP ? "end of statement" : "AS <name> or end of statement", context);
    }
    return new PartitionFieldStatement(action, table, field, transform, name);
  }

  private static Action actionAt(SqlTokens tokens) {
    for (Action a : Action.values()) {
      if (tokens.peek().isWord(a.name()) && tokens.peek(1).isWord("PARTITION") && tokens.peek(2).isWord("FIELD")) {
        tokens.take();
        tokens.take();
        tokens.take();
        return a;
      }
    }
    return null;
  }

  public Action action() {
    return action;
  }

  /** The table's name parts as written (catalog and namespace included when given). */
  public List<String> table() {
    return table;
  }

  /** The field dropped or replaced (null for ADD). */
  public TransformTerm field() {
    return field;
  }

  /** The transform added (null for DROP). */
  public TransformTerm transform() {
    return transform;
  }

  /** The new field's name from AS (null when not given). */
  public String name() {
    return name;
  }

  /**
   * The CALL statement doing this in catalog {@code catalog} on table {@code tableIdent} (namespace
   * and name, as the procedure resolves it in that catalog).
   */
  public String toCall(String catalog, List<String> tableIdent) {
    List<String> args = new ArrayList<>();
    if (field != null) {
      args.add("field => " + SqlTokens.literal(field.toSql()));
    }
    if (transform != null) {
      args.add("transform => " + SqlTokens.literal(transform.toSql()));
    }
    if (name != null) {
      args.add("name => " + SqlTokens.literal(name));
    }
    return AlterTablePrefix.toCall(catalog, action.procedure(), tableIdent, args);
  }
}
