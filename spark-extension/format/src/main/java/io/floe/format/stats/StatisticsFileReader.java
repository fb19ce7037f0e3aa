package io.floe.format.stats;

import io.floe.format.io.FileIO;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.puffin.BlobMetadata;
import io.floe.format.puffin.Puffin;
import io.floe.format.puffin.PuffinReader;
import io.floe.format.puffin.StandardBlobTypes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.datasketches.common.SketchesException;
import org.apache.datasketches.theta.Sketch;

/**
 * Reads back the theta sketches of a statistics file (for incremental statistics): the
 * single-column {@code apache-datasketches-theta-v1} blobs, by field id. A corrupt file or blob is
 * an {@link IllegalStateException} naming the file and the blob's offset.
 */
public final class StatisticsFileReader {
  private StatisticsFileReader() {}

  /** A statistics file opened for reading, and its single-column theta blobs in file order. */
  public record ThetaBlobs(PuffinReader reader, List<BlobMetadata> blobs) {}

  /**
   * Opens {@code file} (checked against its recorded size when the metadata gives one) and lists
   * its single-column {@code apache-datasketches-theta-v1} blobs; other blobs are ignored.
   */
  public static ThetaBlobs thetaBlobs(FileIO io, StatisticsFile file) {
    Puffin.ReadBuilder builder = Puffin.read(io.newInputFile(file.path()));
    if (file.fileSizeInBytes() > 0) {
      builder.withFileSize(file.fileSizeInBytes());
    }
    PuffinReader reader = builder.build();
    List<BlobMetadata> blobs = new ArrayList<>();
    for (BlobMetadata blob : reader.fileMetadata().blobs()) {
      if (StandardBlobTypes.APACHE_DATASKETCHES_THETA_V1.equals(blob.type()) && blob.inputFields().size() == 1) {
        blobs.add(blob);
      }
    }
    return new ThetaBlobs(reader, blobs);
  }

  public static Map<Integer, Sketch> thetaSketches(FileIO io, StatisticsFile file) {
    ThetaBlobs theta = thetaBlobs(io, file);
    PuffinReader reader = theta.reader();
    Map<Integer, Sketch> out = new LinkedHashMap<>();
    for (BlobMetadata blob : theta.blobs()) {
      try {
        out.put(blob.inputFields().get(0), ThetaSketches.fromBlob(reader.readBlob(blob)));
      } catch (SketchesException | IllegalArgumentException e) {
        throw new IllegalStateException("Invalid theta sketch in statistics file " + file.path() + " at offset "
            + blob.offset() + " (field " + blob.inputFields().get(0) + "): " + e.getMessage(), e);
      }
    }
    return out;
  }
}
