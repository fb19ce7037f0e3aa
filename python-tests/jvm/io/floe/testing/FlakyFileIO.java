package io.floe.testing;

import io.floe.format.io.FileIO;
import io.floe.format.io.ForwardingFileIO;
import io.floe.format.io.InputFile;
import io.floe.format.io.OutputFile;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A FileIO whose named operations fail with probability {@code p} (Delta's fault-injecting log
 * stores use 0.10): a write (the file is written, its close reports an error), the probe for a
 * version file, a delete, the hint's replace, and the publish of a new version, which fails either before it
 * happens or after it happened ("the write succeeded but an error came back": an IOException, a
 * FileAlreadyExistsException as from a retried rename, or an unchecked exception as a storage SDK
 * throws). Records the files written and deleted since {@link #startAttempt}.
 */
public final class FlakyFileIO extends ForwardingFileIO {
  private final Random random;
  private final double p;
  private boolean enabled;
  private final Map<String, Integer> injected = new TreeMap<>();
  private final List<String> written = new ArrayList<>();
  private final List<String> deleted = new ArrayList<>();

  public FlakyFileIO(FileIO delegate, long seed, double p) {
    super(delegate);
    this.random = new Random(seed);
    this.p = p;
  }

  public synchronized void enable(boolean on) {
    this.enabled = on;
  }

  public synchronized void startAttempt() {
    written.clear();
    deleted.clear();
  }

  public synchronized List<String> written() {
    return List.copyOf(written);
  }

  public synchronized List<String> deleted() {
    return List.copyOf(deleted);
  }

  /** How many faults of each kind were injected. */
  public synchronized Map<String, Integer> injected() {
    return new TreeMap<>(injected);
  }

  private synchronized boolean fault(String kind) {
    if (!enabled || random.nextDouble() >= p) {
      return false;
    }
    injected.merge(kind, 1, Integer::sum);
    return true;
  }

  @Override
  public OutputFile newOutputFile(String location) {
    OutputFile file = super.newOutputFile(location);
    return new OutputFile() {
      @Override
      public String location() {
        return file.location();
      }

      @Override
      public OutputStream create() throws IOException {
        return watch(location, file.create());
      }

      @Override
      public OutputStream createOrOverwrite() throws IOException {
        return watch(location, file.createOrOverwrite());
      }

      @Override
      public InputFile toInputFile() {
        return file.toInputFile();
      }
    };
  }

  private OutputStream watch(String location, OutputStream out) {
    return new FilterOutputStream(out) {
      private boolean closed;

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
      }

      @Override
      public void close() throws IOException {
        if (closed) {
          return;
        }
        closed = true;
        out.close();
        synchronized (FlakyFileIO.this) {
          written.add(location);
        }
        if (fault("write")) {
          throw new IOException("injected fault: writing " + location + " failed");
        }
      }
    };
  }

  /** Probes for a version file (loading, and reading back an ambiguous publish) fail; other checks do not. */
  @Override
  public boolean fileExists(String location) throws IOException {
    if (location.endsWith(".metadata.json") && fault("version-probe")) {
      throw new IOException("injected fault: cannot check " + location);
    }
    return super.fileExists(location);
  }

  @Override
  public boolean deleteFile(String location) throws IOException {
    if (fault("delete")) {
      throw new IOException("injected fault: cannot delete " + location);
    }
    boolean existed = super.deleteFile(location);
    if (existed) {
      synchronized (this) {
        deleted.add(location);
      }
    }
    return existed;
  }

  @Override
  public void replace(String source, String target) throws IOException {
    if (fault("replace")) {
      throw new IOException("injected fault: cannot replace " + target);
    }
    super.replace(source, target);
  }

  @Override
  public void publishIfAbsent(String source, String target) throws IOException {
    if (fault("publish-failed")) {
      throw new IOException("injected fault: publishing " + target + " failed");
    }
    super.publishIfAbsent(source, target);
    if (fault("publish-landed-io-error")) {
      throw new IOException("injected fault: " + target + " was published but the call timed out");
    } else if (fault("publish-landed-already-exists")) {
      throw new FileAlreadyExistsException(target, null, "injected fault: a retried rename found its own target");
    } else if (fault("publish-landed-unchecked")) {
      throw new UncheckedIOException(new IOException("injected fault: " + target + " was published but the "
          + "storage client threw"));
    }
  }
}
