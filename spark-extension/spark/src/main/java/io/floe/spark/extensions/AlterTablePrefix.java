package io.floe.spark.extensions;

import io.floe.format.sql.SqlSyntaxException;
import io.floe.format.sql.SqlTokens;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The {@code ALTER TABLE a.b.c} that starts the DDL Floe parses itself: the statement's tokens, left
 * positioned after the table name, and the name's parts as written.
 */
record AlterTablePrefix(SqlTokens tokens, List<String> table) {
  /** The prefix of {@code sql}; null when it does not tokenize or does not start with ALTER TABLE and a name. */
  static AlterTablePrefix parse(String sql) {
    SqlTokens tokens;
    try {
      tokens = SqlTokens.of(sql);
    } catch (SqlSyntaxException e) {
      return null; // not ours to report: Spark's parser will
    }
    if (!tokens.takeWord("ALTER") || !tokens.takeWord("TABLE")) {
      return null;
    }
    List<String> table = new ArrayList<>();
    while (true) {
      if (!tokens.peek().isIdentifier()) {
        return null;
      }
      table.add(tokens.take().text());
      if (!tokens.takeSymbol('.')) {
        break;
      }
    }
    return new AlterTablePrefix(tokens, List.copyOf(table));
  }

  /**
   * {@code CALL catalog.system.procedure(table => 'ns.t', args...)}: the procedure call an ALTER TABLE
   * statement becomes, on {@code tableIdent} (namespace and name) in {@code catalog}.
   */
  static String toCall(String catalog, String procedure, List<String> tableIdent, List<String> args) {
    List<String> all = new ArrayList<>();
    all.add("table => " + SqlTokens.literal(tableIdent.stream().map(SqlTokens::quote).collect(Collectors.joining("."))));
    all.addAll(args);
    return "CALL " + SqlTokens.quote(catalog) + "." + SqlTokens.quote("system") + "." + procedure
        + "(" + String.join(", ", all) + ")";
  }
}
