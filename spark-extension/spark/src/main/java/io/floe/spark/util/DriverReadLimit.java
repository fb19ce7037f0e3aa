package io.floe.spark.util;

import io.floe.format.scan.FileScanTask;
import java.util.List;
import org.apache.spark.sql.RuntimeConfig;

/**
 * How much data the driver reads itself rather than running a Spark job: at most {@code maxRows}
 * rows in at most {@code maxBytes} bytes of data files (their size on storage; the row limit alone
 * would let very wide rows keep the driver reading gigabytes). A job costs tens of milliseconds
 * before it reads a byte, which is more than reading a few small files takes. Each use has its own
 * pair of Spark settings; 0 in either turns the driver read off.
 */
public record DriverReadLimit(long maxRows, long maxBytes) {
  /**
   * The limit the settings {@code rowsKey} and {@code bytesKey} of {@code conf} set, or the
   * defaults where unset; {@code jobUse} says what a Spark job does instead (for the error message).
   */
  public static DriverReadLimit of(RuntimeConfig conf, String rowsKey, long defaultRows, String bytesKey,
      long defaultBytes, String jobUse) {
    return new DriverReadLimit(parse(rowsKey, conf.get(rowsKey, null), defaultRows, "rows", jobUse),
        parse(bytesKey, conf.get(bytesKey, null), defaultBytes, "bytes", jobUse));
  }

  /** The limit {@code value} sets for setting {@code key} (null: {@code defaultValue}). */
  public static long parse(String key, String value, long defaultValue, String unit, String jobUse) {
    if (value == null) {
      return defaultValue;
    }
    try {
      long limit = Long.parseLong(value.trim());
      if (limit >= 0) {
        return limit;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("Invalid Spark setting " + key + "=" + value
        + ": expected a number of " + unit + " >= 0 (0 " + jobUse + " with a Spark job)");
  }

  /**
   * Whether the files of {@code tasks} hold at most {@link #maxRows} rows in at most
   * {@link #maxBytes} bytes, and, unless {@code withDeletes}, have no delete files. A file split in
   * several tasks counts once per task (an overestimate, never an underestimate).
   */
  public boolean admits(List<FileScanTask> tasks, boolean withDeletes) {
    if (maxRows == 0 || maxBytes == 0) {
      return false;
    }
    long rows = 0;
    long bytes = 0;
    for (FileScanTask task : tasks) {
      if (!withDeletes && !task.deletes().isEmpty()) {
        return false;
      }
      rows += task.file().recordCount();
      bytes += task.file().fileSizeInBytes();
      if (rows > maxRows || bytes > maxBytes) {
        return false;
      }
    }
    return true;
  }
}
