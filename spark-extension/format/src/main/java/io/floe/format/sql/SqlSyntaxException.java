package io.floe.format.sql;

/** A statement or transform Floe parses itself is malformed; {@link #offset()} is where, in characters. */
public final class SqlSyntaxException extends IllegalArgumentException {
  private final int offset;

  public SqlSyntaxException(String message, int offset) {
    super(message);
    this.offset = offset;
  }

  public int offset() {
    return offset;
  }
}
