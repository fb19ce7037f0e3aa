package io.floe.spark.extensions;

import io.floe.format.sql.SqlSyntaxException;
import io.floe.format.sql.SqlTokens;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Iceberg's branch and tag DDL, which Spark does not parse, and its rewrite into a procedure call:
 * <pre>
 * ALTER TABLE t CREATE [OR REPLACE] BRANCH [IF NOT EXISTS] b [AS OF VERSION id]
 *     [RETAIN n DAYS|HOURS|MINUTES] [WITH SNAPSHOT RETENTION [n SNAPSHOTS] [n DAYS|HOURS|MINUTES]]
 * ALTER TABLE t REPLACE BRANCH b ...                  (same options)
 * ALTER TABLE t CREATE [OR REPLACE] TAG [IF NOT EXISTS] x [AS OF VERSION id] [RETAIN n DAYS|HOURS|MINUTES]
 * ALTER TABLE t REPLACE TAG x ...
 * ALTER TABLE t DROP BRANCH|TAG [IF EXISTS] name
 * </pre>
 * becomes {@code CALL cat.system.create_branch(...)} (create_tag, drop_branch, drop_tag). IF NOT
 * EXISTS goes with CREATE only, as in Iceberg's grammar. Pure: no Spark here.
 */
public final class RefStatement {
  private final List<String> table;
  private final String procedure;
  private final List<String> args;

  private RefStatement(List<String> table, String procedure, List<String> args) {
    this.table = List.copyOf(table);
    this.procedure = procedure;
    this.args = List.copyOf(args);
  }

  /** The statement in {@code sql}, or null when it is not branch or tag DDL; malformed DDL is a SqlSyntaxException. */
  public static RefStatement parse(String sql) {
    String upper = sql.toUpperCase(Locale.ROOT);
    if (!upper.contains("ALTER") || !(upper.contains("BRANCH") || upper.contains("TAG"))) {
      return null;
    }
    AlterTablePrefix prefix = AlterTablePrefix.parse(sql);
    if (prefix == null) {
      return null;
    }
    SqlTokens tokens = prefix.tokens();
    List<String> table = prefix.table();
    String kind = kindAfterVerb(tokens);
    if (kind == null) {
      return null;
    }
    List<String> args = new ArrayList<>();
    if (tokens.takeWord("DROP")) {
      tokens.take();
      String context = "ALTER TABLE ... DROP " + kind;
      boolean ifExists = tokens.peek().isWord("IF");
      if (ifExists) {
        tokens.take();
        expectWord(tokens, "EXISTS", context);
      }
      args.add("ref => " + SqlTokens.literal(tokens.expectIdentifier("a " + kind.toLowerCase(Locale.ROOT)
          + " name", context)));
      if (ifExists) {
        args.add("if_exists => true");
      }
      expectEnd(tokens, context);
      return new RefStatement(table, "drop_" + kind.toLowerCase(Locale.ROOT), args);
    }
    String mode;
    if (tokens.takeWord("REPLACE")) {
      mode = "replace";
    } else {
      tokens.take(); // CREATE
      mode = tokens.takeWord("OR") ? "create_or_replace" : "create";
      if (mode.equals("create_or_replace")) {
        tokens.take(); // REPLACE
      }
    }
    tokens.take(); // BRANCH or TAG
    String context = "ALTER TABLE ... " + mode.replace('_', ' ').toUpperCase(Locale.ROOT) + " " + kind;
    boolean ifNotExists = false;
    if (mode.equals("create") && tokens.peek().isWord("IF")) {
      tokens.take();
      expectWord(tokens, "NOT", context);
      expectWord(tokens, "EXISTS", context);
      ifNotExists = true;
    }
    args.add("ref => " + SqlTokens.literal(tokens.expectIdentifier("a " + kind.toLowerCase(Locale.ROOT) + " name",
        context)));
    args.add("mode => " + SqlTokens.literal(mode));
    if (ifNotExists) {
      args.add("if_not_exists => true");
    }
    if (tokens.takeWord("AS")) {
      expectWord(tokens, "OF", context);
      expectWord(tokens, "VERSION", context);
      args.add("snapshot_id => " + number(tokens, "a snapshot id", context));
    }
    if (tokens.takeWord("RETAIN")) {
      args.add("max_ref_age_ms => " + durationMs(tokens, context));
    }
    if (kind.equals("BRANCH") && tokens.takeWord("WITH")) {
      expectWord(tokens, "SNAPSHOT", context);
      expectWord(tokens, "RETENTION", context);
      boolean any = false;
      if (tokens.peek().kind() == SqlTokens.Kind.NUMBER && tokens.peek(1).isWord("SNAPSHOTS")) {
        args.add("min_snapshots_to_keep => " + number(tokens, "a number of snapshots", context));
        tokens.take();
        any = true;
      }
      if (tokens.peek().kind() == SqlTokens.Kind.NUMBER) {
        args.add("max_snapshot_age_ms => " + durationMs(tokens, context));
        any = true;
      }
      if (!any) {
        throw tokens.unexpected("<n> SNAPSHOTS and/or <n> DAYS|HOURS|MINUTES", context);
      }
    }
    expectEnd(tokens, context);
    return new RefStatement(table, "create_" + kind.toLowerCase(Locale.ROOT), args);
  }

  /**
   * BRANCH or TAG when the tokens at hand are {@code DROP|CREATE [OR REPLACE]|REPLACE BRANCH|TAG},
   * else null (not ours: e.g. {@code ALTER TABLE t DROP COLUMN tag}). Takes nothing.
   */
  private static String kindAfterVerb(SqlTokens tokens) {
    int at = 0;
    if (tokens.peek().isWord("CREATE")) {
      at = tokens.peek(1).isWord("OR") && tokens.peek(2).isWord("REPLACE") ? 3 : 1;
    } else if (tokens.peek().isWord("REPLACE") || tokens.peek().isWord("DROP")) {
      at = 1;
    } else {
      return null;
    }
    if (tokens.peek(at).isWord("BRANCH")) {
      return "BRANCH";
    }
    return tokens.peek(at).isWord("TAG") ? "TAG" : null;
  }

  private static void expectWord(SqlTokens tokens, String word, String context) {
    if (!tokens.takeWord(word)) {
      throw tokens.unexpected(word, context);
    }
  }

  private static void expectEnd(SqlTokens tokens, String context) {
    if (!tokens.atEnd()) {
      throw tokens.unexpected("end of statement", context);
    }
  }

  private static String number(SqlTokens tokens, String what, String context) {
    boolean negative = tokens.takeSymbol('-');
    if (tokens.peek().kind() != SqlTokens.Kind.NUMBER || !tokens.peek().text().matches("\\d+")) {
      throw tokens.unexpected(what, context);
    }
    String digits = tokens.take().text();
    try {
      return Long.toString(Long.parseLong((negative ? "-" : "") + digits));
    } catch (NumberFormatException e) {
      throw new SqlSyntaxException("Invalid " + what + " " + digits + " in " + context + ": out of range",
          tokens.peek().offset());
    }
  }

  /** {@code n DAYS|HOURS|MINUTES} in milliseconds. */
  private static String durationMs(SqlTokens tokens, String context) {
    long n = Long.parseLong(number(tokens, "a number", context));
    TimeUnit unit;
    if (tokens.takeWord("DAYS")) {
      unit = TimeUnit.DAYS;
    } else if (tokens.takeWord("HOURS")) {
      unit = TimeUnit.HOURS;
    } else if (tokens.takeWord("MINUTES")) {
      unit = TimeUnit.MINUTES;
    } else {
      throw tokens.unexpected("DAYS, HOURS or MINUTES", context);
    }
    return Long.toString(unit.toMillis(n));
  }

  /** The table's name parts as written. */
  public List<String> table() {
    return table;
  }

  /** The statement's procedure: create_branch, create_tag, drop_branch or drop_tag. */
  public String procedure() {
    return procedure;
  }

  /** The CALL statement doing this in {@code catalog} on {@code tableIdent} (namespace and name). */
  public String toCall(String catalog, List<String> tableIdent) {
    return AlterTablePrefix.toCall(catalog, procedure, tableIdent, args);
  }
}
