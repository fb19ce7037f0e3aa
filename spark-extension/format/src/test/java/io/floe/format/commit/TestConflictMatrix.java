package io.floe.format.commit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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
    List<ConflictMatrixCase> cases = ConflictMatrixCase.all();
    List<String> mismatches = new ArrayList<>();
    Map<ConflictMatrixCase, Outcome> outcomes = new LinkedHashMap<>();
    int conflicts = 0;
    for (int i = 0; i < cases.size(); i++) {
      ConflictMatrixCase c = cases.get(i);
      Outcome expected = ConflictMatrixExpectations.expected(c);
      String problem;
      try {
        problem = run(warehouse("c" + i), "c" + i, c, expected, outcomes);
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

  /**
   * The other half of "files removed only when the failure is known": A loses the race to B, then
   * its retry lands but the publish reports an unknown outcome. A must surface
   * {@link CommitStateUnknownException} and delete nothing: the table (at A's landed version) keeps
   * every file it needs and holds both effects.
   */
  @Test
  public void anUnknownOutcomeAfterARetryDeletesNothing() throws IOException {
    List<String> problems = new ArrayList<>();
    int cases = 0;
    for (Op a : Op.values()) {
      if (!a.runsAsA()) {
        continue;
      }
      for (boolean partitioned : List.of(true, false)) {
        cases += 1;
        String problem;
        try {
          problem = runUnknownOutcome(warehouse("u" + cases), "u" + cases, a, partitioned);
        } catch (RuntimeException e) {
          problem = "unexpected " + e;
        }
        if (problem != null) {
          problems.add("A=" + a.label() + (partitioned ? " partitioned" : " unpartitioned") + ": " + problem);
        }
      }
    }
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("unknown_outcome_cases", cases);
    figures.put("unknown_outcome_mismatches", problems.size());
    record(figures);
    System.out.printf("R2 unknown outcome after a retry: %d cases, %d mismatches%n", cases, problems.size());
    assertTrue("R2 unknown-outcome mismatches:\n" + String.join("\n", problems), problems.isEmpty());
  }

  private static String runUnknownOutcome(FileSystemCatalog catalog, String name, Op op, boolean partitioned) {
    ConflictMatrixTable table = new ConflictMatrixTable(catalog, name, partitioned, 2, op == Op.EXPIRE);
    DataFile targetA = table.file(partitioned ? "eu1" : "f1");
    DataFile targetB = table.file(partitioned ? "us1" : "f2");
    ConflictMatrixState expected = table.state();
    expected.snapshots = null;
    AtomicReference<Prepared> b = new AtomicReference<>();
    TableOperations opsA = new ForwardingTableOperations(table.newOps()) {
      private int commits = 0;

      @Override
      public void commit(io.floe.format.metadata.TableMetadata base, io.floe.format.metadata.TableMetadata updated) {
        commits += 1;
        if (commits == 1) { // B commits first: a row-level A in another partition or file still succeeds
          Prepared prepared = ConflictMatrixOps.prepare(partitioned ? Op.APPEND : Op.ROW_DELTA_POS, "b", table,
              table.newOps(), targetB, IsolationLevel.SERIALIZABLE);
          prepared.commit().run();
          b.set(prepared);
        }
        super.commit(base, updated);
        if (commits == 2) {
          throw new CommitStateUnknownException("Injected: the write of table " + table.name() + " landed, "
              + "its acknowledgement did not", new IOException("connection reset"));
        }
      }
    };
    Prepared a = ConflictMatrixOps.prepare(op, "a", table, opsA, targetA, IsolationLevel.SERIALIZABLE);
    try {
      a.commit().run();
      return "A succeeded although its publish reported an unknown outcome";
    } catch (CommitStateUnknownException e) {
      if (e.errorClass() != ErrorClass.FLOE_COMMIT_STATE_UNKNOWN) {
        return "unknown outcome not classed: " + e.errorClass();
      }
    }
    if (b.get() == null) {
      return "B never committed";
    }
    b.get().effect().accept(expected);
    expected.snapshots = null;
    a.effect().accept(expected);
    StringBuilder problems = new StringBuilder(expected.diff(table.state()));
    Set<String> missing = table.missingFiles();
    if (!missing.isEmpty()) {
      problems.append("files the landed commit needs were deleted: ").append(missing).append("; ");
    }
    return problems.length() == 0 ? null : problems.toString();
  }

  /** A warehouse per cell: a table's checks never list the hundreds of others. */
  private FileSystemCatalog warehouse(String name) {
    return CommitFixtures.catalog(temp.getRoot().toPath().resolve(name));
  }

  /** Runs one cell; returns what did not match, or null. */
  private static String run(FileSystemCatalog catalog, String name, ConflictMatrixCase c, Outcome expected,
      Map<ConflictMatrixCase, Outcome> outcomes) {
    ConflictMatrixTable table = new ConflictMatrixTable(catalog, name, c.placement().partitioned(), c.formatVersion(),
        c.a() == Op.EXPIRE || c.b() == Op.EXPIRE);
    DataFile targetA = table.file(c.placement().partitioned() ? "eu1" : "f1");
    DataFile targetB = table.file(targetOfB(c.placement()));
    ConflictMatrixState initial = table.state();
    initial.snapshots = null;
    Set<String> before = table.metadataListing();
    AtomicReference<Prepared> b = new AtomicReference<>();
    AtomicReference<String> afterB = new AtomicReference<>();
    TableOperations opsA = RacingTableOperations.racing(table.newOps(), () -> {
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
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("cases", cases);
    figures.put("matched", cases - mismatches.size());
    figures.put("mismatches", mismatches.size());
    figures.put("expected_conflicts", conflicts);
    figures.put("expected_successes", cases - conflicts);
    figures.put("operations", Op.values().length);
    figures.put("seconds", Math.round(seconds * 10) / 10.0);
    figures.put("mismatch_list", mismatches);
    record(figures);
    Files.writeString(figuresFolder().resolve("R2-matrix.md"), ConflictMatrixReport.table(outcomes),
        StandardCharsets.UTF_8);
  }

  /** Merges {@code figures} into build/reliability/R2-matrix.json (both tests of this class add to it). */
  private static synchronized void record(Map<String, Object> figures) throws IOException {
    ObjectMapper json = new ObjectMapper();
    Path file = figuresFolder().resolve("R2-matrix.json");
    Map<String, Object> all = new TreeMap<>();
    if (Files.exists(file)) {
      all.putAll(json.readValue(file.toFile(), new TypeReference<Map<String, Object>>() { }));
    }
    all.putAll(figures);
    all.put("recorded_at", DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC)
        .format(Instant.now()));
    Files.writeString(file, json.writerWithDefaultPrettyPrinter().writeValueAsString(all) + "\n",
        StandardCharsets.UTF_8);
  }

  private static Path figuresFolder() throws IOException {
    Path out = repositoryRoot().resolve("build").resolve("reliability");
    Files.createDirectories(out);
    return out;
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
