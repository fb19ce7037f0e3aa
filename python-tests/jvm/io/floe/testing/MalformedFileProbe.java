package io.floe.testing;

import io.floe.format.FloeException;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.deletes.DeletionVector;
import io.floe.format.expr.Binder;
import io.floe.format.expr.Expression;
import io.floe.format.expr.Expressions;
import io.floe.format.index.IndexListFiles;
import io.floe.format.index.IndexListParser;
import io.floe.format.index.IndexSegment;
import io.floe.format.index.IndexSegmentReader;
import io.floe.format.index.TableIndex;
import io.floe.format.io.FileIO;
import io.floe.format.io.LocalFileIO;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableMetadataParser;
import io.floe.format.puffin.BlobMetadata;
import io.floe.format.puffin.Puffin;
import io.floe.format.puffin.PuffinReader;
import io.floe.format.types.Type;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Opens one file of a given kind through Floe's own read paths (TableMetadataParser, the table
 * operations' version-hint handling, ManifestLists, ManifestReader, the Puffin reader, DeletionVector,
 * IndexListFiles, IndexSegmentReader), with the context (specs, manifest-list entries, index
 * definitions) taken from the valid seed files of the R4 corpus (python-tests/corpus/r4/valid).
 */
final class MalformedFileProbe {
  private static final String TABLE = "r4.t";
  private final FileIO io = new LocalFileIO();
  private final TableMetadata metadata;
  private final ManifestFile dataManifest;
  private final ManifestFile deleteManifest;
  private final DeleteFile deletionVector;
  private final Path validDir;
  private final Path scratch;

  MalformedFileProbe(Path validDir, Path scratch) {
    this.validDir = validDir;
    this.scratch = scratch;
    this.metadata = TableMetadataParser.read(io, validDir.resolve("table.metadata.json").toString());
    List<ManifestFile> manifests = ManifestLists.read(io.newInputFile(validDir.resolve("manifest-list.avro").toString()));
    this.dataManifest = manifests.stream().filter(m -> m.content() == ManifestContent.DATA).findFirst().orElseThrow();
    this.deleteManifest = manifests.stream().filter(m -> m.content() == ManifestContent.DELETES).findFirst()
        .orElseThrow();
    List<ManifestEntry<DeleteFile>> deletes = ManifestReader.readDeletes(
        io.newInputFile(validDir.resolve("delete-manifest.avro").toString()), deleteManifest, metadata.specsById());
    this.deletionVector = deletes.get(0).file();
  }

  /** Reads {@code file} as a {@code kind} file; returns a short description of what was read. */
  String read(String kind, Path file, String context) throws IOException {
    String location = file.toString();
    switch (kind) {
      case "metadata":
        return "snapshots " + TableMetadataParser.read(io, location).snapshots().size();
      case "version-hint":
        return "snapshots " + loadWithHint(file).snapshots().size();
      case "manifest-list":
        return "manifests " + ManifestLists.read(io.newInputFile(location)).size();
      case "data-manifest":
        return "entries " + ManifestReader.read(io.newInputFile(location), dataManifest, metadata.specsById()).size();
      case "delete-manifest":
        return "entries " + ManifestReader.read(io.newInputFile(location), deleteManifest, metadata.specsById()).size();
      case "puffin":
        return "blob bytes " + readPuffin(location);
      case "deletion-vector":
        return "positions " + readDeletionVector(location, context);
      case "index-list":
        return "indexes " + IndexListFiles.read(io, TABLE, Map.of("floe.indexes", location)).indexes().size();
      case "index-by_id":
        return "matches " + lookup("by_id", file, Expressions.greaterThanOrEqual("id", 0L));
      case "index-by_name":
        return "matches " + lookup("by_name", file, Expressions.startsWith("name", "name-"));
      default:
        throw new IllegalArgumentException("unknown kind " + kind);
    }
  }

  private TableMetadata loadWithHint(Path hint) throws IOException {
    Path root = Files.createTempDirectory(scratch, "hint");
    Path meta = Files.createDirectories(root.resolve("metadata"));
    Files.copy(validDir.resolve("table.metadata.json"), meta.resolve("v1.metadata.json"));
    Files.copy(hint, meta.resolve("version-hint.text"));
    return new FileSystemTableOperations(io, root.toString(), TABLE).refresh();
  }

  /** {@code context}: "offset:length:cardinality" as a manifest entry gives them; empty for the seed's. */
  private long readDeletionVector(String location, String context) {
    long offset = deletionVector.contentOffset();
    long length = deletionVector.contentSizeInBytes();
    long cardinality = deletionVector.recordCount();
    if (!context.isEmpty()) {
      String[] parts = context.split(":");
      offset = Long.parseLong(parts[0]);
      length = Long.parseLong(parts[1]);
      cardinality = Long.parseLong(parts[2]);
    }
    return DeletionVector.read(io.newInputFile(location), offset, length, cardinality).cardinality();
  }

  private long readPuffin(String location) {
    PuffinReader reader = Puffin.read(io.newInputFile(location)).build();
    long total = 0;
    for (BlobMetadata blob : reader.fileMetadata().blobs()) {
      total += reader.readBlob(blob).length;
    }
    return total;
  }

  private int lookup(String name, Path file, Expression filter) throws IOException {
    String validList = Files.readString(validDir.resolve("index-list.json"));
    TableIndex index = IndexListParser.fromJson(validList).index(name);
    IndexSegment listed = index.segments().get(0);
    // the file's own size, so that damage past the size check reaches the blob readers
    IndexSegment segment = new IndexSegment(file.toString(), Math.max(1, Files.size(file)), listed.coveredFileCount(),
        listed.entryCount(), listed.snapshotId(), listed.sequenceNumber());
    Type keyType = metadata.schema().findField(index.sourceFieldId()).type();
    IndexSegmentReader reader = IndexSegmentReader.open(TABLE, index, segment, keyType, io.newInputFile(file.toString()));
    return reader.lookup(Binder.bind(metadata.schema().asStruct(), filter)).count();
  }

  /**
   * Whether {@code t} is the clear error the corpus asks for: a Floe exception naming the file (a
   * hint is read as a table's version-hint.text, which is the name to give).
   */
  static boolean isClear(Throwable t, String kind, Path file) {
    String name = kind.equals("version-hint") ? "version-hint.text" : file.getFileName().toString();
    return t instanceof FloeException && t.getMessage() != null && t.getMessage().contains(name);
  }
}
