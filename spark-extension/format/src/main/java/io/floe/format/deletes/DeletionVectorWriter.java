package io.floe.format.deletes;

import io.floe.format.io.OutputFile;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.puffin.BlobMetadata;
import io.floe.format.puffin.Puffin;
import io.floe.format.puffin.PuffinWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Writes the deletion vectors of one commit into one Puffin file, one {@code deletion-vector-v1}
 * blob per data file, and describes each as the manifest entry the spec asks for:
 * <pre>
 *   content POSITION_DELETES, format PUFFIN, file_path = the Puffin file, file_size_in_bytes = its size,
 *   record_count = the vector's cardinality, referenced_data_file = the data file's path,
 *   content_offset / content_size_in_bytes = the blob's footer offset / length,
 *   spec id and partition = the data file's
 * </pre>
 * The footer entry of each blob carries the properties {@code referenced-data-file} and
 * {@code cardinality} (see {@link DeletionVector#toBlob}); the footer is not compressed.
 *
 * <pre>
 *   DeletionVectorWriter writer = new DeletionVectorWriter(outputFile, "Floe");
 *   writer.add(dataFile, spec, positions);   // at most once per data file
 *   List&lt;DeleteFile&gt; dvs = writer.finish();
 * </pre>
 */
public final class DeletionVectorWriter implements AutoCloseable {
  private final PuffinWriter puffin;
  private final List<Written> written = new ArrayList<>();
  private final Set<String> dataFiles = new HashSet<>();
  private List<DeleteFile> result = null;
  private boolean finished = false;

  private record Written(DataFile dataFile, PartitionSpec spec, BlobMetadata blob, long cardinality) {
  }

  /** Creates the Puffin file (it must not exist) with the {@code created-by} property. */
  public DeletionVectorWriter(OutputFile file, String createdBy) {
    this.puffin = Puffin.write(file).createdBy(createdBy).build();
  }

  public String location() {
    return puffin.location();
  }

  /**
   * Writes the vector of {@code dataFile}'s deleted {@code positions} (not empty); {@code spec} is
   * the data file's partition spec. A data file may have only one vector in the file.
   */
  public void add(DataFile dataFile, PartitionSpec spec, RoaringPositionBitmap positions) {
    Objects.requireNonNull(dataFile, "Data file is null");
    if (finished) {
      throw new IllegalStateException("Cannot add a deletion vector to " + location() + ": it is finished");
    }
    if (spec.specId() != dataFile.specId()) {
      throw new IllegalArgumentException("Cannot write a deletion vector for " + dataFile.path() + ": it has spec "
          + dataFile.specId() + ", not " + spec.specId());
    }
    if (positions.isEmpty()) {
      throw new IllegalArgumentException("Cannot write an empty deletion vector for " + dataFile.path());
    }
    if (!dataFiles.add(dataFile.path())) {
      throw new IllegalArgumentException("Cannot write a second deletion vector for " + dataFile.path()
          + " to " + location());
    }
    DeletionVector vector = DeletionVector.of(positions);
    BlobMetadata blob = puffin.add(vector.toBlob(dataFile.path()));
    written.add(new Written(dataFile, spec, blob, vector.cardinality()));
  }

  /** Writes the footer and returns the manifest entries of the vectors, in the order they were added. */
  public List<DeleteFile> finish() {
    if (result != null) {
      return result;
    }
    if (finished) {
      throw new IllegalStateException("Cannot finish " + location() + ": writing its footer failed");
    }
    finished = true;
    puffin.finish();
    long size = puffin.fileSize();
    List<DeleteFile> files = new ArrayList<>(written.size());
    for (Written w : written) {
      files.add(DeleteFile.builder(w.spec())
          .withContent(FileContent.POSITION_DELETES)
          .withFormat(FileFormat.PUFFIN)
          .withPath(puffin.location())
          .withFileSizeInBytes(size)
          .withPartition(w.dataFile().partition())
          .withRecordCount(w.cardinality())
          .withReferencedDataFile(w.dataFile().path())
          .withContentOffset(w.blob().offset())
          .withContentSizeInBytes(w.blob().length())
          .build());
    }
    this.result = List.copyOf(files);
    return result;
  }

  /** Finishes the file unless {@link #finish()} was called; a caller that gives up deletes the file. */
  @Override
  public void close() {
    if (!finished) {
      finish();
    }
  }
}
