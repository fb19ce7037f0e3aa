package io.floe.format.maintenance;

import io.floe.format.FloeException;
import io.floe.format.OptionErrors;
import io.floe.format.metadata.TableProperties;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code options} map of rewrite_data_files, with Iceberg's names and defaults: sizes in bytes,
 * {@code target-file-size-bytes} from the table property {@code write.target-file-size-bytes}
 * (else 512 MB), {@code min-file-size-bytes} 75% and {@code max-file-size-bytes} 180% of it.
 */
public record RewriteOptions(long targetFileSize, long minFileSize, long maxFileSize, int minInputFiles, boolean rewriteAll,
    int deleteFileThreshold, long maxFileGroupSize, boolean partialProgress, int partialProgressMaxCommits,
    int maxConcurrentGroups, boolean useStartingSequenceNumber) {
  public static final List<String> NAMES = List.of("target-file-size-bytes", "min-file-size-bytes", "max-file-size-bytes",
      "min-input-files", "rewrite-all", "delete-file-threshold", "max-file-group-size-bytes",
      "partial-progress.enabled", "partial-progress.max-commits", "max-concurrent-file-group-rewrites",
      "use-starting-sequence-number", "remove-dangling-deletes");

  /** The size at which the writer rolls to a new file: halfway between the target and the maximum. */
  public long writerFileSize() {
    return targetFileSize + (maxFileSize - targetFileSize) / 2;
  }

  /** Parses {@code options}; {@code describe} prefixes error messages (procedure and table). */
  public static RewriteOptions parse(Map<String, String> options, Map<String, String> tableProperties, String describe) {
    Map<String, String> given = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : options.entrySet()) {
      String key = e.getKey().trim().toLowerCase(Locale.ROOT);
      if (!NAMES.contains(key)) {
        throw OptionErrors.invalidOption(e.getKey(), e.getValue(), describe + ": unknown option '" + e.getKey()
            + "' (valid options: " + String.join(", ", NAMES) + ")");
      }
      given.put(key, e.getValue() == null ? null : e.getValue().trim());
    }
    Parser p = new Parser(given, describe);
    long target = given.containsKey("target-file-size-bytes") ? p.positiveLong("target-file-size-bytes", 1)
        : tableTargetSize(tableProperties, describe);
    long min = p.nonNegativeLong("min-file-size-bytes", (long) (target * 0.75));
    long max = p.positiveLong("max-file-size-bytes", (long) (target * 1.8));
    if (min > target || max < target) {
      throw OptionErrors.invalidOption("min-file-size-bytes", Long.toString(min), describe
          + ": options need min-file-size-bytes (" + min + ") <= target-file-size-bytes (" + target
          + ") <= max-file-size-bytes (" + max + ")");
    }
    if (p.bool("remove-dangling-deletes", false)) {
      throw OptionErrors.unsupported(describe + ": option remove-dangling-deletes=true is not supported; the "
          + "position deletes and deletion vectors of rewritten files are always removed with them");
    }
    return new RewriteOptions(target, min, max,
        (int) p.positiveLong("min-input-files", 5),
        p.bool("rewrite-all", false),
        (int) Math.min(Integer.MAX_VALUE, p.positiveLong("delete-file-threshold", Integer.MAX_VALUE)),
        p.positiveLong("max-file-group-size-bytes", 100L << 30),
        p.bool("partial-progress.enabled", false),
        (int) p.positiveLong("partial-progress.max-commits", 10),
        (int) p.positiveLong("max-concurrent-file-group-rewrites", 5),
        p.bool("use-starting-sequence-number", true));
  }

  private static long tableTargetSize(Map<String, String> tableProperties, String describe) {
    String value = tableProperties.getOrDefault(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
        Long.toString(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT));
    try {
      long parsed = Long.parseLong(value.trim());
      if (parsed > 0) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw OptionErrors.invalidProperty(null, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, describe
        + ": invalid table property write.target-file-size-bytes='" + value
        + "' (expected a positive number of bytes); fix it or pass option target-file-size-bytes");
  }

  /** Reads typed values from the given options. */
  private record Parser(Map<String, String> given, String describe) {
    long positiveLong(String name, long dflt) {
      long v = nonNegativeLong(name, dflt);
      if (v == 0) {
        throw invalid(name, "a positive number");
      }
      return v;
    }

    long nonNegativeLong(String name, long dflt) {
      String v = given.get(name);
      if (v == null) {
        return dflt;
      }
      try {
        long parsed = Long.parseLong(v);
        if (parsed < 0) {
          throw invalid(name, "a number >= 0");
        }
        return parsed;
      } catch (NumberFormatException e) {
        throw invalid(name, "a whole number");
      }
    }

    boolean bool(String name, boolean dflt) {
      String v = given.get(name);
      if (v == null) {
        return dflt;
      }
      if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
        return Boolean.parseBoolean(v);
      }
      throw invalid(name, "true or false");
    }

    private FloeException invalid(String name, String expected) {
      return OptionErrors.invalidOption(name, given.get(name), describe + ": invalid option " + name + "='"
          + given.get(name) + "' (expected " + expected + ")");
    }
  }
}
