package io.floe.format.maintenance;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.ForwardingTableOperations;
import io.floe.format.commit.TableOperations;
import io.floe.format.commit.ValidationException;
import io.floe.format.io.FileIO;
import io.floe.format.io.FileInfo;
import io.floe.format.io.ForwardingFileIO;
import io.floe.format.io.LocalFileIO;
import io.floe.format.io.WriteMarkers;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.Metrics;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.scan.TableScan;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Orphan removal while writes and commits are in flight: files named by an operation whose
 * in-flight marker exists after the listing are kept, reachability is re-checked against the
 * latest metadata, a commit's own manifests are kept while it runs, and a commit whose added files
 * are gone fails instead of publishing them.
 */
public class TestOrphanFilesDuringWrites {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final long OLD = System.currentTimeMillis() - TimeUnit.DAYS.toMillis(10);

  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemCatalog catalog;
  private TableIdentifier ident;
  private FileSystemTableOperations ops;
  private Path tableDir;

  @Before
  public void createTable() {
    catalog = new FileSystemCatalog(new LocalFileIO(), "file://" + temp.getRoot().getAbsolutePath());
    catalog.createNamespace(List.of("db"), Map.of());
    ident = TableIdentifier.of(List.of("db"), "t");
    ops = catalog.createTable(ident, TableMetadata.newTableMetadata(SCHEMA, PartitionSpec.unpartitioned(),
        SortOrder.unsorted(), catalog.tableLocation(ident), Map.of(), 2));
    tableDir = Paths.get(temp.getRoot().getAbsolutePath(), "db", "t");
  }

  /** A data file of operation {@code operationId} as the Spark writers name them, written an hour ago. */
  private DataFile writtenBy(String operationId) throws IOException {
    return writtenBy(operationId, System.currentTimeMillis() - TimeUnit.HOURS.toMillis(1));
  }

  private DataFile writtenBy(String operationId, long modifiedMillis) throws IOException {
    String name = "00000-3-" + operationId + "-00001.parquet";
    Path local = tableDir.resolve("data").resolve(name);
    Files.createDirectories(local.getParent());
    Files.write(local, new byte[] {1, 2, 3});
    Files.setLastModifiedTime(local, FileTime.fromMillis(modifiedMillis));
    return DataFile.builder(PartitionSpec.unpartitioned()).withPath(ops.current().location() + "/data/" + name)
        .withFormat(FileFormat.PARQUET).withRecordCount(1).withFileSizeInBytes(3).withMetrics(Metrics.empty(1))
        .build();
  }

  private Path marker(String operationId) throws IOException {
    Path marker = tableDir.resolve("data").resolve(WriteMarkers.PREFIX + operationId);
    Files.createDirectories(marker.getParent());
    Files.write(marker, new byte[0]);
    return marker;
  }

  private static Path local(String location) {
    return Paths.get(location.replaceFirst("^file:(//)?", ""));
  }

  private OrphanFiles removeEverythingUnreachable(TableOperations table) {
    return OrphanFiles.of(table).olderThan(System.currentTimeMillis() + 60_000).allowShortInterval(true);
  }

  @Test
  public void filesOfAWriteWhoseMarkerExistsAreKept() throws IOException {
    String writing = UUID.randomUUID().toString();
    String finished = UUID.randomUUID().toString();
    DataFile inFlight = writtenBy(writing);
    DataFile leftOver = writtenBy(finished);
    marker(writing);

    List<String> removed = removeEverythingUnreachable(ops).execute();

    assertEquals(List.of(leftOver.path()), removed);
    assertTrue(Files.exists(local(inFlight.path())));
    assertFalse(Files.exists(local(leftOver.path())));
  }

  @Test
  public void aMarkerCreatedWhileListingStillProtects() throws IOException {
    String writing = UUID.randomUUID().toString();
    DataFile inFlight = writtenBy(writing);
    FileIO io = new ForwardingFileIO(new LocalFileIO()) {
      @Override
      public List<FileInfo> listRecursively(String directory) throws IOException {
        List<FileInfo> listed = super.listRecursively(directory);
        marker(writing); // the writer starts its marker after the listing saw its file's folder
        return listed;
      }
    };
    TableOperations table = new FileSystemTableOperations(io, catalog.tableLocation(ident), "db.t");

    assertEquals(List.of(), removeEverythingUnreachable(table).execute());
    assertTrue(Files.exists(local(inFlight.path())));
  }

  @Test
  public void abandonedMarkersProtectNothingAndAreRemoved() throws IOException {
    String crashed = UUID.randomUUID().toString();
    Path marker = marker(crashed);
    Files.setLastModifiedTime(marker, FileTime.fromMillis(OLD));
    DataFile file = writtenBy(crashed, OLD);

    List<String> removed = OrphanFiles.of(ops).execute(); // default: older than three days

    assertEquals(2, removed.size());
    assertFalse(Files.exists(local(file.path())));
    assertFalse(Files.exists(marker));
  }

  @Test
  public void aRecentMarkerOfACrashedWriteKeepsItsFilesUntilItIsOld() throws IOException {
    String crashed = UUID.randomUUID().toString();
    long twoDaysAgo = System.currentTimeMillis() - TimeUnit.DAYS.toMillis(2);
    Path marker = marker(crashed);
    Files.setLastModifiedTime(marker, FileTime.fromMillis(twoDaysAgo));
    DataFile file = writtenBy(crashed, twoDaysAgo);
    String other = writtenBy(UUID.randomUUID().toString(), twoDaysAgo).path();

    List<String> removed = OrphanFiles.of(ops).olderThan(System.currentTimeMillis() - TimeUnit.HOURS.toMillis(25))
        .execute();

    assertEquals(List.of(other), removed);
    assertTrue(Files.exists(local(file.path())));
    assertTrue(Files.exists(marker));
  }

  @Test
  public void aFileListedBeforeACommitThatReferencesItIsKept() throws IOException {
    DataFile file = writtenBy(UUID.randomUUID().toString()); // a writer that leaves no marker
    FileIO io = new ForwardingFileIO(new LocalFileIO()) {
      @Override
      public List<FileInfo> listRecursively(String directory) throws IOException {
        List<FileInfo> listed = super.listRecursively(directory);
        new AppendFiles(ops).appendFile(file).commit(); // commits after the listing saw the file
        return listed;
      }
    };
    TableOperations table = new FileSystemTableOperations(io, catalog.tableLocation(ident), "db.t");

    List<String> removed = removeEverythingUnreachable(table).execute();

    assertFalse("removed " + removed, removed.contains(file.path()));
    assertTrue(Files.exists(local(file.path())));
    assertEquals(1, TableScan.of(ops.io(), ops.refresh()).planFiles().tasks().size());
  }

  @Test
  public void theManifestsOfACommitInFlightAreKept() throws IOException {
    String writing = UUID.randomUUID().toString();
    DataFile file = writtenBy(writing);
    marker(writing);
    TableOperations committing = new ForwardingTableOperations(ops) {
      @Override
      public void commit(TableMetadata base, TableMetadata updated) {
        // orphan removal runs after the commit wrote its manifests and before it publishes them
        removeEverythingUnreachable(ops).execute();
        super.commit(base, updated);
      }
    };

    new AppendFiles(committing).appendFile(file).validateAddedFilesExist().commit();

    TableMetadata after = ops.refresh();
    assertTrue(Files.exists(local(after.currentSnapshot().manifestListLocation())));
    assertEquals(List.of(file.path()), TableScan.of(ops.io(), after).planFiles().tasks().stream()
        .map(t -> t.file().path()).toList());
    assertEquals("the commit's marker is gone", List.of(), markersIn(tableDir.resolve("metadata")));
  }

  @Test
  public void aCommitWhoseAddedFileIsGoneFailsAndLeavesTheTable() throws IOException {
    DataFile kept = writtenBy(UUID.randomUUID().toString());
    new AppendFiles(ops).appendFile(kept).validateAddedFilesExist().commit();
    TableMetadata before = ops.refresh();
    DataFile gone = writtenBy(UUID.randomUUID().toString());
    Files.delete(local(gone.path()));

    ValidationException e = assertThrows(ValidationException.class,
        () -> new AppendFiles(ops).appendFile(gone).validateAddedFilesExist().commit());

    assertTrue(e.getMessage(), e.getMessage().contains(gone.path()));
    assertTrue(e.getMessage(), e.getMessage().contains("db.t"));
    assertEquals(before.metadataFileLocation(), ops.refresh().metadataFileLocation());
    assertEquals(List.of(), markersIn(tableDir.resolve("metadata")));
  }

  private static List<Path> markersIn(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().startsWith(WriteMarkers.PREFIX)).toList();
    }
  }
}
