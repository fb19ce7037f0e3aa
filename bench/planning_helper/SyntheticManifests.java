import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestWriter;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Bench W3 (bench/planning.py): appends synthetic data-file entries to an Iceberg table through
 * Iceberg's own Java API, without writing data files. Compiled by planning.py at run time against
 * the Iceberg Spark runtime jar; runs in the JVM of the build session (py4j).
 *
 * <p>File {@code i} holds ids {@code [i * rowsPerFile, (i + 1) * rowsPerFile)}, so a predicate on
 * {@code id} keeps only the files whose range it touches. Column bounds, value and null counts are
 * set for every column (id bigint, ts timestamp, category string, amount double). A table partitioned
 * by identity on its column {@code p} (bench/workloads/w03_planning.py) gets {@code p = i / 1000}.
 */
public final class SyntheticManifests {
  private SyntheticManifests() {}

  /**
   * Writes {@code files} entries (file indexes 0.., skipping {@code [skipFrom, skipTo)}) into
   * manifests of {@code perManifest} entries and adds them all in one fast append. Returns the
   * number of manifests written.
   */
  public static int append(Table table, int files, int perManifest, long rowsPerFile, int skipFrom, int skipTo) {
    AppendFiles append = table.newFastAppend();
    int formatVersion = ((org.apache.iceberg.HasTableOperations) table).operations().current().formatVersion();
    int manifests = 0;
    int index = 0;
    int written = 0;
    while (written < files) {
      String path = table.location() + "/metadata/synthetic-" + manifests + "-" + java.util.UUID.randomUUID() + "-m0.avro";
      ManifestWriter<DataFile> writer = ManifestFiles.write(formatVersion, table.spec(), table.io().newOutputFile(path), null);
      try {
        for (int k = 0; k < perManifest && written < files; k++) {
          if (index >= skipFrom && index < skipTo) {
            index = skipTo;
          }
          writer.add(dataFile(table, index, rowsPerFile));
          index++;
          written++;
        }
      } finally {
        try {
          writer.close();
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
      ManifestFile manifest = writer.toManifestFile();
      append.appendManifest(manifest);
      manifests++;
    }
    append.commit();
    return manifests;
  }

  private static DataFile dataFile(Table table, int index, long rowsPerFile) {
    long lo = index * rowsPerFile;
    long hi = lo + rowsPerFile - 1;
    long tsLo = 1_700_000_000_000_000L + lo * 1_000_000L;
    long tsHi = 1_700_000_000_000_000L + hi * 1_000_000L;
    Map<Integer, Long> sizes = new HashMap<>();
    Map<Integer, Long> values = new HashMap<>();
    Map<Integer, Long> nulls = new HashMap<>();
    Map<Integer, ByteBuffer> lower = new HashMap<>();
    Map<Integer, ByteBuffer> upper = new HashMap<>();
    List<Types.NestedField> fields = table.schema().columns();
    for (Types.NestedField f : fields) {
      sizes.put(f.fieldId(), rowsPerFile * 4);
      values.put(f.fieldId(), rowsPerFile);
      nulls.put(f.fieldId(), 0L);
    }
    bounds(table, "id", lo, hi, lower, upper);
    bounds(table, "ts", tsLo, tsHi, lower, upper);
    bounds(table, "category", "cat-" + String.format("%03d", index % 100), "cat-" + String.format("%03d", index % 100 + 50),
        lower, upper);
    bounds(table, "amount", 0.0d, 1000.0d + index % 7, lower, upper);
    Map<Integer, Long> nans = new HashMap<>();
    nans.put(table.schema().findField("amount").fieldId(), 0L);
    Metrics metrics = new Metrics(rowsPerFile, sizes, values, nulls, nans, lower, upper);
    DataFiles.Builder builder = DataFiles.builder(table.spec());
    if (table.spec().isPartitioned()) {
      // bench/workloads/w03_planning.py: identity(p), p = index / 1000, so every manifest holds one partition
      builder.withPartitionPath(table.spec().fields().get(0).name() + "=" + (index / 1000));
    }
    return builder
        .withPath(table.location() + "/data/synthetic/" + String.format("%08d", index) + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(rowsPerFile * 20 + 4096)
        .withMetrics(metrics)
        .build();
  }

  private static void bounds(Table table, String column, Object lo, Object hi, Map<Integer, ByteBuffer> lower,
      Map<Integer, ByteBuffer> upper) {
    Types.NestedField f = table.schema().findField(column);
    Type type = f.type();
    lower.put(f.fieldId(), Conversions.toByteBuffer(type, lo));
    upper.put(f.fieldId(), Conversions.toByteBuffer(type, hi));
  }
}
