package io.floe.spark.write;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.Test;

/** Writers gather distinct values and nulls per indexed column, and give a column up past the limit. */
public class TestFileValueCollector {
  private static final IndexedColumns COLUMNS = new IndexedColumns(List.of(
      new IndexedColumns.Column(7, new int[] {0}, new int[0], DataTypes.LongType),
      new IndexedColumns.Column(9, new int[] {1}, new int[0], DataTypes.StringType)), 3);

  private static GenericInternalRow row(Long id, String s) {
    return new GenericInternalRow(new Object[] {id, s == null ? null : UTF8String.fromString(s)});
  }

  @Test
  public void gathersDistinctValuesAndNullsByFieldId() {
    FileValueCollector collector = new FileValueCollector(COLUMNS);
    collector.add(row(1L, "a"));
    collector.add(row(1L, null));
    collector.add(row(2L, "a"));
    Map<Integer, FileValueCollector.Gathered> gathered = collector.gathered();
    assertEquals(new HashSet<>(List.of(1L, 2L)), new HashSet<>(gathered.get(7).values()));
    assertFalse(gathered.get(7).containsNull());
    assertEquals(List.of("a"), gathered.get(9).values());
    assertTrue(gathered.get(9).containsNull());
  }

  @Test
  public void columnPastTheDistinctLimitIsGivenUpForTheFile() {
    FileValueCollector collector = new FileValueCollector(COLUMNS);
    for (long i = 0; i < 10; i++) {
      collector.add(row(i, "same"));
    }
    Map<Integer, FileValueCollector.Gathered> gathered = collector.gathered();
    assertFalse(gathered.containsKey(7)); // the file stays uncovered by indexes on field 7
    assertEquals(List.of("same"), gathered.get(9).values());
  }

  @Test
  public void gathersFieldsNestedInStructsAndBinaryValues() {
    // column 0: struct<a: int, inner: struct<b: binary>>; indexed: a (field 3) and inner.b (field 5)
    IndexedColumns nested = new IndexedColumns(List.of(
        new IndexedColumns.Column(3, new int[] {0, 0}, new int[] {2}, DataTypes.IntegerType),
        new IndexedColumns.Column(5, new int[] {0, 1, 0}, new int[] {2, 1}, DataTypes.BinaryType)), 100);
    FileValueCollector collector = new FileValueCollector(nested);
    collector.add(new GenericInternalRow(new Object[] {new GenericInternalRow(new Object[] {
        1, new GenericInternalRow(new Object[] {new byte[] {1, 2}})})}));
    collector.add(new GenericInternalRow(new Object[] {new GenericInternalRow(new Object[] {
        1, new GenericInternalRow(new Object[] {new byte[] {1, 2}})})})); // equal bytes, another array
    collector.add(new GenericInternalRow(new Object[] {new GenericInternalRow(new Object[] {2, null})}));
    collector.add(new GenericInternalRow(new Object[] {null})); // a null struct: both fields are null
    Map<Integer, FileValueCollector.Gathered> gathered = collector.gathered();
    assertEquals(new HashSet<>(List.of(1, 2)), new HashSet<>(gathered.get(3).values()));
    assertTrue(gathered.get(3).containsNull());
    assertEquals(List.of(ByteBuffer.wrap(new byte[] {1, 2})), gathered.get(5).javaValues());
    assertTrue("travels as bytes: ByteBuffer is not serializable", gathered.get(5).values().get(0) instanceof byte[]);
    assertTrue(gathered.get(5).containsNull());
  }
}
