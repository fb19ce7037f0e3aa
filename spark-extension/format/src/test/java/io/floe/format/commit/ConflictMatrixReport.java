package io.floe.format.commit;

import io.floe.format.commit.ConflictMatrixCase.Op;
import io.floe.format.commit.ConflictMatrixCase.Outcome;
import java.util.Locale;
import java.util.Map;

/**
 * The expected outcomes as a Markdown table for docs/reliability.md, with {@code !} after a cell
 * whose observed outcome differed: one row per A operation (and isolation level when A validates),
 * one column per B operation; a cell lists A's outcome per placement ({@code s} succeeds after a
 * retry, {@code C} conflicts) in the order same file, same
 * partition, other partition, unpartitioned (two letters, partitioned and unpartitioned, when only
 * one operation is placed; one when neither is).
 */
final class ConflictMatrixReport {
  private ConflictMatrixReport() {}

  static String table(Map<ConflictMatrixCase, Outcome> outcomes) {
    StringBuilder out = new StringBuilder("| A \\ B |");
    for (Op b : Op.values()) {
      out.append(' ').append(b.label()).append(" |");
    }
    out.append("\n|---|");
    out.append("---|".repeat(Op.values().length)).append('\n');
    for (Op a : Op.values()) {
      if (!a.runsAsA()) {
        continue;
      }
      for (IsolationLevel level : a.isolated ? IsolationLevel.values() : new IsolationLevel[] {IsolationLevel.SERIALIZABLE}) {
        out.append("| ").append(a.label())
            .append(a.isolated ? " (" + level.name().toLowerCase(Locale.ROOT) + ")" : "").append(" |");
        for (Op b : Op.values()) {
          StringBuilder cell = new StringBuilder();
          outcomes.forEach((c, o) -> {
            if (c.a() == a && c.b() == b && c.isolation() == level) {
              Outcome expected = ConflictMatrixExpectations.expected(c);
              cell.append(expected == Outcome.SUCCEEDS ? 's' : 'C').append(o == expected ? "" : "!");
            }
          });
          out.append(' ').append(cell.length() == 0 ? "n/a" : cell).append(" |");
        }
        out.append('\n');
      }
    }
    return out.toString();
  }
}
