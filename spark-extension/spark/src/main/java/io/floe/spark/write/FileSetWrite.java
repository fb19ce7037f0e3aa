package io.floe.spark.write;

import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.MetadataAmendment;
import io.floe.format.commit.OverwriteFiles;
import io.floe.format.commit.SnapshotProducer;
import io.floe.format.index.FileValues;
import io.floe.format.metadata.TableMetadata;
import io.floe.spark.util.FileSetRegistry;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

/**
 * The write of one file group of a rewrite (write option {@link FileSetRegistry#OPTION}): rows go
 * to new data files of the table's default spec in the order the rewrite arranged them (no
 * distribution or ordering is requested; a task's rows may span partitions), files roll at the
 * write option {@code target-file-size-bytes} (else the table property), and the written files
 * are staged in the registry for the rewrite to commit instead of being committed here, with the
 * values the writers gathered for the table's sync indexes (the rewrite's commit adds their segments).
 */
final class FileSetWrite implements Write {
  static final String TARGET_FILE_SIZE_OPTION = "target-file-size-bytes";

  private final FloeWriteTarget table;
  private final LogicalWriteInfo info;
  private final String fileSetId;

  FileSetWrite(FloeWriteTarget table, LogicalWriteInfo info) {
    this.table = table;
    this.info = info;
    this.fileSetId = info.options().get(FileSetRegistry.OPTION);
  }

  static boolean isRequested(LogicalWriteInfo info) {
    return info.options().containsKey(FileSetRegistry.OPTION);
  }

  @Override
  public String description() {
    return "FloeFileSetWrite(" + table.name() + ")";
  }

  @Override
  public BatchWrite toBatch() {
    TableMetadata base = table.metadata();
    String targetSize = info.options().get(TARGET_FILE_SIZE_OPTION);
    if (targetSize != null) {
      base = TableMetadata.buildFrom(base).setProperties(Map.of(FloeWrite.TARGET_FILE_SIZE, targetSize)).build();
    }
    SerializableConfiguration conf = new SerializableConfiguration(SparkSession.active().sessionState().newHadoopConf());
    return new FloeBatchWrite(new Staging(), base, info.schema(), FloeBatchWrite.Mode.APPEND, null, conf) {
      @Override
      protected boolean fanout() {
        return true;
      }
    };
  }

  /** Collects the written files in an append that is never committed, then stages them with their index values. */
  private final class Staging implements FloeBatchWrite.WriteTarget {
    private Map<Integer, List<FileValues>> indexValues = Map.of();

    @Override
    public String name() {
      return table.name();
    }

    @Override
    public void commit(SnapshotProducer producer, TableMetadata base) {
      FileSetRegistry.stage(fileSetId, table.name(), producer.addedFiles(), indexValues);
    }

    @Override
    public IndexedColumns indexedColumns(TableMetadata base, StructType rowType) {
      return table.indexedColumns(base, rowType);
    }

    /** Keeps the values for {@link #commit} to stage: this append is never committed, the rewrite's commit adds them. */
    @Override
    public MetadataAmendment indexSync(Map<Integer, List<FileValues>> valuesByField) {
      indexValues = Map.copyOf(valuesByField);
      return null;
    }

    @Override
    public AppendFiles newAppend() {
      return table.newAppend();
    }

    @Override
    public OverwriteFiles newOverwrite() {
      throw new UnsupportedOperationException("Cannot overwrite through a rewrite file set of table " + table.name());
    }
  }
}
