package io.floe.testing;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a crash run did, as lines {@code KIND value}: snapshots that must survive ({@code MUST}), the
 * snapshot the table must be at unless the operation landed ({@code CURRENT}), the operation's own
 * snapshot ({@code UNACKED}), files written ({@code W}) and deleted ({@code D}) once the point was
 * armed, and the crash. Kept in memory, and appended to a file (one unbuffered write per line, so
 * it survives {@code Runtime.halt}) for a run in a child JVM.
 */
public final class RunLog {
  private final List<String[]> lines = new ArrayList<>();
  private final FileOutputStream out;

  public RunLog(Path file) {
    try {
      this.out = file == null ? null : new FileOutputStream(file.toFile(), true);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public synchronized void add(String kind, Object value) {
    lines.add(new String[] {kind, String.valueOf(value)});
    if (out != null) {
      try {
        out.write((kind + " " + value + "\n").getBytes(StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** Every value logged under {@code kind}, in order. */
  public synchronized List<String> values(String kind) {
    List<String> found = new ArrayList<>();
    for (String[] line : lines) {
      if (line[0].equals(kind)) {
        found.add(line[1]);
      }
    }
    return found;
  }

  /** The values logged under {@code kind} after the last {@code after} line (all of them when there is none). */
  public synchronized List<String> valuesAfter(String kind, String after) {
    int start = 0;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i)[0].equals(after)) {
        start = i;
      }
    }
    List<String> found = new ArrayList<>();
    for (String[] line : lines.subList(start, lines.size())) {
      if (line[0].equals(kind)) {
        found.add(line[1]);
      }
    }
    return found;
  }

  public String last(String kind) {
    List<String> found = values(kind);
    return found.isEmpty() ? null : found.get(found.size() - 1);
  }

  /** A log read back from the file a child JVM wrote. */
  public static RunLog read(Path file) throws IOException {
    RunLog log = new RunLog(null);
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      int space = line.indexOf(' ');
      if (space > 0) {
        log.lines.add(new String[] {line.substring(0, space), line.substring(space + 1)});
      }
    }
    return log;
  }
}
