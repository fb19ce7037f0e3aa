package io.floe.format.index;

import static org.junit.Assert.assertEquals;

import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.metadata.TableMetadata;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** expire_snapshots deletes only index files that no retained metadata's index list names. */
public class TestIndexFileCleanup {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemTableOperations table() {
    return IndexFixtures.newTable(temp.getRoot());
  }

  private String segmentFile(FileSystemTableOperations ops) throws IOException {
    String location = IndexLocations.newSegment(ops.metadataRoot() + "/metadata", "a");
    File file = new File(location.replaceFirst("^file:(//)?", ""));
    file.getParentFile().mkdirs();
    Files.write(file.toPath(), new byte[] {1, 2, 3});
    return location;
  }

  private static IndexSegment segment(String path) {
    return new IndexSegment(path, 3, 0, 0, 1, 1);
  }

  @Test
  public void deletesOnlyFilesNoRetainedIndexListNames() throws IOException {
    FileSystemTableOperations ops = table();
    String first = segmentFile(ops);
    IndexListCommit.commit(ops, "db.t", (current, base) -> IndexList.buildFrom(current)
        .add(TableIndex.builder("a", IndexType.INVERTED, 1).addSegment(segment(first)).build()).build());
    String second = segmentFile(ops);
    IndexListCommit.commit(ops, "db.t", (current, base) -> IndexList.buildFrom(current)
        .replace(TableIndex.builder("a", IndexType.INVERTED, 1).addSegment(segment(second)).build()).build());
    String orphan = segmentFile(ops);
    String folder = ops.metadataRoot() + "/metadata";
    TableMetadata current = ops.refresh();
    long future = System.currentTimeMillis() + 60_000;

    // the first segment is still named by the previous metadata's index list: kept
    assertEquals(List.of(orphan), IndexFileCleanup.unreferenced(ops.io(), "db.t", folder, current, future));
    // files newer than the cut-off (a build in flight) are never taken
    assertEquals(List.of(), IndexFileCleanup.unreferenced(ops.io(), "db.t", folder, current, 0));

    // once the previous metadata files are gone, the first segment and the first list go too
    for (var entry : current.previousFiles()) {
      ops.io().deleteFile(entry.file());
    }
    List<String> deleted = IndexFileCleanup.unreferenced(ops.io(), "db.t", folder, current, future);
    assertEquals(3, deleted.size());
    assertEquals(true, deleted.contains(orphan) && deleted.contains(first));
  }
}
