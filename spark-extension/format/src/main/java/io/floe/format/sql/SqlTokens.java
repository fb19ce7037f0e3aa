package io.floe.format.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small SQL tokenizer for the few statements Floe parses itself (partition-field DDL and
 * transform terms): words, {@code `quoted`} identifiers ({@code ``} escapes a backquote), integers,
 * string literals and single-character symbols; whitespace and comments are skipped. No Spark here,
 * so it is testable without a session.
 */
public final class SqlTokens {
  /** Token kinds. */
  public enum Kind { WORD, QUOTED, NUMBER, STRING, SYMBOL, END }

  /** One token: its kind, its value (unquoted for identifiers) and where it starts in the text. */
  public record Token(Kind kind, String text, int offset) {
    public boolean isWord(String keyword) {
      return kind == Kind.WORD && text.equalsIgnoreCase(keyword);
    }

    public boolean isSymbol(char c) {
      return kind == Kind.SYMBOL && text.equals(String.valueOf(c));
    }

    public boolean isIdentifier() {
      return kind == Kind.WORD || kind == Kind.QUOTED;
    }

    /** How the token reads in an error message. */
    public String describe() {
      switch (kind) {
        case END:
          return "end of input";
        case QUOTED:
          return quote(text);
        default:
          return "'" + text + "'";
      }
    }
  }

  private final String sql;
  private final List<Token> tokens;
  private int next = 0;

  private SqlTokens(String sql, List<Token> tokens) {
    this.sql = sql;
    this.tokens = tokens;
  }

  /** Tokenizes {@code sql}; an unterminated quote or comment is a {@link SqlSyntaxException}. */
  public static SqlTokens of(String sql) {
    List<Token> out = new ArrayList<>();
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char c = sql.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
        int eol = sql.indexOf('\n', i);
        i = eol < 0 ? n : eol + 1;
      } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
        int close = sql.indexOf("*/", i + 2);
        if (close < 0) {
          throw new SqlSyntaxException("Unclosed comment", i);
        }
        i = close + 2;
      } else if (c == '`') {
        i = quoted(sql, i, out);
      } else if (c == '\'' || c == '"') {
        i = string(sql, i, c, out);
      } else if (Character.isDigit(c) || (c == '-' && i + 1 < n && Character.isDigit(sql.charAt(i + 1)))) {
        int start = i;
        i++;
        while (i < n && Character.isDigit(sql.charAt(i))) {
          i++;
        }
        out.add(new Token(Kind.NUMBER, sql.substring(start, i), start));
      } else if (Character.isLetter(c) || c == '_') {
        int start = i;
        while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) {
          i++;
        }
        out.add(new Token(Kind.WORD, sql.substring(start, i), start));
      } else {
        out.add(new Token(Kind.SYMBOL, String.valueOf(c), i));
        i++;
      }
    }
    out.add(new Token(Kind.END, "", n));
    return new SqlTokens(sql, out);
  }

  private static int quoted(String sql, int start, List<Token> out) {
    StringBuilder value = new StringBuilder();
    int i = start + 1;
    while (true) {
      int close = sql.indexOf('`', i);
      if (close < 0) {
        throw new SqlSyntaxException("Unclosed quoted identifier", start);
      }
      value.append(sql, i, close);
      if (close + 1 < sql.length() && sql.charAt(close + 1) == '`') {
        value.append('`');
        i = close + 2;
      } else {
        out.add(new Token(Kind.QUOTED, value.toString(), start));
        return close + 1;
      }
    }
  }

  private static int string(String sql, int start, char quote, List<Token> out) {
    int i = start + 1;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      if (c == '\\') {
        i += 2;
      } else if (c == quote) {
        out.add(new Token(Kind.STRING, sql.substring(start + 1, i), start));
        return i + 1;
      } else {
        i++;
      }
    }
    throw new SqlSyntaxException("Unclosed string literal", start);
  }

  public String sql() {
    return sql;
  }

  public Token peek() {
    return tokens.get(next);
  }

  public Token peek(int ahead) {
    return tokens.get(Math.min(next + ahead, tokens.size() - 1));
  }

  public Token take() {
    Token t = tokens.get(next);
    if (t.kind() != Kind.END) {
      next++;
    }
    return t;
  }

  /** Takes the next token if it is {@code keyword}. */
  public boolean takeWord(String keyword) {
    if (peek().isWord(keyword)) {
      next++;
      return true;
    }
    return false;
  }

  /** Takes the next token if it is symbol {@code c}. */
  public boolean takeSymbol(char c) {
    if (peek().isSymbol(c)) {
      next++;
      return true;
    }
    return false;
  }

  public void expectSymbol(char c, String context) {
    if (!takeSymbol(c)) {
      throw unexpected("'" + c + "'", context);
    }
  }

  /** A plain or quoted identifier. */
  public String expectIdentifier(String what, String context) {
    if (!peek().isIdentifier()) {
      throw unexpected(what, context);
    }
    return take().text();
  }

  /** A dotted name {@code a.b.c}, each part plain or quoted. */
  public List<String> expectMultipartIdentifier(String what, String context) {
    List<String> parts = new ArrayList<>();
    parts.add(expectIdentifier(what, context));
    while (takeSymbol('.')) {
      parts.add(expectIdentifier(what, context));
    }
    return parts;
  }

  /** True when only semicolons remain. */
  public boolean atEnd() {
    int i = next;
    while (tokens.get(i).isSymbol(';')) {
      i++;
    }
    return tokens.get(i).kind() == Kind.END;
  }

  public SqlSyntaxException unexpected(String expected, String context) {
    Token t = peek();
    return new SqlSyntaxException("Expected " + expected + " but found " + t.describe() + " in " + context, t.offset());
  }

  /** Quotes an identifier part with backquotes, doubling any backquote inside. */
  public static String quote(String identifierPart) {
    return "`" + identifierPart.replace("`", "``") + "`";
  }

  /** A multipart name as SQL text, every part quoted: {@code `a`.`b c`}. */
  public static String quote(List<String> parts) {
    StringBuilder sb = new StringBuilder();
    for (String part : parts) {
      if (sb.length() > 0) {
        sb.append('.');
      }
      sb.append(quote(part));
    }
    return sb.toString();
  }

  /** A SQL string literal (backslash escapes, Spark's default) holding {@code value}. */
  public static String literal(String value) {
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  public static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }
}
