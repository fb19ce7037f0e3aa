package io.floe.format.commit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.floe.format.ErrorClass;
import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.commit.ConflictMatrixCase.Op;
import io.floe.format.commit.ConflictMatrixCase.Outcome;
import io.floe.format.commit.ConflictMatrixCase.Placement;
import io.floe.format.commit.ConflictMatrixOps.Prepared;
import io.floe.format.manifest.DataFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * R2a, the conflict matrix (docs/reliability.md): every operation against every other, A reads,
 * B commits, A commits; the outcome must match {@link ConflictMatrixExpectations} in every cell.
 * When A fails, the error is the typed conflict ({@link ValidationException}, SQLSTATE 40001), the
 * table is exactly at B's version with none of A's effect, and A's metadata files are gone. When
 * A succeeds, both effects are in the live files. Writes build/reliability/R2-matrix.json.
 */
public class TestConflictMatrix {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  @Test
  public void everyCellMatchesIcebergsValidationRules() throws IOException {
    long started = System.nanoTime();
    FileSystemCatalog catalog = CommitFixtures.catalog(temp.getRoot().toPath());
    List<ConflictMatrixCase> cases = ConflictMatrixCase.all();
    List<String> mismatches = new ArrayList<>();
    Map<ConflictMatrixCase, Outcome> outcomes = new LinkedHashMap<>();
    int conflicts = 0;
    for (int i = 0; i < cases.size(); i++) {
      ConflictMatrixCase c = cases.get(i);
      Outcome expected = ConflictMatrixExpectations.expected(c);
      String problem;
      try {
        problem = run(catalog, "c" + i, c, expected, outcomes);
      } catch (RuntimeException e) {
        problem = "unexpected " + e;
      }
      if (problem != null) {
        mismatches.add(c + " (expected A " + expected.name().toLowerCase() + "): " + problem);
      }
      conflicts += expected == Outcome.CONFLICTS ? 1 : 0;
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    writeFigures(cases.size(), conflicts, mismatches, seconds, outcomes);
    System.out.printf("R2 conflict matrix: %d cases (%d expected conflicts), %d matched, %d mismatches, %.1f s%n",
        cases.size(), conflicts, cases.size() - mismatches.size(), mismatches.size(), seconds);
    mismatches.forEach(m -> System.out.println("  mismatch: " + m));
    assertTrue("R2 matrix mismatches:\n" + String.join("\n", mismatches), mismatches.isEmpty());
    assertEquals(cases.size(), outcomes.size());
  }

  /** Runs one cell; returns what did not match, or null. */
  private static String run(FileSystemCatalog catalog, String name, ConflictMatrixCase c, Outcome expected,
      Map<ConflictMatrixCase, Outcome> outcomes) {
    ConflictMatrixTable table = new ConflictMatrixTable(catalog, name, c.placement().partitioned(), c.formatVersion());
    DataFile targetA = table.file(c.placement().partitioned() ? "eu1" : "f1");
    DataFile targetB = table.file(targetOfB(c.placement()));
    ConflictMatrixState initial = table.state();
    initial.snapshots = null;
    Set<String> before = table.metadataListing();
    AtomicReference<Prepared> b = new AtomicReference<>();
    AtomicReference<String> afterB = new AtomicReference<>();
    TableOperations opsA = ForwardingTableOperations.racing(table.newOps(), () -> {
      Prepared prepared = ConflictMatrixOps.prepare(c.b(), "b", table, table.newOps(), targetB,
          IsolationLevel.SERIALIZABLE);
      prepared.commit().run();
      b.set(prepared);
      afterB.set(table.metadataLocation());
    });
    Prepared a = ConflictMatrixOps.prepare(c.a(), "a", table, opsA, targetA, c.isolation());
    Outcome actual;
    ValidationException conflict = null;
    try {
      a.commit().run();
      actual = Outcome.SUCCEEDS;
    } catch (ValidationException e) {
      actual = Outcome.CONFLICTS;
      conflict = e;
    }
    outcomes.put(c, actual);
    if (b.get() == null) {
      return "B never committed: A did not reach its commit";
    }
    if (actual != expected) {
      return "A " + actual.name().toLowerCase() + (conflict == null ? "" : ": " + conflict.getMessage());
    }
    ConflictMatrixState expectedState = initial.copy();
    b.get().effect().accept(expectedState);
    expectedState.snapshots = null;
    StringBuilder problems = new StringBuilder();
    if (conflict != null) {
      if (conflict.errorClass() != ErrorClass.FLOE_CONCURRENT_CHANGE_CONFLICT
          || !"40001".equals(conflict.errorClass().sqlState()) || !conflict.getMessage().contains(table.name())) {
        problems.append("conflict error not classed or not naming the table: ").append(conflict.errorClass())
            .append(' ').append(conflict.getMessage()).append("; ");
      }
      if (!afterB.get().equals(table.metadataLocation())) {
        problems.append("table moved past B's version ").append(afterB.get()).append("; ");
      }
    } else {
      a.effect().accept(expectedState);
    }
    problems.append(expectedState.diff(table.state()));
    Set<String> left = table.leftovers(before);
    if (!left.isEmpty()) {
      problems.append("metadata files left behind: ").append(left).append("; ");
    }
    Set<String> missing = table.missingFiles();
    if (!missing.isEmpty()) {
      problems.append("files the table needs are gone: ").append(missing).append("; ");
    }
    Set<String> dangling = table.danglingDeletionVectors();
    if (!dangling.isEmpty()) {
      problems.append("deletion vectors of removed data files still listed: ").append(dangling).append("; ");
    }
    return problems.length() == 0 ? null : problems.toString();
  }

  private static String targetOfB(Placement p) {
    switch (p) {
      case SAME_PARTITION:
        return "eu2";
      case OTHER_PARTITION:
        return "us1";
      case UNPARTITIONED:
        return "f2";
      default:
        return "eu1";
    }
  }

  /** build/reliability/R2-matrix.json (figures) and R2-matrix.md (the outcome table), at the repository root. */
  private static void writeFigures(int cases, int conflicts, List<String> mismatches, double seconds,
      Map<ConflictMatrixCase, Outcome> outcomes) throws IOException {
    Path out = repositoryRoot().resolve("build").resolve("reliability");
    Files.createDirectories(out);
    StringBuilder json = new StringBuilder("{\n");
    json.append("  \"cases\": ").append(cases).append(",\n");
    json.append("  \"matched\": ").append(cases - mismatches.size()).append(",\n");
    json.append("  \"mismatches\": ").append(mismatches.size()).append(",\n");
    json.append("  \"expected_conflicts\": ").append(conflicts).append(",\n");
    json.append("  \"expected_successes\": ").append(cases - conflicts).append(",\n");
    json.append("  \"operations\": ").append(Op.values().length).append(",\n");
    json.append("  \"seconds\": ").append(String.format(java.util.Locale.ROOT, "%.1f", seconds)).append(",\n");
    json.append("  \"mismatch_list\": [");
    for (int i = 0; i < mismatches.size(); i++) {
      json.append(i == 0 ? "\n    " : ",\n    ").append(quote(mismatches.get(i)));
    }
    json.append(mismatches.isEmpty() ? "]\n}\n" : "\n  ]\n}\n");
    Files.writeString(out.resolve("R2-matrix.json"), json.toString(), StandardCharsets.UTF_8);
    Files.writeString(out.resolve("R2-matrix.md"), ConflictMatrixReport.table(outcomes), StandardCharsets.UTF_8);
  }

  private static String quote(String s) {
    StringBuilder q = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      if (ch == '"' || ch == '\\') {
        q.append('\\').append(ch);
      } else if (ch < 0x20) {
        q.append(String.format("\\u%04x", (int) ch));
      } else {
        q.append(ch);
      }
    }
    return q.append('"').toString();
  }

  /** The directory holding settings.gradle, from Gradle's working directory (the project's). */
  private static Path repositoryRoot() {
    Path dir = Paths.get("").toAbsolutePath();
    for (Path p = dir; p != null; p = p.getParent()) {
      if (Files.exists(p.resolve("settings.gradle")) && Files.isDirectory(p.resolve("python-tests"))) {
        return p;
      }
    }
    return dir;
  }
}
