package io.floe.format.stats;

import io.floe.format.commit.TableOperations;
import io.floe.format.io.FileIO;
import io.floe.format.metadata.StatisticsBlobMetadata;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.StatisticsFile;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableProperties;
import io.floe.format.puffin.Blob;
import io.floe.format.puffin.Puffin;
import io.floe.format.puffin.PuffinCompressionCodec;
import io.floe.format.puffin.PuffinWriter;
import io.floe.format.puffin.StandardBlobTypes;
import io.floe.format.puffin.StandardPuffinProperties;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.datasketches.theta.CompactSketch;
import org.apache.datasketches.theta.Sketch;

/**
 * Writes the table statistics of one snapshot: one Puffin file
 * {@code <table>/metadata/<snapshotId>-<uuid>.stats} with one {@code apache-datasketches-theta-v1}
 * blob per column (fields = [field id], the snapshot's id and sequence number, property
 * {@code ndv}), blobs compressed with the codec of table property {@value #CODEC_PROPERTY}
 * (zstd by default; lz4 or none), footer uncompressed (pyiceberg cannot read a compressed one).
 * Returns the {@link StatisticsFile} to register with {@code TableMetadataBuilder.setStatistics}.
 */
public final class StatisticsFileWriter {
  /** Table property: codec of statistics blobs, {@code zstd} (default), {@code lz4} or {@code none}. */
  public static final String CODEC_PROPERTY = TableProperties.STATISTICS_COMPRESSION;
  public static final String CREATED_BY = io.floe.format.FloeVersion.createdBy();

  private StatisticsFileWriter() {}

  /** The blob codec table property {@value #CODEC_PROPERTY} asks for; a bad value names the table. */
  public static PuffinCompressionCodec codec(TableMetadata metadata, String tableName) {
    return codecOf(metadata.property(CODEC_PROPERTY, null), tableName);
  }

  /** The blob codec a value of {@value #CODEC_PROPERTY} names (null: zstd). */
  public static PuffinCompressionCodec codecOf(String property, String tableName) {
    String value = property == null ? "zstd" : property.trim().toLowerCase(Locale.ROOT);
    switch (value) {
      case "zstd":
        return PuffinCompressionCodec.ZSTD;
      case "lz4":
        return PuffinCompressionCodec.LZ4;
      case "none":
      case "uncompressed":
        return PuffinCompressionCodec.NONE;
      default:
        throw new IllegalArgumentException("Invalid table property " + CODEC_PROPERTY + "=" + value
            + " of table " + tableName + ": expected zstd, lz4 or none");
    }
  }

  /** A new file name under the table's {@code metadata/} for statistics of {@code snapshotId}. */
  public static String newLocation(TableOperations ops, long snapshotId) {
    return ops.metadataFileLocation(snapshotId + "-" + UUID.randomUUID() + ".stats");
  }

  /**
   * Writes {@code sketches} (by field id, in iteration order) of {@code snapshot} to
   * {@code location} and returns the statistics entry for the table metadata.
   */
  public static StatisticsFile write(FileIO io, String location, Snapshot snapshot,
      Map<Integer, ? extends Sketch> sketches, PuffinCompressionCodec codec) {
    List<StatisticsBlobMetadata> listed = new ArrayList<>();
    long fileSize;
    long footerSize;
    try (PuffinWriter writer = Puffin.write(io.newOutputFile(location))
        .createdBy(CREATED_BY).compress(codec).build()) {
      for (Map.Entry<Integer, ? extends Sketch> column : sketches.entrySet()) {
        CompactSketch sketch = ThetaSketches.compact(column.getValue());
        Map<String, String> properties = Map.of(StandardPuffinProperties.NDV,
            Long.toString(ThetaSketches.ndv(sketch)));
        io.floe.format.puffin.BlobMetadata written = writer.add(Blob.of(StandardBlobTypes.APACHE_DATASKETCHES_THETA_V1,
            List.of(column.getKey()), snapshot.snapshotId(), snapshot.sequenceNumber(), sketch.toByteArray())
            .withProperties(properties));
        listed.add(new StatisticsBlobMetadata(written.type(), written.snapshotId(), written.sequenceNumber(),
            written.inputFields(), written.properties()));
      }
      writer.finish();
      fileSize = writer.fileSize();
      footerSize = writer.footerSize();
    }
    return new StatisticsFile(snapshot.snapshotId(), location, fileSize, footerSize, null, listed);
  }
}
