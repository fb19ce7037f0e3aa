package io.floe.spark.metadata;

import static io.floe.spark.metadata.CatalystValues.str;

import io.floe.format.metadata.SnapshotRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code refs}: every branch and tag of the metadata ({@code main} included): name, type
 * ({@code BRANCH} or {@code TAG}), snapshot id and the ref's own retention settings (null when the
 * table defaults apply).
 */
final class RefsTable extends MetadataTable {
  private static final StructType SCHEMA = new StructType()
      .add("name", DataTypes.StringType, false)
      .add("type", DataTypes.StringType, false)
      .add("snapshot_id", DataTypes.LongType, false)
      .add("max_reference_age_in_ms", DataTypes.LongType, true)
      .add("min_snapshots_to_keep", DataTypes.IntegerType, true)
      .add("max_snapshot_age_in_ms", DataTypes.LongType, true);

  RefsTable(MetadataTableSource source) {
    super(source, "refs", SCHEMA);
  }

  @Override
  List<InternalRow> rows() {
    List<InternalRow> rows = new ArrayList<>();
    for (Map.Entry<String, SnapshotRef> e : source().metadata().refs().entrySet()) {
      SnapshotRef ref = e.getValue();
      rows.add(new GenericInternalRow(new Object[] {str(e.getKey()),
          str(ref.isBranch() ? "BRANCH" : "TAG"), ref.snapshotId(), ref.maxRefAgeMs(),
          ref.minSnapshotsToKeep(), ref.maxSnapshotAgeMs()}));
    }
    return rows;
  }
}
