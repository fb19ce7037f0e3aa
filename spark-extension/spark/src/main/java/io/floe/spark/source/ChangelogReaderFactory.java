package io.floe.spark.source;

import io.floe.format.deletes.RoaringPositionBitmap;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.function.Function;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Reads the rows of {@link ChangelogInputPartition}s through the batch read path (Parquet, field
 * ids, position deletes, deletion vectors and equality deletes: {@link FloeReaderFactory}) and
 * appends {@code _change_type}, {@code _change_ordinal} and {@code _commit_snapshot_id}. Rows that
 * a commit's new delete files removed are found by position: those read without the new deletes
 * whose {@code _pos} is missing when the file is read with them (whatever kind the deletes are).
 */
final class ChangelogReaderFactory implements PartitionReaderFactory {
  private final FloeReaderFactory withPositions; // the table columns, then _pos
  private final FloeReaderFactory positionsOnly;
  private final StructType output;
  private final DataType[] dataTypes;

  /** {@code files} builds a reader factory for a read schema; {@code data}: the table columns, with field ids. */
  ChangelogReaderFactory(Function<StructType, FloeReaderFactory> files, StructType data,
      StructType output) {
    StructField pos = new StructField(FloeParquetReader.POS_COLUMN, DataTypes.LongType, false,
        new MetadataBuilder().putBoolean(FloeParquetReader.METADATA_COLUMN_KEY, true).build());
    this.withPositions = files.apply(data.add(pos));
    this.positionsOnly = files.apply(new StructType(new StructField[] {pos}));
    this.output = output;
    this.dataTypes = Arrays.stream(data.fields()).map(StructField::dataType).toArray(DataType[]::new);
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    ChangelogInputPartition task = (ChangelogInputPartition) partition;
    RoaringPositionBitmap kept = task.after() == null ? null : positions(task.after());
    return new Reader(withPositions.createReader(task.rows()), kept, task);
  }

  /** The positions of the rows of {@code file} that its deletes keep. */
  private RoaringPositionBitmap positions(FloeInputPartition file) {
    RoaringPositionBitmap out = new RoaringPositionBitmap();
    try (PartitionReader<InternalRow> rows = positionsOnly.createReader(file)) {
      while (rows.next()) {
        out.add(rows.get().getLong(0));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** The rows of one task with its change columns; with {@code kept}, only rows whose position it lacks. */
  private final class Reader implements PartitionReader<InternalRow> {
    private final PartitionReader<InternalRow> rows;
    private final RoaringPositionBitmap kept;
    private final GenericInternalRow values;
    private final UnsafeProjection toUnsafe = UnsafeProjection.create(output);
    private InternalRow current;

    Reader(PartitionReader<InternalRow> rows, RoaringPositionBitmap kept, ChangelogInputPartition task) {
      this.rows = rows;
      this.kept = kept;
      this.values = new GenericInternalRow(dataTypes.length + 3);
      values.update(dataTypes.length, UTF8String.fromString(task.changeType()));
      values.setInt(dataTypes.length + 1, task.changeOrdinal());
      values.setLong(dataTypes.length + 2, task.commitSnapshotId());
    }

    @Override
    public boolean next() throws IOException {
      while (rows.next()) {
        InternalRow row = rows.get();
        if (kept != null && kept.contains(row.getLong(dataTypes.length))) {
          continue;
        }
        for (int i = 0; i < dataTypes.length; i++) {
          values.update(i, row.isNullAt(i) ? null : row.get(i, dataTypes[i]));
        }
        current = toUnsafe.apply(values);
        return true;
      }
      current = null;
      return false;
    }

    @Override
    public InternalRow get() {
      if (current == null) {
        throw new IllegalStateException("No current row: call next() first");
      }
      return current;
    }

    @Override
    public void close() throws IOException {
      rows.close();
    }
  }
}
