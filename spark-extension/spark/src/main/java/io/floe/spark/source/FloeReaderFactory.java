package io.floe.spark.source;

import io.floe.format.deletes.RoaringPositionBitmap;
import io.floe.spark.util.SparkExceptions;
import java.io.FileNotFoundException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.SerializableConfiguration;

/**
 * Opens each data file with Spark's vectorized Parquet reader, columns matched by field id, and
 * leaves out the rows its position deletes, deletion vectors and equality deletes remove.
 */
final class FloeReaderFactory implements PartitionReaderFactory {
  private final StructType readSchema;
  private final Broadcast<SerializableConfiguration> conf;
  private final int batchSize;
  private final String tableName;
  private final Long snapshotId;
  private final String nameMapping;
  private final org.apache.spark.sql.sources.Filter[] skipFilters;
  /** The configured copies of the broadcast configuration, for this deserialized factory's readers. */
  private transient volatile ParquetReadConf.Copies confCopies;

  /**
   * {@code conf} is broadcast: each executor deserializes it once, not every task. {@code tableName}
   * and {@code snapshotId} (null when the table has none) name what is read when a file is missing;
   * {@code nameMapping} (the table's {@code schema.name-mapping.default}, or null) matches the
   * columns of files without field ids; {@code skipFilters} (null: none) are filters Spark checks on
   * the rows read, which let Parquet skip row groups and pages (see {@link ParquetSkipFilters}).
   */
  FloeReaderFactory(StructType readSchema, Broadcast<SerializableConfiguration> conf, int batchSize,
      String tableName, Long snapshotId, String nameMapping, org.apache.spark.sql.sources.Filter[] skipFilters) {
    this.readSchema = readSchema;
    this.conf = conf;
    this.batchSize = batchSize;
    this.tableName = tableName;
    this.snapshotId = snapshotId;
    this.nameMapping = nameMapping;
    this.skipFilters = skipFilters;
  }

  private ParquetReadConf.Copies confCopies() {
    ParquetReadConf.Copies copies = confCopies;
    if (copies == null) {
      synchronized (this) {
        copies = confCopies;
        if (copies == null) {
          copies = new ParquetReadConf.Copies();
          confCopies = copies;
        }
      }
    }
    return copies;
  }

  /** The deletes of a task reading {@code files}, loaded on demand and shared by its files. */
  DeleteLoader.TaskDeletes taskDeletes(List<FloeInputPartition> files) {
    return new DeleteLoader.TaskDeletes(conf.value().value(), batchSize, files);
  }

  /**
   * A reader of one data file. Its deletes are loaded here, through the task's
   * {@code deletes} (null: a task of this file alone): position deletes and deletion vectors into
   * one 64-bit Roaring bitmap that the reader applies batch by batch, equality deletes into hash
   * sets probed once per batch.
   */
  private FloeParquetReader.Builder builder(InputPartition partition, DeleteLoader.TaskDeletes deletes) {
    FloeInputPartition file = (FloeInputPartition) partition;
    FloeParquetReader.Builder builder = FloeParquetReader.read(file.path())
        .fileLengthIfKnown(file.length()) // a manifest's size; a negative one counts as unknown
        .project(readSchema)
        .conf(conf.value().value())
        .batchSize(batchSize)
        .nameMapping(nameMapping, tableName)
        .skipFilters(skipFilters)
        .confCopies(confCopies())
        .onMissingFile(e -> SparkExceptions.missingFile("data file", tableName, snapshotId, file.path(), e));
    if (file.splitLength() >= 0) {
      builder.split(file.splitStart(), file.splitLength());
    }
    for (StructField field : readSchema.fields()) {
      if (field.metadata().contains(FloeParquetReader.METADATA_COLUMN_KEY)) {
        if (MetadataColumns.SPEC_ID_COLUMN.equals(field.name())) {
          builder.constant(field.name(), file.specId());
        } else if (MetadataColumns.PARTITION_COLUMN.equals(field.name())) {
          builder.constant(field.name(), file.partition());
        }
      }
    }
    if (!file.deletes().isEmpty()) {
      DeleteLoader.TaskDeletes loader = deletes != null ? deletes : taskDeletes(List.of(file));
      boolean owned = deletes == null;
      try {
        RoaringPositionBitmap deleted = loader.positions(file);
        builder.deletedPositions(deleted);
        List<EqualityDeleteSet> sets = loader.equalitySets(file);
        if (!sets.isEmpty()) {
          builder.equalityDeletes(file.equalitySchema(), sets);
        }
      } catch (RuntimeException e) {
        if (owned) {
          loader.close();
        }
        FileNotFoundException missing = SparkExceptions.findMissingFile(e);
        if (missing != null) {
          FileNotFoundException named = SparkExceptions.missingFile("delete file", tableName, snapshotId,
              deletePath(file, missing), missing);
          throw new UncheckedIOException(named.getMessage(), named);
        }
        throw e;
      }
      if (owned) {
        builder.onClose(loader);
      }
    }
    return builder;
  }

  /** The delete file of {@code file} that {@code missing} names, or all of them when none matches. */
  private static String deletePath(FloeInputPartition file, FileNotFoundException missing) {
    String message = String.valueOf(missing.getMessage());
    List<String> paths = file.deletes().stream().map(d -> d.path()).toList();
    return paths.stream().filter(p -> message.contains(stripScheme(p))).findFirst()
        .orElse(String.join(" or ", paths));
  }

  private static String stripScheme(String path) {
    return path.replaceFirst("^[A-Za-z][A-Za-z0-9+.-]*:/*", "/");
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return true;
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    return builder(partition, null).build();
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    return builder(partition, null).buildRowReader();
  }

  /** A columnar reader of one file of a task whose deletes {@code deletes} loads. */
  PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition, DeleteLoader.TaskDeletes deletes) {
    return builder(partition, deletes).build();
  }

  /** A row reader of one file of a task whose deletes {@code deletes} loads. */
  PartitionReader<InternalRow> createReader(InputPartition partition, DeleteLoader.TaskDeletes deletes) {
    return builder(partition, deletes).buildRowReader();
  }
}
