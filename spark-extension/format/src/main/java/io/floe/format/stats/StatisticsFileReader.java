package io.floe.format.stats;

import io.floe.format.io.FileIO;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.puffin.BlobMetadata;
import io.floe.format.puffin.Puffin;
import io.floe.format.puffin.PuffinReader;
import io.floe.format.puffin.StandardBlobTypes;
import java.util.LinkedHashMap;
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

  public static Map<Integer, Sketch> thetaSketches(FileIO io, StatisticsFile file) {
    PuffinReader reader = Puffin.read(io.newInputFile(file.path()))
        .withFileSize(file.fileSizeInBytes()).build();
    Map<Integer, Sketch> out = new LinkedHashMap<>();
    for (BlobMetadata blob : reader.fileMetadata().blobs()) {
      if (!StandardBlobTypes.APACHE_DATASKETCHES_THETA_V1.equals(blob.type()) || blob.inputFields().size() != 1) {
        continue;
      }
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
