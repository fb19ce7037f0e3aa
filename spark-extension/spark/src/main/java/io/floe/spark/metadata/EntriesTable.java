package io.floe.spark.metadata;

import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code entries}: every entry of every manifest of the selected snapshot, DELETED ones included:
 * status (0 existing, 1 added, 2 deleted), the snapshot that added or deleted the file, its data
 * and file sequence numbers (inherited values filled in), the file as {@code data_file}, and its
 * {@code readable_metrics}.
 */
final class EntriesTable extends MetadataTable {
  private final ContentFileRows files;
  private final ReadableMetrics metrics;

  EntriesTable(MetadataTableSource source) {
    this(source, new ContentFileRows(source.metadata()), new ReadableMetrics(source.metadata().schema()));
  }

  private EntriesTable(MetadataTableSource source, ContentFileRows files, ReadableMetrics metrics) {
    super(source, "entries", new StructType()
        .add("status", DataTypes.IntegerType, false)
        .add("snapshot_id", DataTypes.LongType, true)
        .add("sequence_number", DataTypes.LongType, true)
        .add("file_sequence_number", DataTypes.LongType, true)
        .add("data_file", files.schema(), false)
        .add("readable_metrics", metrics.sparkType(), true));
    this.files = files;
    this.metrics = metrics;
  }

  @Override
  List<InternalRow> rows() {
    List<InternalRow> rows = new ArrayList<>();
    if (source().snapshot() == null) {
      return rows;
    }
    for (ManifestFile manifest : source().manifests(source().snapshot())) {
      for (ManifestEntry<?> e : source().entries(manifest)) {
        rows.add(new GenericInternalRow(new Object[] {e.status().id(), e.snapshotId(), e.dataSequenceNumber(),
            e.fileSequenceNumber(), files.row(e.file()), metrics.row(e.file())}));
      }
    }
    return rows;
  }
}
