package io.floe.format.index;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.io.InputFile;
import io.floe.format.io.LocalFileIO;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

/** A schema with a column of every indexable type, random values, and a read-counting input file. */
final class IndexFixtures {
  private IndexFixtures() {}

  static final LocalFileIO IO = new LocalFileIO();

  static final Schema SCHEMA = new Schema(
      Types.NestedField.optional(1, "i", Types.IntegerType.get()),
      Types.NestedField.optional(2, "l", Types.LongType.get()),
      Types.NestedField.optional(3, "s", Types.StringType.get()),
      Types.NestedField.optional(4, "d", Types.DateType.get()),
      Types.NestedField.optional(5, "ts", Types.TimestampType.withZone()),
      Types.NestedField.optional(6, "ntz", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(7, "dec", Types.DecimalType.of(9, 2)),
      Types.NestedField.optional(8, "b", Types.BinaryType.get()),
      Types.NestedField.optional(9, "flag", Types.BooleanType.get()),
      Types.NestedField.optional(10, "nested", Types.StructType.of(
          Types.NestedField.optional(11, "inner", Types.LongType.get()))));

  /** Field ids of the indexable columns, with their dotted names. */
  /** A new empty v2 table db.t (one long column id) in a warehouse under {@code root}. */
  static FileSystemTableOperations newTable(File root) {
    FileSystemCatalog catalog = new FileSystemCatalog(IO, "file://" + root.getAbsolutePath());
    catalog.createNamespace(List.of("db"), Map.of());
    TableIdentifier ident = TableIdentifier.of(List.of("db"), "t");
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    return catalog.createTable(ident, TableMetadata.newTableMetadata(schema, PartitionSpec.unpartitioned(),
        SortOrder.unsorted(), catalog.tableLocation(ident), Map.of(), 2));
  }

  static final int[] FIELD_IDS = {1, 2, 3, 4, 5, 6, 7, 8, 9, 11};

  static String name(int fieldId) {
    return SCHEMA.findColumnName(fieldId);
  }

  static String location(File folder, String name) {
    return new File(folder, name).toURI().toString();
  }

  private static final String[] PIECES = {"a", "b", "ab", "é", "中", "😀", "z", "\u007f", ""};

  /** A random value of {@code type}; strings mix one-, two-, three- and four-byte UTF-8 characters. */
  static Object randomValue(Type type, Random rnd) {
    switch (type.typeId()) {
      case BOOLEAN:
        return rnd.nextBoolean();
      case INTEGER:
      case DATE:
        return rnd.nextInt(400) - 200;
      case LONG:
      case TIMESTAMP:
        return (rnd.nextLong() % 2_000_000L) * (rnd.nextInt(3) == 0 ? 1_000_000_000L : 1L);
      case STRING: {
        StringBuilder sb = new StringBuilder();
        for (int i = rnd.nextInt(4); i > 0; i--) {
          sb.append(PIECES[rnd.nextInt(PIECES.length)]);
        }
        return sb.toString();
      }
      case DECIMAL:
        return BigDecimal.valueOf(rnd.nextInt(200_000) - 100_000, 2);
      case BINARY: {
        byte[] bytes = new byte[rnd.nextInt(4)];
        for (int i = 0; i < bytes.length; i++) {
          bytes[i] = (byte) new int[] {0x00, 0x01, 0x7F, 0x80, 0xFF}[rnd.nextInt(5)];
        }
        return ByteBuffer.wrap(bytes);
      }
      default:
        throw new IllegalArgumentException("No random values of " + type);
    }
  }

  /** {@code n} distinct random values of {@code type} (fewer for booleans). */
  static List<Object> domain(Type type, Random rnd, int n) {
    TreeSet<Object> values = new TreeSet<>(IndexKeys.ORDER);
    for (int i = 0; i < n * 4 && values.size() < n; i++) {
      values.add(randomValue(type, rnd));
    }
    return new ArrayList<>(values);
  }

  /** An input file that counts how often it is opened (every Puffin read opens a stream). */
  static final class CountingInputFile implements InputFile {
    private final InputFile delegate;
    final AtomicInteger opens = new AtomicInteger();

    CountingInputFile(InputFile delegate) {
      this.delegate = delegate;
    }

    @Override
    public String location() {
      return delegate.location();
    }

    @Override
    public long length() {
      return delegate.length();
    }

    @Override
    public boolean exists() {
      return delegate.exists();
    }

    @Override
    public InputStream newStream() throws IOException {
      opens.incrementAndGet();
      return delegate.newStream();
    }
  }
}
