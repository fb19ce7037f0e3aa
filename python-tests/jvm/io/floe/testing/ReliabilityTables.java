package io.floe.testing;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.deletes.DeletionVectorWriter;
import io.floe.format.deletes.RoaringPositionBitmap;
import io.floe.format.io.FileIO;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.Metrics;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The small format-v3 tables the R3 tests crash: {@code db.t}, one long column, unpartitioned,
 * old metadata versions deleted after each commit (so that clean-up is on the crash path). Data
 * files are written through the FileIO under test as small stand-ins framed by Parquet's magic
 * ({@code PAR1 ... PAR1}), which {@link TableInvariants} checks; deletion vectors are real Puffin.
 */
public final class ReliabilityTables {
  public static final TableIdentifier IDENT = TableIdentifier.of(List.of("db"), "t");
  public static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

  private ReliabilityTables() {}

  public static FileSystemCatalog catalog(FileIO io, String warehouse) {
    return new FileSystemCatalog(io, warehouse);
  }

  /** Creates db.t with {@code properties} on top of the defaults here. */
  public static FileSystemTableOperations create(FileSystemCatalog catalog, Map<String, String> properties) {
    catalog.createNamespace(List.of("db"), Map.of());
    Map<String, String> props = new HashMap<>();
    props.put("write.metadata.delete-after-commit.enabled", "true");
    props.put("write.metadata.previous-versions-max", "1");
    props.putAll(properties);
    TableMetadata metadata = TableMetadata.newTableMetadata(SCHEMA, PartitionSpec.unpartitioned(),
        SortOrder.unsorted(), catalog.tableLocation(IDENT), props, 3);
    return catalog.createTable(IDENT, metadata);
  }

  /** Writes a data file named {@code name} under the table's data folder and returns its entry. */
  public static DataFile writeDataFile(FileIO io, TableMetadata metadata, String name) {
    String path = metadata.location() + "/data/" + name + ".parquet";
    byte[] body = (name + "\n").getBytes(StandardCharsets.UTF_8);
    try (OutputStream out = io.newOutputFile(path).create()) {
      out.write(MAGIC);
      out.write(body);
      out.write(MAGIC);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + path, e);
    }
    long size = 2L * MAGIC.length + body.length;
    return DataFile.builder(metadata.spec()).withPath(path).withFormat(FileFormat.PARQUET)
        .withRecordCount(10).withFileSizeInBytes(size).withMetrics(Metrics.empty(10)).build();
  }

  public static DataFile writeDataFile(FileIO io, TableMetadata metadata) {
    return writeDataFile(io, metadata, "00000-0-" + UUID.randomUUID() + "-00001");
  }

  /** Writes a deletion vector (row 0 deleted) of {@code target} as a Puffin file under data/. */
  public static DeleteFile writeDeletionVector(FileIO io, TableMetadata metadata, DataFile target) {
    String path = metadata.location() + "/data/dv-" + UUID.randomUUID() + "-00001.puffin";
    RoaringPositionBitmap positions = new RoaringPositionBitmap();
    positions.add(0);
    try (DeletionVectorWriter writer = new DeletionVectorWriter(io.newOutputFile(path), "floe-r3-test")) {
      writer.add(target, metadata.spec(), positions);
      return writer.finish().get(0);
    }
  }
}
