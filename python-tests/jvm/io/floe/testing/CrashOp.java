package io.floe.testing;

/** The operations crashed by R3: an append, a merge-on-read row delta (new rows plus a deletion vector), an overwrite. */
public enum CrashOp {
  APPEND,
  ROW_DELTA,
  OVERWRITE
}
