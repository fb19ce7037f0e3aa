package io.floe.testing;

import io.floe.format.io.FileIO;
import io.floe.format.io.ForwardingFileIO;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;

/**
 * The commit storm's negative control (docs/reliability.md, R1c): a publisher that checks whether
 * the version file exists and then renames over it, with a window between the two. Two writers that
 * both pass the check both "win", the later rename overwrites the earlier version and its commit
 * is lost, which the storm's oracle must report. Never a way to publish: this is the bug the
 * product's {@code publishIfAbsent} (a hard link, a no-overwrite rename, a conditional create)
 * rules out.
 */
public final class CheckThenRenameFileIO extends ForwardingFileIO {
  private final long windowMillis;

  public CheckThenRenameFileIO(FileIO delegate, long windowMillis) {
    super(delegate);
    this.windowMillis = windowMillis;
  }

  @Override
  public void publishIfAbsent(String source, String target) throws IOException {
    if (exists(target)) {
      throw new FileAlreadyExistsException(target);
    }
    try {
      Thread.sleep(windowMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted between the check and the rename of " + target, e);
    }
    replace(source, target);
  }

  /** Never a conditional create: every publish goes through the check-then-rename above. */
  @Override
  public boolean createsIfAbsent(String location) {
    return false;
  }
}
