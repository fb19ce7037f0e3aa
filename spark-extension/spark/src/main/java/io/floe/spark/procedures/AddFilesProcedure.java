package io.floe.spark.procedures;

import io.floe.format.ErrorClass;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.CommitFailedException;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.io.Locations;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.Metrics;
import io.floe.format.manifest.MetricsModes;
import io.floe.format.metadata.NameMapping;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.scan.TableScan;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.spark.source.TailReadStream;
import io.floe.spark.util.CommitGate;
import io.floe.spark.write.ImportedParquetMetrics;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL floe.system.add_files(table => 'db.t', source_table => '`parquet`.`/path/to/dir`'
 * [, parallelism => 8])}:
 * adds the Parquet files under a directory to the table without rewriting them, as Iceberg's
 * add_files does: each file's footer gives its record count and column metrics (columns matched
 * by name; float and double bounds and NaN counts unknown, so left out), Hive-style directories
 * ({@code col=value}) give the values of identity partition fields. The files stay where they
 * are and become the table's. Unlike Iceberg's, the directory must lie inside the table location:
 * Floe's maintenance deletes only files inside it and refuses metadata that points elsewhere, so a
 * file added from outside would make every later expire_snapshots that reaches it fail. A file the
 * table already has, a file whose columns differ from the table's, or a path that does not exist,
 * fails the call and nothing is committed. Returns the number of files added and of partitions
 * they fall in. {@code parallelism} (as Iceberg's; default {@value #DEFAULT_PARALLELISM}, at most
 * {@value #MAX_PARALLELISM}) is how many threads read the footers.
 */
final class AddFilesProcedure extends FloeProcedure {
  static final String NAME = "add_files";
  static final StructType OUTPUT = new StructType()
      .add("added_files_count", DataTypes.LongType, false)
      .add("changed_partition_count", DataTypes.LongType, false);
  /** Threads reading the files' footers unless the call says otherwise. */
  static final int DEFAULT_PARALLELISM = 8;
  /** At most this many footer threads, whatever the call asks: each is a thread of the driver. */
  static final int MAX_PARALLELISM = 64;
  private static final Pattern PARQUET_SOURCE = Pattern.compile("^`?parquet`?\\.`(.+)`$", Pattern.CASE_INSENSITIVE);

  AddFilesProcedure(CatalogAccess catalog) {
    super(catalog, NAME, "Adds existing Parquet files to a table without rewriting them", new ProcedureParameter[] {
        required("table", DataTypes.StringType),
        required("source_table", DataTypes.StringType),
        optional("parallelism", DataTypes.IntegerType)});
  }

  @Override
  Iterator<Scan> run(InternalRow args) {
    TableIdentifier ident = resolveTable(requiredString(args, 0, "table"));
    String source = requiredString(args, 1, "source_table").trim();
    Matcher matcher = PARQUET_SOURCE.matcher(source);
    if (!matcher.matches()) {
      throw argumentError("source_table", "Cannot run " + qualifiedName() + ": source_table must name a "
          + "directory of Parquet files as '`parquet`.`/path/to/dir`', not '" + source + "'");
    }
    String directory = matcher.group(1).replace("``", "`");
    Integer parallelism = optionalInt(args, 2);
    if (parallelism != null && parallelism < 1) {
      throw argumentError("parallelism", "Cannot run " + qualifiedName() + ": parallelism (the threads that read"
          + " the files' footers) must be at least 1, got " + parallelism);
    }
    FileSystemTableOperations ops = loadTable(ident);
    TableMetadata base = ops.current();
    checkSourceDirectory(ident, base, new Path(directory));
    PartitionSpec spec = base.spec();
    for (PartitionField field : spec.fields()) {
      if (!field.transform().isIdentity()) {
        throw userError(ErrorClass.FLOE_PROCEDURE_REFUSED, "Cannot add files to table " + tableName(ident)
            + ": its partition field " + field.name() + " is not an identity partition (add_files reads "
            + "partition values from col=value directories, so only identity partitions are supported)");
      }
    }
    Configuration conf = SparkSession.active().sessionState().newHadoopConf();
    List<FileStatus> files = listFiles(ident, new Path(directory), conf);
    Set<String> present = liveDataFiles(ops, base);
    for (FileStatus file : files) {
      java.nio.file.Path linked = Locations.realFolderOutside(base.location(), file.getPath().toString());
      if (linked != null) {
        throw argumentError("source_table", "Cannot add file " + file.getPath() + " to table " + tableName(ident)
            + ": it lies, through a symbolic link, in " + linked + ", outside the table location "
            + base.location() + " (maintenance would refuse to delete it); copy the files into the table "
            + "location instead of linking them; nothing was added");
      }
      if (present.contains(Locations.canonical(file.getPath().toString()))) {
        throw userError(ErrorClass.FLOE_PROCEDURE_REFUSED, "Cannot add file " + file.getPath() + " to table "
            + tableName(ident) + ": the table already has it (adding it again would duplicate its rows); "
            + "nothing was added");
      }
    }
    MetricsModes modes = MetricsModes.from(base.properties());
    Schema schema = base.schema();
    List<DataFile> added = new ArrayList<>();
    Set<PartitionData> partitions = new HashSet<>();
    List<FooterRead> footers = footers(files, conf, schema, modes,
        parallelism == null ? DEFAULT_PARALLELISM : parallelism);
    for (int i = 0; i < files.size(); i++) {
      FileStatus file = files.get(i);
      String path = file.getPath().toString();
      Map<String, String> values = hiveValues(new Path(directory), file.getPath());
      PartitionData partition = partition(ident, spec, schema, values, path);
      partitions.add(partition);
      Metrics metrics;
      List<Long> splitOffsets;
      try {
        FooterRead read = footers.get(i).orThrow();
        metrics = read.metrics();
        splitOffsets = read.splitOffsets();
      } catch (IllegalArgumentException e) {
        throw userError(ErrorClass.FLOE_PROCEDURE_REFUSED, "Cannot add file " + path + " to table "
            + tableName(ident) + ": its schema does not match the table's (" + e.getMessage() + "); "
            + "nothing was added");
      } catch (IOException | RuntimeException e) {
        throw userError(ErrorClass.FLOE_FILE_INVALID, "Cannot add file " + path + " to table "
            + tableName(ident) + ": cannot read its Parquet footer (" + e.getMessage() + "); nothing was added");
      }
      added.add(DataFile.builder(spec)
          .withPath(path)
          .withFormat(FileFormat.PARQUET)
          .withPartition(partition)
          .withRecordCount(metrics.recordCount())
          .withFileSizeInBytes(file.getLen())
          .withMetrics(metrics)
          .withSplitOffsets(splitOffsets)
          .build());
    }
    if (!added.isEmpty()) {
      ensureNameMapping(ops);
      AppendFiles append = new AppendFiles(ops);
      added.forEach(append::appendFile);
      // a concurrent add_files of the same files passed the check above too: the commit refuses it
      append.validateFromSnapshot(base.currentSnapshot() == null ? null : base.currentSnapshot().snapshotId())
          .validateNoDuplicateAdds();
      CommitGate.pass(tableName(ident));
      append.commit();
    }
    return result(OUTPUT, new GenericInternalRow(new Object[] {(long) added.size(), (long) partitions.size()}));
  }

  /**
   * The metrics and row-group offsets of one file, from its footer read with options over the
   * session's configuration: without them ({@code ParquetFileReader.open(InputFile)}) Parquet makes
   * a new configuration for every file, loading Hadoop's default resources again (about 6 ms a
   * file, against 0.2-0.5 ms for the footer itself). Only the metrics are kept, not the footer.
   */
  private static FooterRead footer(FileStatus file, Configuration conf, Schema schema, MetricsModes modes) {
    try {
      HadoopInputFile input = HadoopInputFile.fromStatus(file, conf);
      ParquetMetadata footer;
      // the footer's length and the footer in one read of the file's tail (one GET on S3)
      try (SeekableInputStream stream = TailReadStream.wrap(input.newStream(), file.getLen(),
          TailReadStream.DEFAULT_TAIL)) {
        footer = ParquetFileReader.readFooter(input, HadoopReadOptions.builder(conf, file.getPath()).build(), stream);
      }
      return new FooterRead(ImportedParquetMetrics.of(footer, schema.asStruct(), modes),
          ImportedParquetMetrics.splitOffsets(footer), null);
    } catch (IOException | RuntimeException e) {
      return new FooterRead(null, null, e);
    }
  }

  /** What a file's footer gave, or what reading it (or matching it to the table) threw. */
  private record FooterRead(Metrics metrics, List<Long> splitOffsets, Exception error) {
    FooterRead orThrow() throws IOException {
      if (error instanceof IOException io) {
        throw io;
      } else if (error != null) {
        throw (RuntimeException) error;
      }
      return this;
    }
  }

  /** The footer threads for a call's {@code parallelism} over {@code files} files: never more than either, nor 64. */
  static int poolSize(int parallelism, int files) {
    return Math.max(1, Math.min(Math.min(parallelism, MAX_PARALLELISM), files));
  }

  /**
   * What the footers of {@code files} give, in the files' order, read by up to {@code threads}
   * threads (a footer read is a small read or two, bound by latency on an object store). Every file
   * is read before any is looked at, so the first file in listing order that fails is the one
   * reported.
   */
  private static List<FooterRead> footers(List<FileStatus> files, Configuration conf, Schema schema,
      MetricsModes modes, int threads) {
    if (threads == 1 || files.size() < 2) {
      return files.stream().map(f -> footer(f, conf, schema, modes)).toList();
    }
    ExecutorService pool = Executors.newFixedThreadPool(poolSize(threads, files.size()), runnable -> {
      Thread thread = new Thread(runnable, "floe-add-files");
      thread.setDaemon(true);
      return thread;
    });
    try {
      List<Callable<FooterRead>> reads =
          files.stream().<Callable<FooterRead>>map(f -> () -> footer(f, conf, schema, modes)).toList();
      List<FooterRead> out = new ArrayList<>(files.size());
      for (Future<FooterRead> read : pool.invokeAll(reads)) {
        out.add(read.get());
      }
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while reading the footers of the files to add", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("Cannot read the footers of the files to add: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Refuses a source directory outside the table location (Floe's maintenance would refuse to expire
   * the files later) and one that is, holds or lies in the table's metadata folder.
   */
  private void checkSourceDirectory(TableIdentifier ident, TableMetadata base, Path directory) {
    String location = base.location();
    String source = directory.toString();
    String metadata = base.metadataFileLocation() == null ? location + "/metadata"
        : new Path(base.metadataFileLocation()).getParent().toString();
    String canonicalSource = Locations.canonical(source);
    if (canonicalSource != null && (canonicalSource.equals(Locations.canonical(metadata))
        || Locations.isInside(source, metadata) || Locations.isInside(metadata, source))) {
      throw argumentError("source_table", "Cannot add files to table " + tableName(ident) + ": " + source
          + " is or holds the table's metadata folder " + metadata + "; name a folder that holds only data "
          + "files (for example " + base.dataLocation() + "/imported)");
    }
    if (!Locations.isInside(location, source)) {
      throw argumentError("source_table", "Cannot add files to table " + tableName(ident) + ": " + source
          + " is not inside the table location " + location + ". Floe deletes only files inside the table "
          + "location and refuses metadata that points elsewhere, so move or copy the files to a folder below "
          + "it first (for example " + base.dataLocation() + "/imported), then call add_files on that folder");
    }
  }

  /**
   * Sets {@code schema.name-mapping.default} when the table has none, as Iceberg's add_files does:
   * imported files usually carry no Parquet field ids, and other engines read them through it (Floe
   * itself matches such files by name). A lost race is retried on the new version.
   */
  private static void ensureNameMapping(FileSystemTableOperations ops) {
    for (int attempt = 1; ; attempt++) {
      TableMetadata base = ops.refresh();
      if (base.properties().containsKey(NameMapping.DEFAULT)) {
        return;
      }
      try {
        ops.commit(base, TableMetadata.buildFrom(base)
            .setProperties(Map.of(NameMapping.DEFAULT, NameMapping.of(base.schema()).toJson())).build());
        return;
      } catch (CommitFailedException e) {
        if (attempt >= 5) {
          throw e;
        }
      }
    }
  }

  /** The canonical paths of the data files of the table's current snapshot. */
  private static Set<String> liveDataFiles(FileSystemTableOperations ops, TableMetadata base) {
    Snapshot current = base.currentSnapshot();
    if (current == null) {
      return Set.of();
    }
    Set<String> live = new HashSet<>();
    for (var task : TableScan.of(ops.io(), base).useSnapshot(current).planFiles().tasks()) {
      live.add(Locations.canonical(task.file().path()));
    }
    return live;
  }

  /** The data files under {@code root}, hidden ({@code .}) and {@code _} files and folders left out, sorted. */
  private List<FileStatus> listFiles(TableIdentifier ident, Path root, Configuration conf) {
    List<FileStatus> files = new ArrayList<>();
    try {
      FileSystem fs = root.getFileSystem(conf);
      if (!fs.exists(root)) {
        throw new FileNotFoundException(root.toString());
      }
      collect(fs, fs.getFileStatus(root), files, true);
    } catch (FileNotFoundException e) {
      throw argumentError("source_table", "Cannot add files to table " + tableName(ident) + ": source directory "
          + root + " does not exist");
    } catch (IOException e) {
      throw userError(ErrorClass.FLOE_FILE_INVALID, "Cannot add files to table " + tableName(ident)
          + ": cannot list " + root + " (" + e.getMessage() + ")");
    }
    files.sort(Comparator.comparing(f -> f.getPath().toString()));
    return files;
  }

  private static void collect(FileSystem fs, FileStatus status, List<FileStatus> out, boolean root) throws IOException {
    String name = status.getPath().getName();
    if (!root && (name.startsWith(".") || name.startsWith("_"))) {
      return;
    }
    if (status.isFile()) {
      out.add(status);
      return;
    }
    for (FileStatus child : fs.listStatus(status.getPath())) {
      collect(fs, child, out, false);
    }
  }

  /** {@code col=value} segments of {@code file}'s path below {@code root}. */
  private static Map<String, String> hiveValues(Path root, Path file) {
    Map<String, String> values = new LinkedHashMap<>();
    String rootText = Path.getPathWithoutSchemeAndAuthority(root).toString();
    String fileText = Path.getPathWithoutSchemeAndAuthority(file.getParent()).toString();
    if (!fileText.startsWith(rootText)) {
      return values;
    }
    for (String segment : fileText.substring(rootText.length()).split("/")) {
      int eq = segment.indexOf('=');
      if (eq > 0) {
        values.put(segment.substring(0, eq).toLowerCase(java.util.Locale.ROOT), unescape(segment.substring(eq + 1)));
      }
    }
    return values;
  }

  /**
   * A Hive partition directory value: {@code %XX} escapes decoded (as Spark and Hive escape path
   * names; a {@code +} stays a {@code +}), {@code __HIVE_DEFAULT_PARTITION__} is null.
   */
  static String unescape(String text) {
    if ("__HIVE_DEFAULT_PARTITION__".equals(text)) {
      return null;
    }
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c == '%' && i + 2 < text.length() && isHex(text.charAt(i + 1)) && isHex(text.charAt(i + 2))) {
        bytes.write(Integer.parseInt(text.substring(i + 1, i + 3), 16));
        i += 3;
      } else {
        byte[] encoded = String.valueOf(c).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (Character.isHighSurrogate(c) && i + 1 < text.length()) {
          encoded = text.substring(i, i + 2).getBytes(java.nio.charset.StandardCharsets.UTF_8);
          i++;
        }
        bytes.writeBytes(encoded);
        i++;
      }
    }
    return bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
  }

  private static boolean isHex(char c) {
    return Character.digit(c, 16) >= 0;
  }

  private PartitionData partition(TableIdentifier ident, PartitionSpec spec, Schema schema, Map<String, String> values,
      String path) {
    Object[] partition = new Object[spec.fields().size()];
    for (int i = 0; i < partition.length; i++) {
      PartitionField field = spec.fields().get(i);
      String column = schema.findColumnName(field.sourceId());
      String key = column.toLowerCase(java.util.Locale.ROOT);
      if (!values.containsKey(key)) {
        throw userError(ErrorClass.FLOE_PROCEDURE_REFUSED, "Cannot add file " + path + " to table "
            + tableName(ident) + ": it is not in a " + column + "=<value> directory, and the table is partitioned by "
            + column + "; nothing was added");
      }
      String text = values.get(key);
      try {
        partition[i] = text == null ? null : parse(schema.findType(field.sourceId()), text);
      } catch (IllegalArgumentException | java.time.DateTimeException e) {
        throw userError(ErrorClass.FLOE_PROCEDURE_REFUSED, "Cannot add file " + path + " to table "
            + tableName(ident) + ": partition value '" + text + "' of " + column + " is not a "
            + schema.findType(field.sourceId()) + " (" + e.getMessage() + "); nothing was added");
      }
    }
    return PartitionData.of(partition);
  }

  /** A Hive partition directory value as the Java value of an identity partition of type {@code type}. */
  private static Object parse(Type type, String text) {
    switch (type.typeId()) {
      case INTEGER:
        return Integer.parseInt(text);
      case LONG:
        return Long.parseLong(text);
      case STRING:
        return text;
      case BOOLEAN:
        if (!text.equalsIgnoreCase("true") && !text.equalsIgnoreCase("false")) {
          throw new IllegalArgumentException("expected true or false");
        }
        return Boolean.parseBoolean(text);
      case DATE:
        return (int) LocalDate.parse(text).toEpochDay();
      default:
        throw new IllegalArgumentException("add_files reads identity partitions of int, bigint, string, boolean "
            + "and date columns from directory names");
    }
  }
}
