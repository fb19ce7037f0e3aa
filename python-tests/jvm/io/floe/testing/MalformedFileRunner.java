package io.floe.testing;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The R4 runner (docs/reliability.md): reads every corpus file, then seeded mutations of the valid
 * seeds, each through {@link MalformedFileProbe} on a worker thread with a time limit, and writes one
 * JSON line per corpus file and one summary line (plus a line per violation) for the mutations.
 * Run with -Xmx512m: an OutOfMemoryError, a StackOverflowError, a timeout or an exception that is
 * not a Floe exception naming the file is a violation.
 * <pre>
 *   java -Xmx512m -cp ... io.floe.testing.MalformedFileRunner VALID CASES_TSV OUT_JSONL MUTATIONS SEED BUDGET_SECONDS
 * </pre>
 * CASES_TSV: one "kind TAB path TAB context" per line (context: see MalformedFileProbe). Mutations stop early when their time budget runs out.
 */
public final class MalformedFileRunner {
  private static final long TIMEOUT_MILLIS = 2000;

  private final MalformedFileProbe probe;
  private ExecutorService worker = Executors.newSingleThreadExecutor(MalformedFileRunner::daemon);

  private MalformedFileRunner(MalformedFileProbe probe) {
    this.probe = probe;
  }

  public static void main(String[] args) throws Exception {
    Path valid = Path.of(args[0]);
    List<String> cases = Files.readAllLines(Path.of(args[1]), StandardCharsets.UTF_8);
    Path scratch = Files.createTempDirectory("r4-probe");
    MalformedFileRunner runner = new MalformedFileRunner(new MalformedFileProbe(valid, scratch));
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(Path.of(args[2]), StandardCharsets.UTF_8))) {
      for (String line : cases) {
        String[] parts = line.split("\t", -1);
        String context = parts.length > 2 ? parts[2] : "";
        out.println(runner.run(parts[0], Path.of(parts[1]), context).json("corpus", parts[0], Path.of(parts[1])));
      }
      out.flush();
      runner.mutate(valid, scratch, Integer.parseInt(args[3]), Long.parseLong(args[4]),
          Long.parseLong(args[5]), out);
    }
    System.exit(0); // a hung worker thread must not keep the JVM alive
  }

  /** One read: its outcome, the exception type and message, and the seconds it took. */
  record Result(String outcome, String type, String message, double seconds) {
    String json(String phase, String kind, Path file) {
      return "{\"phase\": " + quote(phase) + ", \"kind\": " + quote(kind) + ", \"file\": " + quote(file.toString())
          + ", \"outcome\": " + quote(outcome) + ", \"type\": " + quote(type) + ", \"message\": " + quote(message)
          + ", \"seconds\": " + seconds + "}";
    }
  }

  Result run(String kind, Path file, String context) {
    long start = System.nanoTime();
    Future<String> future = worker.submit(() -> probe.read(kind, file, context));
    String outcome;
    String type = "";
    String message;
    try {
      message = future.get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
      outcome = "ok";
    } catch (TimeoutException e) {
      future.cancel(true);
      worker.shutdownNow();
      worker = Executors.newSingleThreadExecutor(MalformedFileRunner::daemon);
      outcome = "violation";
      type = "Timeout";
      message = "no answer within " + TIMEOUT_MILLIS + " ms";
    } catch (Exception e) {
      Throwable t = e.getCause() == null ? e : e.getCause();
      outcome = MalformedFileProbe.isClear(t, kind, file) ? "error" : "violation";
      type = t.getClass().getName();
      message = String.valueOf(t.getMessage());
      if (outcome.equals("violation")) {
        message += " @ " + firstFrames(t);
      }
    } catch (Error e) {
      outcome = "violation";
      type = e.getClass().getName();
      message = String.valueOf(e.getMessage());
    }
    return new Result(outcome, type, truncate(message), (System.nanoTime() - start) / 1e9);
  }

  /**
   * {@code count} mutations of the seeds, chosen by {@code seed}, within {@code budgetSeconds}: each
   * must read or fail clearly. Writes a summary line and a line per violation.
   */
  private void mutate(Path valid, Path scratch, int count, long seed, long budgetSeconds, PrintWriter out)
      throws Exception {
    List<Object[]> seeds = new ArrayList<>();
    for (String[] kindAndFile : SEEDS) {
      seeds.add(new Object[] {kindAndFile[0], Files.readAllBytes(valid.resolve(kindAndFile[1])), kindAndFile[1]});
    }
    Random random = new Random(seed);
    long deadline = System.nanoTime() + budgetSeconds * 1_000_000_000L;
    int done = 0;
    int ok = 0;
    int errors = 0;
    int violations = 0;
    double slowest = 0;
    Path dir = Files.createDirectories(scratch.resolve("mutations"));
    for (int i = 0; i < count && System.nanoTime() < deadline; i++) {
      Object[] s = seeds.get(i % seeds.size());
      String kind = (String) s[0];
      String name = (String) s[2];
      byte[] bytes = Mutations.mutate((byte[]) s[1], random, name);
      Path file = dir.resolve("m" + i + "-" + name);
      Files.write(file, bytes);
      Result r = run(kind, file, "");
      done++;
      slowest = Math.max(slowest, r.seconds());
      switch (r.outcome()) {
        case "ok" -> ok++;
        case "error" -> errors++;
        default -> {
          violations++;
          Files.copy(file, scratch.resolve(file.getFileName()));
          out.println(r.json("mutation", kind, scratch.resolve(file.getFileName())));
        }
      }
      Files.delete(file);
    }
    out.println("{\"phase\": \"mutations\", \"mutations\": " + done + ", \"ok\": " + ok + ", \"errors\": " + errors
        + ", \"violations\": " + violations + ", \"max_seconds\": " + slowest + "}");
  }

  /** The valid seed of each kind that mutations start from. */
  private static final String[][] SEEDS = {
      {"metadata", "table.metadata.json"},
      {"manifest-list", "manifest-list.avro"},
      {"data-manifest", "data-manifest.avro"},
      {"delete-manifest", "delete-manifest.avro"},
      {"puffin", "statistics.puffin"},
      {"deletion-vector", "deletion-vector.puffin"},
      {"index-list", "index-list.json"},
      {"index-by_id", "index-by_id.puffin"},
      {"index-by_name", "index-by_name.puffin"},
      {"version-hint", "version-hint.text"},
  };

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "r4-probe");
    t.setDaemon(true);
    return t;
  }

  private static String firstFrames(Throwable t) {
    StringBuilder out = new StringBuilder();
    StackTraceElement[] frames = t.getStackTrace();
    for (int i = 0; i < Math.min(4, frames.length); i++) {
      out.append(i == 0 ? "" : " < ").append(frames[i]);
    }
    return out.toString();
  }

  private static String truncate(String s) {
    return s.length() > 600 ? s.substring(0, 600) + "..." : s;
  }

  private static String quote(String s) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7e) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }
}
