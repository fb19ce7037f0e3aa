package io.floe.format.commit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.io.ForwardingFileIO;
import io.floe.format.io.LocalFileIO;
import io.floe.format.metadata.TableMetadata;
import java.io.IOException;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A publish that reports an error and finds no version may still land later: an HDFS rename queued
 * at a NameNode whose answer the client gave up on. The commit removes its temporary file to fence
 * it, and only a delete that removed the file makes the commit a failure.
 */
public class TestLatePublish {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  /** Local IO whose publish fails without effect, its rename carried out at the next delete of the source. */
  static final class QueuedPublishFileIO extends ForwardingFileIO {
    volatile boolean queueNextPublish = false;
    volatile boolean failDeletes = false;
    /** Whether the queued rename reaches the server before the delete of its source (else after). */
    volatile boolean renameBeforeDelete = true;
    private String queuedSource;
    private String queuedTarget;

    QueuedPublishFileIO() {
      super(new LocalFileIO());
    }

    @Override
    public void publishIfAbsent(String source, String target) throws IOException {
      if (queueNextPublish) {
        queueNextPublish = false;
        queuedSource = source;
        queuedTarget = target;
        throw new IOException("call timed out (injected): the server still has it queued");
      }
      super.publishIfAbsent(source, target);
    }

    @Override
    public boolean deleteFile(String location) throws IOException {
      if (failDeletes) {
        throw new IOException("server unreachable (injected)");
      }
      if (location.equals(queuedSource) && renameBeforeDelete) {
        // the queued rename runs first: the source becomes the target
        super.publishIfAbsent(queuedSource, queuedTarget);
        super.deleteFile(queuedSource);
        queuedSource = null;
      }
      return super.deleteFile(location);
    }
  }

  @Test
  public void publishThatLandsBeforeTheFenceIsCommitted() {
    QueuedPublishFileIO io = new QueuedPublishFileIO();
    FileSystemCatalog catalog = CommitFixtures.catalog(io, temp.getRoot().toPath());
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of());
    TableMetadata base = ops.refresh();
    TableMetadata updated = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(base, "eu", 1)).apply(base);
    io.queueNextPublish = true;
    ops.commit(base, updated);
    assertEquals("the late rename landed the commit", 2, ops.currentVersion());
    TableMetadata reloaded = ops.refresh();
    assertEquals(2, ops.currentVersion());
    assertEquals(updated.currentSnapshot().snapshotId(), reloaded.currentSnapshot().snapshotId());
  }

  @Test
  public void publishFencedByTheDeleteIsAFailure() {
    QueuedPublishFileIO io = new QueuedPublishFileIO();
    FileSystemCatalog catalog = CommitFixtures.catalog(io, temp.getRoot().toPath());
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of());
    TableMetadata base = ops.refresh();
    TableMetadata updated = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(base, "eu", 1)).apply(base);
    io.queueNextPublish = true;
    io.renameBeforeDelete = false;
    try {
      ops.commit(base, updated);
      fail("a publish whose source was removed cannot land");
    } catch (CommitFailedException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains("publishing"));
    }
    ops.refresh();
    assertEquals(1, ops.currentVersion());
    assertTrue(java.nio.file.Files.notExists(temp.getRoot().toPath().resolve("db/t/metadata/v2.metadata.json")));
  }

  @Test
  public void publishThatCannotBeFencedHasAnUnknownOutcome() {
    QueuedPublishFileIO io = new QueuedPublishFileIO();
    FileSystemCatalog catalog = CommitFixtures.catalog(io, temp.getRoot().toPath());
    FileSystemTableOperations ops = CommitFixtures.create(catalog, "t", Map.of());
    TableMetadata base = ops.refresh();
    TableMetadata updated = new AppendFiles(ops).appendFile(CommitFixtures.dataFile(base, "eu", 1)).apply(base);
    io.queueNextPublish = true;
    io.failDeletes = true;
    try {
      ops.commit(base, updated);
      fail("a publish that may still land is not a failure");
    } catch (CommitStateUnknownException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains("could not be removed"));
    }
  }
}
