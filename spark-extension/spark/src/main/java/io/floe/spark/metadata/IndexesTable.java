package io.floe.spark.metadata;

import static io.floe.spark.metadata.CatalystValues.str;

import io.floe.format.index.IndexColumns;
import io.floe.format.index.IndexException;
import io.floe.format.index.IndexList;
import io.floe.format.index.IndexListFiles;
import io.floe.format.index.IndexSegment;
import io.floe.format.index.IndexSegmentReader;
import io.floe.format.index.TableIndex;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.scan.TableScan;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code indexes}: the table's secondary indexes (docs/indexes.md), one row each: name, type, the
 * indexed column (by its current name), the snapshot the newest segment was built at, how many of
 * the current snapshot's live data files the index covers, the number of live files, the segments'
 * size on disk and the number of segments. {@code problem} says why an index
 * cannot be used (a segment that cannot be read, a dropped column); planning then scans without it
 * and {@code rewrite_index} repairs it.
 */
final class IndexesTable extends MetadataTable {
  private static final StructType SCHEMA = new StructType()
      .add("name", DataTypes.StringType, false)
      .add("type", DataTypes.StringType, false)
      .add("columns", DataTypes.createArrayType(DataTypes.StringType, false), false)
      .add("built_at_snapshot_id", DataTypes.LongType, true)
      .add("covered_files", DataTypes.IntegerType, true)
      .add("live_files", DataTypes.IntegerType, false)
      .add("size_in_bytes", DataTypes.LongType, false)
      .add("segments", DataTypes.IntegerType, false)
      .add("problem", DataTypes.StringType, true);

  IndexesTable(MetadataTableSource source) {
    super(source, "indexes", SCHEMA);
  }

  @Override
  List<InternalRow> rows() {
    TableMetadata metadata = source().metadata();
    String table = source().tableName();
    IndexList list = IndexListFiles.read(source().io(), table, metadata.properties());
    if (list.indexes().isEmpty()) {
      return List.of();
    }
    Snapshot current = metadata.currentSnapshot();
    Set<String> live = current == null ? Set.of() : TableScan.of(source().io(), metadata).useSnapshot(current)
        .planFiles().tasks().stream().map(t -> t.file().path()).collect(Collectors.toSet());
    Schema schema = metadata.schema();
    List<InternalRow> rows = new ArrayList<>();
    for (TableIndex index : list.indexes()) {
      List<String> path = IndexColumns.path(schema, index.sourceFieldId());
      Type keyType = schema.findType(index.sourceFieldId());
      String problem = path == null ? "its column (field id " + index.sourceFieldId() + ") no longer exists" : null;
      Integer covered = null;
      if (problem == null) {
        try {
          Set<String> paths = new HashSet<>();
          for (IndexSegment segment : index.segments()) {
            paths.addAll(IndexSegmentReader.open(table, index, segment, keyType,
                source().io().newInputFile(segment.path())).coveredFiles().paths());
          }
          paths.retainAll(live);
          covered = paths.size();
        } catch (IndexException e) {
          problem = e.getMessage();
        }
      }
      Long builtAt = index.segments().stream().map(IndexSegment::snapshotId).filter(id -> id >= 0)
          .max(Long::compare).orElse(null);
      long size = index.segments().stream().mapToLong(IndexSegment::fileSizeInBytes).sum();
      String column = path == null ? "<dropped field " + index.sourceFieldId() + ">" : String.join(".", path);
      rows.add(new GenericInternalRow(new Object[] {str(index.name()), str(index.type().typeName()),
          new GenericArrayData(new Object[] {str(column)}), builtAt, covered, live.size(), size,
          index.segments().size(), problem == null ? null : str(problem)}));
    }
    return rows;
  }
}
