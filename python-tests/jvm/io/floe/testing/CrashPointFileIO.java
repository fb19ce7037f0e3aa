package io.floe.testing;

import io.floe.format.io.FileIO;
import io.floe.format.io.FileInfo;
import io.floe.format.io.ForwardingFileIO;
import io.floe.format.io.InputFile;
import io.floe.format.io.OutputFile;
import io.floe.format.io.WriteMarkers;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * A FileIO that crashes the writer at one {@link CrashPoint}, recognised from the operation and the
 * path: the close of a {@code data/*.parquet}, a {@code data/*.puffin} deletion vector, an index
 * file under {@code _floe_indexes/}, a manifest ({@code metadata/<id>-m<n>.avro}), a manifest list
 * ({@code metadata/snap-*.avro}), a temporary metadata or hint file; the publish (before it: "mid
 * publish"; after it); the hint's checksum delete and replace; the n-th delete of an old version
 * file, of an expired or orphan file, or of a manifest in abort clean-up; a write into a
 * {@code .stats} file. Mode A throws {@link SimulatedCrash} and then refuses every call; mode B
 * halts the JVM with status 137. Files written and deleted once armed go to the {@link RunLog}.
 */
public final class CrashPointFileIO extends ForwardingFileIO {
  private final RunLog log;
  private final boolean halt;
  private CrashPoint point;
  private int occurrence;
  private int seen;
  private boolean crashed;
  private Runnable beforePublish;

  public CrashPointFileIO(FileIO delegate, RunLog log, boolean halt) {
    super(delegate);
    this.log = log;
    this.halt = halt;
  }

  /** Crash at the {@code occurrence}-th (from 1) event of {@code crashPoint} from now on. */
  public synchronized void arm(CrashPoint crashPoint, int occurrenceNumber) {
    this.point = crashPoint;
    this.occurrence = occurrenceNumber;
    this.seen = 0;
    log.add("ARMED", crashPoint);
  }

  /** Runs {@code hook} once, just before the next publish (a competing writer's commit). */
  public synchronized void beforeNextPublish(Runnable hook) {
    this.beforePublish = hook;
  }

  public synchronized boolean crashed() {
    return crashed;
  }

  private synchronized void alive() {
    if (crashed) {
      throw new SimulatedCrash("the writer crashed at " + point);
    }
  }

  /** Counts an event of {@code at}; crashes when it is the armed one. */
  private synchronized void event(CrashPoint at) {
    if (point != at || crashed) {
      return;
    }
    seen += 1;
    if (seen == occurrence) {
      crashed = true;
      log.add("CRASH", at);
      if (halt) {
        Runtime.getRuntime().halt(137);
      }
      throw new SimulatedCrash("crash at " + at);
    }
  }

  /** The crash point a closed output file at {@code location} stands for, or null. */
  static CrashPoint pointOfWrite(String location) {
    String name = WriteMarkers.fileName(location);
    if (location.contains("/_floe_indexes/")) {
      return CrashPoint.AFTER_INDEX_WRITE;
    } else if (location.contains("/data/") && name.endsWith(".parquet")) {
      return CrashPoint.AFTER_DATA_FILE;
    } else if (location.contains("/data/") && name.endsWith(".puffin")) {
      return CrashPoint.AFTER_DV_PUFFIN;
    } else if (name.startsWith("snap-") && name.endsWith(".avro")) {
      return CrashPoint.AFTER_MANIFEST_LIST;
    } else if (name.matches(".*-m\\d+\\.avro")) {
      return CrashPoint.AFTER_MANIFEST;
    } else if (name.startsWith(".floe-") && name.endsWith(".metadata.json.tmp")) {
      return CrashPoint.AFTER_METADATA_TEMP;
    } else if (name.startsWith(".floe-") && name.endsWith("-version-hint.tmp")) {
      return CrashPoint.AFTER_HINT_TEMP;
    }
    return null;
  }

  static boolean isTemporary(String location) {
    String name = WriteMarkers.fileName(location);
    return name.startsWith(".") || name.startsWith(WriteMarkers.PREFIX);
  }

  @Override
  public InputFile newInputFile(String location) {
    alive();
    return super.newInputFile(location);
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    alive();
    return super.newInputFile(location, length);
  }

  @Override
  public OutputFile newOutputFile(String location) {
    alive();
    OutputFile file = super.newOutputFile(location);
    return new OutputFile() {
      @Override
      public String location() {
        return file.location();
      }

      @Override
      public OutputStream create() throws IOException {
        alive();
        return watch(location, file.create());
      }

      @Override
      public OutputStream createOrOverwrite() throws IOException {
        alive();
        return watch(location, file.createOrOverwrite());
      }

      @Override
      public InputFile toInputFile() {
        return file.toInputFile();
      }
    };
  }

  private OutputStream watch(String location, OutputStream out) {
    boolean stats = location.endsWith(".stats");
    return new FilterOutputStream(out) {
      private boolean closed;

      @Override
      public void write(int b) throws IOException {
        alive();
        out.write(b);
        if (stats) {
          event(CrashPoint.DURING_STATS_WRITE);
        }
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        alive();
        out.write(b, off, len);
        if (stats) {
          event(CrashPoint.DURING_STATS_WRITE);
        }
      }

      @Override
      public void close() throws IOException {
        if (closed) {
          return;
        }
        alive();
        closed = true;
        out.close();
        log.add("W", location);
        CrashPoint at = pointOfWrite(location);
        if (at != null) {
          event(at);
        }
      }
    };
  }

  @Override
  public boolean deleteFile(String location) throws IOException {
    alive();
    boolean existed = super.deleteFile(location);
    if (existed) {
      log.add("D", location);
    }
    String name = WriteMarkers.fileName(location);
    if (name.equals(".version-hint.text.crc")) {
      event(CrashPoint.AFTER_OLD_HINT_DELETE);
    } else if (name.matches("v\\d+\\.metadata\\.json")) {
      event(CrashPoint.DURING_OLD_METADATA_CLEANUP);
    } else if (!isTemporary(location)) {
      event(CrashPoint.DURING_EXPIRE_DELETES);
      event(CrashPoint.DURING_ORPHAN_DELETES);
      if (name.endsWith(".avro")) {
        event(CrashPoint.DURING_ABORT_CLEANUP);
      }
    }
    return existed;
  }

  @Override
  public void publishIfAbsent(String source, String target) throws IOException {
    alive();
    Runnable hook;
    synchronized (this) {
      hook = beforePublish;
      beforePublish = null;
    }
    if (hook != null) {
      hook.run();
    }
    event(CrashPoint.MID_PUBLISH);
    super.publishIfAbsent(source, target);
    event(CrashPoint.AFTER_PUBLISH_BEFORE_ACK);
  }

  @Override
  public void replace(String source, String target) throws IOException {
    alive();
    super.replace(source, target);
    event(CrashPoint.AFTER_HINT_REPLACE);
  }

  @Override
  public boolean exists(String location) throws IOException {
    alive();
    return super.exists(location);
  }

  @Override
  public boolean fileExists(String location) throws IOException {
    alive();
    return super.exists(location);
  }

  @Override
  public List<String> listFileNames(String directory) throws IOException {
    alive();
    return super.listFileNames(directory);
  }

  @Override
  public List<FileInfo> listRecursively(String directory) throws IOException {
    alive();
    return super.listRecursively(directory);
  }

  @Override
  public void mkdirs(String directory) throws IOException {
    alive();
    super.mkdirs(directory);
  }
}
