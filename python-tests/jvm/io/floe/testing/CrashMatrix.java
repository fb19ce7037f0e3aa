package io.floe.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Entry point of R3's crash runs (python-tests/test_reliability_r3_crashes.py).
 * <pre>
 *   CrashMatrix in-process ROOT REPS          every point x operation x repetition, mode A, checked here
 *   CrashMatrix child DIR POINT OP REP        one run in this JVM, which halts at the point (mode B)
 *   CrashMatrix check DIR...                  checks mode-B runs from their logs (DIR/run.log)
 * </pre>
 * Prints {@code RUN <point> <op> <rep> landed=<0|1> orphans=<n> violations=<n>}, then one
 * {@code VIOLATION} line per violation.
 */
public final class CrashMatrix {
  private CrashMatrix() {}

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "in-process" -> inProcess(Paths.get(args[1]), Integer.parseInt(args[2]));
      case "child" -> {
        Path dir = Paths.get(args[1]);
        Files.createDirectories(dir);
        CrashScenario.run(uri(dir), CrashPoint.valueOf(args[2]), CrashOp.valueOf(args[3]), Integer.parseInt(args[4]),
            true, new RunLog(dir.resolve("run.log")));
      }
      case "check" -> {
        for (int i = 1; i < args.length; i++) {
          Path dir = Paths.get(args[i]);
          String[] name = dir.getFileName().toString().split("~");
          report(name[0], name[1], name[2], TableInvariants.check(uri(dir), RunLog.read(dir.resolve("run.log"))));
        }
      }
      default -> throw new IllegalArgumentException("unknown command " + args[0]);
    }
    System.out.flush();
  }

  private static void inProcess(Path root, int reps) throws Exception {
    for (CrashPoint point : CrashPoint.values()) {
      for (CrashOp op : CrashOp.values()) {
        if (!point.appliesTo(op)) {
          continue;
        }
        for (int rep = 1; rep <= reps; rep++) {
          Path dir = root.resolve(point + "~" + op + "~" + rep);
          Files.createDirectories(dir);
          RunLog log = new RunLog(null);
          CrashScenario.run(uri(dir), point, op, rep, false, log);
          report(point.name(), op.name(), Integer.toString(rep), TableInvariants.check(uri(dir), log));
        }
      }
    }
  }

  static String uri(Path dir) {
    return "file://" + dir.toAbsolutePath();
  }

  private static void report(String point, String op, String rep, TableInvariants.Result result) {
    System.out.println("RUN " + point + " " + op + " " + rep + " landed=" + (result.landedUnacked ? 1 : 0)
        + " orphans=" + result.orphansRemoved + " violations=" + result.violations.size());
    result.violations.forEach(v -> System.out.println("VIOLATION " + point + " " + op + " " + rep + ": " + v));
  }
}
