package io.floe.spark.metadata;

import static io.floe.spark.metadata.CatalystValues.micros;

import io.floe.format.manifest.ContentFile;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code partitions}: the live files of the selected snapshot grouped by spec and partition (shown
 * in the unified partition type, so the same tuple written under two specs is two rows): data
 * record, file and byte counts, position and equality delete record and file counts (deletion
 * vectors count as position deletes), and the latest snapshot that added a file to it. For a table that was
 * never partitioned there is one row and no {@code partition} / {@code spec_id} columns.
 */
final class PartitionsTable extends MetadataTable {
  private final PartitionUnion partitions;

  PartitionsTable(MetadataTableSource source) {
    this(source, PartitionUnion.of(source.metadata()));
  }

  private PartitionsTable(MetadataTableSource source, PartitionUnion partitions) {
    super(source, "partitions", schema(partitions));
    this.partitions = partitions;
  }

  private static StructType schema(PartitionUnion partitions) {
    StructType s = new StructType();
    if (!partitions.isEmpty()) {
      s = s.add("partition", partitions.sparkType(), false).add("spec_id", DataTypes.IntegerType, false);
    }
    return s.add("record_count", DataTypes.LongType, false)
        .add("file_count", DataTypes.IntegerType, false)
        .add("total_data_file_size_in_bytes", DataTypes.LongType, false)
        .add("position_delete_record_count", DataTypes.LongType, false)
        .add("position_delete_file_count", DataTypes.IntegerType, false)
        .add("equality_delete_record_count", DataTypes.LongType, false)
        .add("equality_delete_file_count", DataTypes.IntegerType, false)
        .add("last_updated_at", DataTypes.TimestampType, true)
        .add("last_updated_snapshot_id", DataTypes.LongType, true);
  }

  @Override
  List<InternalRow> rows() {
    TableMetadata metadata = source().metadata();
    Map<List<Object>, Stats> byPartition = new LinkedHashMap<>();
    if (source().snapshot() != null) {
      for (ManifestFile manifest : source().manifests(source().snapshot())) {
        for (ManifestEntry<?> entry : source().entries(manifest)) {
          if (entry.isLive()) {
            ContentFile file = entry.file();
            List<Object> key = new ArrayList<>(partitions.values(file, metadata.spec(file.specId())));
            key.add(file.specId());
            Snapshot added = entry.snapshotId() == null ? null : metadata.snapshot(entry.snapshotId());
            byPartition.computeIfAbsent(key, k -> new Stats()).add(file, added);
          }
        }
      }
    }
    List<InternalRow> rows = new ArrayList<>();
    for (Map.Entry<List<Object>, Stats> e : byPartition.entrySet()) {
      Stats s = e.getValue();
      List<Object> values = new ArrayList<>();
      if (!partitions.isEmpty()) {
        values.add(partitions.row(e.getKey().subList(0, e.getKey().size() - 1)));
        values.add(s.specId);
      }
      values.addAll(List.of(s.records, s.files, s.bytes, s.posDeleteRecords, s.posDeleteFiles,
          s.eqDeleteRecords, s.eqDeleteFiles));
      values.add(micros(s.lastUpdatedMillis));
      values.add(s.lastUpdatedSnapshotId);
      rows.add(new GenericInternalRow(values.toArray()));
    }
    return rows;
  }

  /** Running totals of one partition. */
  private static final class Stats {
    private int specId;
    private long records;
    private int files;
    private long bytes;
    private long posDeleteRecords;
    private int posDeleteFiles;
    private long eqDeleteRecords;
    private int eqDeleteFiles;
    private Long lastUpdatedMillis;
    private Long lastUpdatedSnapshotId;

    void add(ContentFile file, Snapshot added) {
      if (added != null && (lastUpdatedMillis == null || added.timestampMillis() > lastUpdatedMillis)) {
        lastUpdatedMillis = added.timestampMillis();
        lastUpdatedSnapshotId = added.snapshotId();
      }
      specId = file.specId();
      switch (file.content()) {
        case DATA:
          records += file.recordCount();
          files++;
          bytes += file.fileSizeInBytes();
          break;
        case POSITION_DELETES:
          posDeleteRecords += file.recordCount();
          posDeleteFiles++;
          break;
        default:
          eqDeleteRecords += file.recordCount();
          eqDeleteFiles++;
          break;
      }
    }
  }
}
