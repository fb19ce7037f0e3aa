package io.floe.format.catalog;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.CommitStateUnknownException;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.RowDelta;
import io.floe.format.deletes.DeletionVector;
import io.floe.format.deletes.DeletionVectorWriter;
import io.floe.format.deletes.PositionDeleteRewriter;
import io.floe.format.deletes.RoaringPositionBitmap;
import io.floe.format.io.FileIO;
import io.floe.format.io.ForwardingFileIO;
import io.floe.format.io.InputFile;
import io.floe.format.io.LocalFileIO;
import io.floe.format.io.OutputFile;
import io.floe.format.manifest.ContentFiles;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.manifest.Metrics;
import io.floe.format.metadata.PartitionStatisticsFile;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.puffin.BlobMetadata;
import io.floe.format.puffin.Puffin;
import io.floe.format.puffin.StandardPuffinProperties;
import io.floe.format.scan.FileScanTask;
import io.floe.format.scan.TableScan;
import io.floe.format.types.Conversions;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * ALTER TABLE RENAME in the format layer: deletion vectors are copied with moved
 * {@code referenced-data-file} properties and re-pointed offsets; position delete files go through
 * the engine's rewriter once each; every other path moves; entries keep their status; and a
 * rename that fails at any step (fault injection through the FileIO) leaves the table, its
 * metadata and its folder exactly as they were.
 */
public class TestRenameTable {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final TableIdentifier FROM = TableIdentifier.of(List.of("db"), "t");
  private static final TableIdentifier TO = TableIdentifier.of(List.of("db"), "renamed");

  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private FileSystemCatalog catalog(FileIO io) {
    FileSystemCatalog catalog = new FileSystemCatalog(io, "file://" + temp.getRoot().getAbsolutePath());
    if (!catalog.namespaceExists(List.of("db"))) {
      catalog.createNamespace(List.of("db"), Map.of());
    }
    return catalog;
  }

  private static FileSystemTableOperations create(FileSystemCatalog catalog, String location, int formatVersion) {
    TableMetadata metadata = TableMetadata.newTableMetadata(SCHEMA, PartitionSpec.unpartitioned(),
        SortOrder.unsorted(), location, Map.of(), formatVersion);
    return catalog.createTable(FROM, metadata);
  }

  private static DataFile dataFile(TableMetadata metadata, String name) {
    return DataFile.builder(metadata.spec()).withPath(metadata.location() + "/data/" + name + ".parquet")
        .withFormat(FileFormat.PARQUET).withPartition(PartitionData.empty()).withRecordCount(10)
        .withFileSizeInBytes(100).withMetrics(Metrics.empty(10)).build();
  }

  private static RoaringPositionBitmap positions(long... values) {
    RoaringPositionBitmap bitmap = new RoaringPositionBitmap();
    for (long v : values) {
      bitmap.add(v);
    }
    return bitmap;
  }

  /** Snapshot 1 appends f and g, 2 adds their deletion vectors (one Puffin file), 3 appends h. */
  private FileSystemTableOperations tableWithDeletionVectors(FileSystemCatalog catalog) {
    return tableWithDeletionVectors(catalog, catalog.tableLocation(FROM) + "/data/dv-1.puffin");
  }

  private FileSystemTableOperations tableWithDeletionVectors(FileSystemCatalog catalog, String puffinLocation) {
    FileSystemTableOperations ops = create(catalog, catalog.tableLocation(FROM), 3);
    TableMetadata base = ops.refresh();
    DataFile f = dataFile(base, "f");
    DataFile g = dataFile(base, "g");
    new AppendFiles(ops).appendFile(f).appendFile(g).commit();
    List<DeleteFile> vectors;
    try (DeletionVectorWriter writer = new DeletionVectorWriter(
        ops.io().newOutputFile(puffinLocation), "test")) {
      writer.add(f, base.spec(), positions(1, 3));
      writer.add(g, base.spec(), positions(0));
      vectors = writer.finish();
    }
    RowDelta delta = new RowDelta(ops);
    vectors.forEach(delta::addDeletes);
    delta.commit();
    new AppendFiles(ops).appendFile(dataFile(base, "h")).commit();
    return ops;
  }

  private static List<FileScanTask> tasks(FileSystemTableOperations ops, Snapshot snapshot) {
    TableMetadata metadata = ops.current();
    List<FileScanTask> tasks = new ArrayList<>(TableScan.of(ops.io(), metadata).useSnapshot(snapshot)
        .planFiles().tasks());
    tasks.sort((a, b) -> a.file().path().compareTo(b.file().path()));
    return tasks;
  }

  private List<String> filesUnder(String root) throws IOException {
    Path dir = LocalFileIO.toPath(root);
    if (!Files.exists(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).map(p -> dir.relativize(p).toString()).sorted()
          .collect(Collectors.toList());
    }
  }

  @Test
  public void deletionVectorsAreCopiedWithMovedReferences() throws Exception {
    FileSystemCatalog catalog = catalog(new LocalFileIO());
    tableWithDeletionVectors(catalog);
    String oldRoot = catalog.tableLocation(FROM);
    String newRoot = catalog.tableLocation(TO);

    catalog.renameTable(FROM, TO);

    FileSystemTableOperations moved = catalog.loadTable(TO);
    TableMetadata metadata = moved.current();
    assertEquals(newRoot, metadata.location());
    assertEquals(3, metadata.snapshots().size());
    String puffin = null;
    for (Snapshot snapshot : metadata.snapshots().subList(1, 3)) {
      List<FileScanTask> tasks = tasks(moved, snapshot);
      for (FileScanTask task : tasks) {
        assertTrue(task.file().path(), task.file().path().startsWith(newRoot + "/data/"));
        if (task.file().path().endsWith("/h.parquet")) {
          assertEquals(List.of(), task.deletes());
          continue;
        }
        assertEquals(1, task.deletes().size());
        DeleteFile dv = task.deletes().get(0);
        assertTrue(ContentFiles.isDeletionVector(dv));
        assertEquals(task.file().path(), dv.referencedDataFile());
        assertTrue("one copy of the Puffin file for every snapshot", puffin == null || puffin.equals(dv.path()));
        puffin = dv.path();
        assertTrue(puffin, puffin.startsWith(newRoot + "/data/dv-1-r") && puffin.endsWith(".puffin"));
        assertEquals(Files.size(LocalFileIO.toPath(puffin)), dv.fileSizeInBytes());
        DeletionVector vector = DeletionVector.read(moved.io().newInputFile(puffin), dv.contentOffset(),
            dv.contentSizeInBytes(), dv.recordCount());
        RoaringPositionBitmap expected = task.file().path().endsWith("/f.parquet") ? positions(1, 3) : positions(0);
        assertEquals(expected.cardinality(), vector.cardinality());
        expected.forEach(p -> assertTrue(vector.isDeleted(p)));
      }
    }
    Map<String, String> referenced = new TreeMap<>();
    for (BlobMetadata blob : Puffin.read(moved.io().newInputFile(puffin)).build().fileMetadata().blobs()) {
      referenced.put(blob.properties().get(StandardPuffinProperties.REFERENCED_DATA_FILE),
          blob.properties().get(StandardPuffinProperties.CARDINALITY));
    }
    assertEquals(Map.of(newRoot + "/data/f.parquet", "2", newRoot + "/data/g.parquet", "1"), referenced);
    // the moved original still names the old paths, and nothing references it any more
    String original = newRoot + "/data/dv-1.puffin";
    assertNotEquals(original, puffin);
    assertEquals(oldRoot + "/data/f.parquet", Puffin.read(moved.io().newInputFile(original)).build()
        .fileMetadata().blobs().get(0).properties().get(StandardPuffinProperties.REFERENCED_DATA_FILE));
    assertTrue(metadata.previousFiles().isEmpty());
  }

  @Test
  public void deleteFilesOutsideTheFolderAreRewrittenInsideIt() throws Exception {
    FileSystemCatalog catalog = catalog(new LocalFileIO());
    String elsewhere = "file://" + temp.newFolder("elsewhere").getAbsolutePath();
    tableWithDeletionVectors(catalog, elsewhere + "/dv-1.puffin");
    catalog.renameTable(FROM, TO);
    String newRoot = catalog.tableLocation(TO);
    FileSystemTableOperations moved = catalog.loadTable(TO);
    for (FileScanTask task : tasks(moved, moved.current().currentSnapshot())) {
      for (DeleteFile dv : task.deletes()) {
        assertTrue(dv.path(), dv.path().startsWith(newRoot + "/data/dv-1-r"));
      }
    }
    assertEquals("nothing new is written where another table may own the folder", List.of("dv-1.puffin"),
        filesUnder(elsewhere));
  }

  @Test
  public void entriesKeepTheirStatusSnapshotAndSequenceNumbers() {
    FileSystemCatalog catalog = catalog(new LocalFileIO());
    FileSystemTableOperations ops = tableWithDeletionVectors(catalog);
    Map<String, List<String>> before = entries(ops);

    catalog.renameTable(FROM, TO);

    Map<String, List<String>> after = entries(catalog.loadTable(TO));
    assertEquals(before.keySet(), after.keySet());
    before.forEach((snapshot, list) -> assertEquals(snapshot, list, after.get(snapshot)));
    assertTrue(before.values().stream().flatMap(List::stream).anyMatch(e -> e.startsWith("ADDED")));
  }

  /** Per snapshot id: status, snapshot id, sequence numbers and file name of every entry. */
  private static Map<String, List<String>> entries(FileSystemTableOperations ops) {
    TableMetadata metadata = ops.current();
    Map<String, List<String>> out = new TreeMap<>();
    for (Snapshot s : metadata.snapshots()) {
      List<String> entries = new ArrayList<>();
      for (ManifestFile m : ManifestLists.read(ops.io().newInputFile(s.manifestListLocation()))) {
        for (ManifestEntry<?> e : ManifestReader.read(ops.io().newInputFile(m.path()), m, metadata.specsById())) {
          String name = e.file().path().substring(e.file().path().lastIndexOf('/') + 1).replaceAll("-r[-0-9a-f]{36}", "");
          entries.add(e.status() + " " + e.snapshotId() + " " + e.dataSequenceNumber() + " "
              + e.fileSequenceNumber() + " " + name + " " + m.content() + " " + m.sequenceNumber());
        }
      }
      entries.sort(null);
      out.put(Long.toString(s.snapshotId()), entries);
    }
    return out;
  }

  /**
   * An engine's rewriter, standing in for Parquet: "delete files" are text lines
   * {@code path<TAB>pos}; it records what it was asked to rewrite.
   */
  private static final class TextRewriter implements PositionDeleteRewriter {
    private final FileIO io = new LocalFileIO();
    private final List<String> calls = new ArrayList<>();

    @Override
    public DeleteFile rewrite(DeleteFile source, PartitionSpec spec, String target, UnaryOperator<String> paths,
        Map<String, String> tableProperties) {
      calls.add(source.path());
      List<String> lines = new ArrayList<>();
      TreeSet<String> named = new TreeSet<>();
      try (InputStream in = io.newInputFile(source.path()).newStream()) {
        for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
          String[] parts = line.split("\t");
          String path = paths.apply(parts[0]);
          named.add(path);
          lines.add(path + "\t" + parts[1]);
        }
        lines.sort(null);
        byte[] bytes = (String.join("\n", lines)).getBytes(StandardCharsets.UTF_8);
        try (OutputStream out = io.newOutputFile(target).create()) {
          out.write(bytes);
        }
        Map<Integer, ByteBuffer> lower = Map.of(ContentFiles.DELETE_FILE_PATH_ID,
            Conversions.toByteBuffer(Types.StringType.get(), named.first()));
        Map<Integer, ByteBuffer> upper = Map.of(ContentFiles.DELETE_FILE_PATH_ID,
            Conversions.toByteBuffer(Types.StringType.get(), named.last()));
        return DeleteFile.builder(spec).copy(source).withPath(target).withFileSizeInBytes(bytes.length)
            .withMetrics(new Metrics((long) lines.size(), null, null, null, null, lower, upper))
            .withReferencedDataFile(paths.apply(source.referencedDataFile())).build();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }

  private static DeleteFile textDeletes(FileIO io, TableMetadata metadata, String name, String referenced,
      String... rows) throws IOException {
    String path = metadata.location() + "/data/" + name;
    byte[] bytes = String.join("\n", rows).getBytes(StandardCharsets.UTF_8);
    try (OutputStream out = io.newOutputFile(path).create()) {
      out.write(bytes);
    }
    TreeSet<String> named = new TreeSet<>();
    for (String row : rows) {
      named.add(row.split("\t")[0]);
    }
    Map<Integer, ByteBuffer> lower = Map.of(ContentFiles.DELETE_FILE_PATH_ID,
        Conversions.toByteBuffer(Types.StringType.get(), named.first()));
    Map<Integer, ByteBuffer> upper = Map.of(ContentFiles.DELETE_FILE_PATH_ID,
        Conversions.toByteBuffer(Types.StringType.get(), named.last()));
    return DeleteFile.builder(metadata.spec()).withContent(FileContent.POSITION_DELETES).withPath(path)
        .withFormat(FileFormat.PARQUET).withPartition(PartitionData.empty()).withRecordCount(rows.length)
        .withFileSizeInBytes(bytes.length).withMetrics(new Metrics((long) rows.length, null, null, null, null,
            lower, upper))
        .withReferencedDataFile(referenced).build();
  }

  /**
   * Snapshot 1 appends f and g; 2 adds a delete file for f and one for f and g (no
   * referenced_data_file), and an equality delete file; 3 replaces f's delete file by a new one.
   */
  private FileSystemTableOperations tableWithPositionDeletes(FileSystemCatalog catalog, String location)
      throws IOException {
    FileSystemTableOperations ops = create(catalog, location, 2);
    TableMetadata base = ops.refresh();
    DataFile f = dataFile(base, "f");
    DataFile g = dataFile(base, "g");
    new AppendFiles(ops).appendFile(f).appendFile(g).commit();
    DeleteFile first = textDeletes(ops.io(), base, "d1.parquet", f.path(), f.path() + "\t1");
    DeleteFile both = textDeletes(ops.io(), base, "d2.parquet", null, f.path() + "\t2", g.path() + "\t5");
    DeleteFile equality = DeleteFile.builder(base.spec()).withContent(FileContent.EQUALITY_DELETES)
        .withPath(base.location() + "/data/eq.parquet").withFormat(FileFormat.PARQUET)
        .withPartition(PartitionData.empty()).withRecordCount(1).withFileSizeInBytes(10)
        .withMetrics(Metrics.empty(1)).withEqualityFieldIds(List.of(1)).build();
    new RowDelta(ops).addDeletes(first).addDeletes(both).addDeletes(equality).commit();
    DeleteFile replacement = textDeletes(ops.io(), base, "d3.parquet", f.path(), f.path() + "\t1", f.path() + "\t7");
    new RowDelta(ops).removeDeletes(first).addDeletes(replacement).commit();
    return ops;
  }

  private static String bound(Map<Integer, ByteBuffer> bounds) {
    return (String) Conversions.fromByteBuffer(Types.StringType.get(), bounds.get(ContentFiles.DELETE_FILE_PATH_ID));
  }

  @Test
  public void positionDeleteFilesAreRewrittenOnceEachWithMovedPaths() throws Exception {
    FileSystemCatalog catalog = catalog(new LocalFileIO());
    // written as Iceberg's Hadoop catalog spells local paths (file:/...), unlike the catalog (file:///...)
    String root = catalog.tableLocation(FROM);
    tableWithPositionDeletes(catalog, "file:" + root.substring("file://".length()));
    String newRoot = catalog.tableLocation(TO);
    TextRewriter rewriter = new TextRewriter();

    catalog.renameTable(FROM, TO, rewriter);

    assertEquals(3, rewriter.calls.size());
    assertEquals(3, new TreeSet<>(rewriter.calls).size());
    FileSystemTableOperations moved = catalog.loadTable(TO);
    TableMetadata metadata = moved.current();
    assertEquals(newRoot, metadata.location());
    Map<String, Integer> deleteFilesByName = new HashMap<>();
    for (Snapshot snapshot : metadata.snapshots()) {
      for (FileScanTask task : tasks(moved, snapshot)) {
        assertTrue(task.file().path(), task.file().path().startsWith(newRoot + "/data/"));
        for (DeleteFile d : task.deletes()) {
          assertTrue(d.path(), d.path().startsWith(newRoot + "/data/"));
          if (d.content() == FileContent.EQUALITY_DELETES) {
            assertEquals(newRoot + "/data/eq.parquet", d.path());
            continue;
          }
          assertTrue(d.path(), d.path().matches(".*/d[123]-r[-0-9a-f]{36}\\.parquet"));
          deleteFilesByName.merge(d.path(), 1, Integer::sum);
          String content = Files.readString(LocalFileIO.toPath(d.path()));
          for (String line : content.split("\n")) {
            assertTrue(line, line.startsWith(newRoot + "/data/"));
          }
          assertEquals(Files.size(LocalFileIO.toPath(d.path())), d.fileSizeInBytes());
          assertTrue(bound(d.lowerBounds()).startsWith(newRoot + "/data/"));
          assertTrue(bound(d.upperBounds()).startsWith(newRoot + "/data/"));
          if (d.referencedDataFile() != null) {
            assertEquals(task.file().path(), d.referencedDataFile());
            assertEquals(d.referencedDataFile(), bound(d.lowerBounds()));
          }
        }
      }
    }
    assertEquals(3, deleteFilesByName.size());
    // the DELETED entry of snapshot 3 names d1's copy too
    Snapshot last = metadata.currentSnapshot();
    List<String> deleted = new ArrayList<>();
    for (ManifestFile m : ManifestLists.read(moved.io().newInputFile(last.manifestListLocation()))) {
      for (ManifestEntry<?> e : ManifestReader.read(moved.io().newInputFile(m.path()), m, metadata.specsById())) {
        if (e.status() == ManifestEntry.Status.DELETED) {
          deleted.add(e.file().path());
        }
      }
    }
    assertEquals(1, deleted.size());
    assertTrue(deleted.get(0), deleted.get(0).matches(".*/d1-r[-0-9a-f]{36}\\.parquet") && deleted.get(0)
        .startsWith(newRoot + "/data/") && Files.exists(LocalFileIO.toPath(deleted.get(0))));
  }

  @Test
  public void withoutARewriterPositionDeletesFailTheRenameAndNothingChanges() throws Exception {
    FileSystemCatalog catalog = catalog(new LocalFileIO());
    FileSystemTableOperations ops = tableWithPositionDeletes(catalog, catalog.tableLocation(FROM));
    String before = ops.refresh().metadataFileLocation();
    List<String> files = filesUnder(catalog.tableLocation(FROM));

    CatalogException e = assertThrows(CatalogException.class, () -> catalog.renameTable(FROM, TO));

    assertEquals(CatalogException.Kind.RENAME_FAILED, e.kind());
    assertTrue(e.getMessage(), e.getMessage().contains("Cannot rename table db.t to db.renamed")
        && e.getMessage().contains("/data/d") && e.getMessage().contains("keeps its name db.t"));
    assertEquals(before, catalog.loadTable(FROM).current().metadataFileLocation());
    assertEquals(files, filesUnder(catalog.tableLocation(FROM)));
    assertFalse(catalog.tableExists(TO));
    assertEquals(List.of(), filesUnder(catalog.tableLocation(TO)));
  }

  /** A FileIO that fails one chosen step: the n-th file created, the folder move, or the publish. */
  private static final class FaultyIO extends ForwardingFileIO {
    private int creates = 0;
    private int failCreate = -1;
    private boolean failMove = false;
    private boolean failPublish = false;
    private String unknown = null;
    private Runnable beforeMove = null;

    FaultyIO() {
      super(new LocalFileIO());
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
          if (++creates == failCreate) {
            throw new IOException("injected failure creating " + location);
          }
          return file.create();
        }

        @Override
        public OutputStream createOrOverwrite() throws IOException {
          return file.createOrOverwrite();
        }

        @Override
        public InputFile toInputFile() {
          return file.toInputFile();
        }
      };
    }

    @Override
    public void renameDirectory(String source, String target) throws IOException {
      if (beforeMove != null) {
        Runnable hook = beforeMove;
        beforeMove = null;
        hook.run();
      }
      if (failMove) {
        failMove = false;
        throw new IOException("injected failure moving " + source);
      }
      super.renameDirectory(source, target);
    }

    @Override
    public boolean exists(String location) throws IOException {
      if (location.equals(unknown)) {
        throw new IOException("injected failure checking " + location);
      }
      return super.exists(location);
    }

    @Override
    public void publishIfAbsent(String source, String target) throws IOException {
      if (unknown != null && target.contains("/renamed/")) {
        unknown = target;
        super.publishIfAbsent(source, target);
        throw new IOException("injected failure after publishing " + target);
      }
      if (failPublish && target.contains("/renamed/")) {
        failPublish = false;
        throw new IOException("injected failure publishing " + target);
      }
      super.publishIfAbsent(source, target);
    }
  }

  private void assertUnchanged(FileSystemCatalog catalog, String metadataFile, List<String> files, String step)
      throws IOException {
    assertEquals(step, metadataFile, catalog.loadTable(FROM).current().metadataFileLocation());
    assertEquals(step, files, filesUnder(catalog.tableLocation(FROM)));
    assertFalse(step, catalog.tableExists(TO));
    assertEquals(step, List.of(), filesUnder(catalog.tableLocation(TO)));
  }

  @Test
  public void aFailureAtAnyStepLeavesTheTableAsItWas() throws Exception {
    FaultyIO io = new FaultyIO();
    FileSystemCatalog catalog = catalog(io);
    FileSystemTableOperations ops = tableWithDeletionVectors(catalog);
    String metadataFile = ops.refresh().metadataFileLocation();
    List<String> files = filesUnder(catalog.tableLocation(FROM));

    // every file the rename creates: manifests, manifest lists, the Puffin copy, then the commit's
    for (int n = 1; ; n++) {
      io.creates = 0;
      io.failCreate = n;
      try {
        catalog.renameTable(FROM, TO);
      } catch (CatalogException e) {
        assertEquals(CatalogException.Kind.RENAME_FAILED, e.kind());
        assertTrue(e.getMessage(), e.getMessage().contains("injected failure"));
        assertUnchanged(catalog, metadataFile, files, "failing create " + n);
        continue;
      }
      assertTrue("the rename creates several files", n > 5);
      break;
    }
    io.failCreate = -1;
    catalog.renameTable(TO, FROM);
    metadataFile = catalog.loadTable(FROM).current().metadataFileLocation();
    files = filesUnder(catalog.tableLocation(FROM));

    io.failMove = true;
    assertThrows(CatalogException.class, () -> catalog.renameTable(FROM, TO));
    assertUnchanged(catalog, metadataFile, files, "failing the folder move");

    io.failPublish = true;
    assertThrows(CatalogException.class, () -> catalog.renameTable(FROM, TO));
    assertUnchanged(catalog, metadataFile, files, "failing the commit");

    catalog.renameTable(FROM, TO);
    assertEquals(3, catalog.loadTable(TO).current().snapshots().size());
  }

  @Test
  public void anUnknownCommitOutcomeMovesNothingBackAndDeletesNothing() throws Exception {
    FaultyIO io = new FaultyIO();
    FileSystemCatalog catalog = catalog(io);
    tableWithDeletionVectors(catalog);
    io.unknown = "";

    assertThrows(CommitStateUnknownException.class, () -> catalog.renameTable(FROM, TO));

    io.unknown = null;
    assertFalse(catalog.tableExists(FROM));
    // the commit did land: the table is whole under its new name
    FileSystemTableOperations moved = catalog.loadTable(TO);
    assertEquals(catalog.tableLocation(TO), moved.current().location());
    for (Snapshot snapshot : moved.current().snapshots()) {
      for (FileScanTask task : tasks(moved, snapshot)) {
        for (DeleteFile d : task.deletes()) {
          assertTrue(d.path(), Files.exists(LocalFileIO.toPath(d.path())));
        }
      }
      assertTrue(Files.exists(LocalFileIO.toPath(snapshot.manifestListLocation())));
    }
  }

  @Test
  public void aCommitWhileFilesAreRewrittenFailsTheRenameAndIsKept() throws Exception {
    FaultyIO io = new FaultyIO();
    FileSystemCatalog catalog = catalog(io);
    FileSystemTableOperations ops = tableWithDeletionVectors(catalog);
    String root = catalog.tableLocation(FROM);
    List<String> files = filesUnder(root);
    io.beforeMove = () -> new AppendFiles(ops).appendFile(dataFile(ops.refresh(), "late")).commit();

    CatalogException e = assertThrows(CatalogException.class, () -> catalog.renameTable(FROM, TO));

    assertTrue(e.getMessage(), e.getMessage().contains("changed while its files were rewritten"));
    TableMetadata current = catalog.loadTable(FROM).current();
    assertEquals(4, current.snapshots().size());
    assertTrue(tasks(catalog.loadTable(FROM), current.currentSnapshot()).stream()
        .anyMatch(t -> t.file().path().endsWith("/late.parquet")));
    List<String> now = filesUnder(root);
    assertTrue(now.containsAll(files));
    assertTrue("the rename's files are gone: " + now, now.stream()
        .noneMatch(f -> f.contains("relocated-") || f.matches(".*-r[0-9a-f]{8}-.*")));
    assertFalse(catalog.tableExists(TO));
    assertEquals(List.of(), filesUnder(catalog.tableLocation(TO)));
  }

  @Test
  public void statisticsPartitionStatisticsAndPathPropertiesMove() {
    FileSystemCatalog catalog = catalog(new LocalFileIO());
    FileSystemTableOperations ops = tableWithDeletionVectors(catalog);
    TableMetadata base = ops.refresh();
    String oldRoot = base.location();
    long snapshot = base.currentSnapshot().snapshotId();
    TableMetadata updated = TableMetadata.buildFrom(base)
        .setProperties(Map.of("write.data.path", oldRoot + "/custom-data", "comment", oldRoot + "-not-below"))
        .setStatistics(new StatisticsFile(snapshot, oldRoot + "/metadata/stats-" + UUID.randomUUID() + ".stats",
            10, 5, null, List.of()))
        .setPartitionStatistics(new PartitionStatisticsFile(snapshot, oldRoot + "/metadata/partition-stats.parquet",
            20))
        .build();
    ops.commit(base, updated);

    catalog.renameTable(FROM, TO);

    TableMetadata moved = catalog.loadTable(TO).current();
    String newRoot = catalog.tableLocation(TO);
    assertEquals(newRoot + "/custom-data", moved.properties().get("write.data.path"));
    assertEquals(oldRoot + "-not-below", moved.properties().get("comment"));
    assertTrue(moved.statisticsFiles().get(0).path().startsWith(newRoot + "/metadata/stats-"));
    assertEquals(newRoot + "/metadata/partition-stats.parquet", moved.partitionStatisticsFiles().get(0).path());
  }
}
