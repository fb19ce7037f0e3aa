package io.floe.spark.metadata;

import static io.floe.spark.metadata.CatalystValues.bytes;
import static io.floe.spark.metadata.CatalystValues.str;

import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.PartitionFieldSummary;
import io.floe.format.metadata.Snapshot;
import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Conversions;
import io.floe.format.types.Type;
import io.floe.format.types.Type.TypeID;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code manifests}: the manifests of the selected snapshot's manifest list, with file counts split
 * by content (data or delete) and per-partition-field summaries whose bounds are shown in human form
 * ({@code 2024-01-01} for a day). {@code all_manifests}: the manifests of every snapshot in the
 * metadata, one row per snapshot and manifest, with the listing snapshot as
 * {@code reference_snapshot_id} and the manifest's key metadata.
 */
final class ManifestsTable extends MetadataTable {
  /** Iceberg writes second fractions without trailing zeros ({@code 10:00:00.5}). */
  private static final Pattern TRAILING_FRACTION_ZEROS = Pattern.compile("(\\.\\d*[1-9])0+(?=$|[+-])");
  private final boolean allSnapshots;

  ManifestsTable(MetadataTableSource source, boolean allSnapshots) {
    super(source, allSnapshots ? "all_manifests" : "manifests", schema(allSnapshots));
    this.allSnapshots = allSnapshots;
  }

  private static StructType schema(boolean allSnapshots) {
    // Iceberg's all_manifests declares some columns optional that manifests declares required
    boolean optional = allSnapshots;
    StructType summary = new StructType()
        .add("contains_null", DataTypes.BooleanType, false)
        .add("contains_nan", DataTypes.BooleanType, !allSnapshots)
        .add("lower_bound", DataTypes.StringType, true)
        .add("upper_bound", DataTypes.StringType, true);
    StructType s = new StructType()
        .add("content", DataTypes.IntegerType, false)
        .add("path", DataTypes.StringType, false)
        .add("length", DataTypes.LongType, false)
        .add("partition_spec_id", DataTypes.IntegerType, optional)
        .add("added_snapshot_id", DataTypes.LongType, optional)
        .add("added_data_files_count", DataTypes.IntegerType, optional)
        .add("existing_data_files_count", DataTypes.IntegerType, optional)
        .add("deleted_data_files_count", DataTypes.IntegerType, optional)
        .add("added_delete_files_count", DataTypes.IntegerType, false)
        .add("existing_delete_files_count", DataTypes.IntegerType, false)
        .add("deleted_delete_files_count", DataTypes.IntegerType, false)
        .add("partition_summaries", DataTypes.createArrayType(summary, false), optional);
    if (allSnapshots) {
      s = s.add("reference_snapshot_id", DataTypes.LongType, false)
          .add("key_metadata", DataTypes.BinaryType, true);
    }
    return s;
  }

  @Override
  List<InternalRow> rows() {
    List<InternalRow> rows = new ArrayList<>();
    if (allSnapshots) {
      for (Snapshot snap : source().metadata().snapshots()) {
        addRows(rows, snap);
      }
    } else if (source().snapshot() != null) {
      addRows(rows, source().snapshot());
    }
    return rows;
  }

  private void addRows(List<InternalRow> rows, Snapshot snap) {
    for (ManifestFile m : source().manifests(snap)) {
      boolean data = m.content() == ManifestContent.DATA;
      List<Object> values = new ArrayList<>(List.of(m.content().id(), str(m.path()), m.length(),
          m.partitionSpecId(), m.snapshotId() == null ? snap.snapshotId() : m.snapshotId(),
          data ? orZero(m.addedFilesCount()) : 0, data ? orZero(m.existingFilesCount()) : 0,
          data ? orZero(m.deletedFilesCount()) : 0, data ? 0 : orZero(m.addedFilesCount()),
          data ? 0 : orZero(m.existingFilesCount()), data ? 0 : orZero(m.deletedFilesCount()),
          summaries(m)));
      if (allSnapshots) {
        values.add(snap.snapshotId());
        values.add(bytes(m.keyMetadata()));
      }
      rows.add(new GenericInternalRow(values.toArray()));
    }
  }

  private GenericArrayData summaries(ManifestFile m) {
    PartitionSpec spec = source().metadata().spec(m.partitionSpecId());
    List<PartitionFieldSummary> summaries = m.partitions() == null ? List.of() : m.partitions();
    List<Object> out = new ArrayList<>(summaries.size());
    for (int i = 0; i < summaries.size(); i++) {
      PartitionFieldSummary s = summaries.get(i);
      Boolean nan = s.containsNaN();
      out.add(new GenericInternalRow(new Object[] {s.containsNull(), allSnapshots && nan == null ? false : nan,
          str(human(spec, i, s.lowerBound())), str(human(spec, i, s.upperBound()))}));
    }
    return new GenericArrayData(out.toArray());
  }

  /** The bound of partition field {@code pos} in the transform's human form; null when unknown. */
  private static String human(PartitionSpec spec, int pos, ByteBuffer bound) {
    if (bound == null || spec == null || pos >= spec.fields().size()) {
      return null;
    }
    PartitionField field = spec.fields().get(pos);
    Type type = spec.partitionType().fields().get(pos).type();
    String human = field.transform().toHumanString(type, Conversions.fromByteBuffer(type, bound));
    boolean timeOfDay = type.typeId() == TypeID.TIMESTAMP || type.typeId() == TypeID.TIME;
    return timeOfDay ? TRAILING_FRACTION_ZEROS.matcher(human).replaceFirst("$1") : human;
  }

  private static int orZero(Integer count) {
    return count == null ? 0 : count;
  }
}
