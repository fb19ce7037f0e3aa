package io.floe.testing;

import io.floe.format.catalog.FileSystemCatalog;
import io.floe.format.catalog.TableIdentifier;
import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.CommitFailedException;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.TableOperations;
import io.floe.format.io.FileIO;
import io.floe.format.io.LocalFileIO;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.FileFormat;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import io.floe.spark.HadoopFileIO;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;

/**
 * One process of the commit storm (docs/reliability.md, R1): THREADS writers in this JVM, each
 * with its own table operations (as each Spark query loads the table anew) over one shared catalog,
 * each committing COMMITS metadata-only appends of one data file through the format API.
 *
 * <pre>
 * java io.floe.testing.CommitStormWriter WAREHOUSE NAMESPACE TABLE WRITER THREADS COMMITS GO_FILE PUBLISHER [key=value...]
 * </pre>
 *
 * PUBLISHER is {@code safe} (Floe's own), {@code unsafe-rename} (an object store's opt-in rename)
 * or {@code check-then-rename} (the negative control, {@link CheckThenRenameFileIO}); key=value
 * pairs go to the Hadoop configuration of an {@code s3a://} or {@code hdfs://} warehouse. Prints
 * {@code READY}, waits for GO_FILE, then per commit {@code ACK <path> <version> <commit-id>
 * <snapshot-id>} once {@code commit()} returned (or {@code FAIL <path> <message>}), and per writer
 * {@code DONE <writer> <retries> <exhausted>}: the lost races it retried, the commits that gave up.
 */
public final class CommitStormWriter {
  private static final long CHECK_THEN_RENAME_WINDOW_MS = 2;

  private CommitStormWriter() {}

  public static void main(String[] args) throws Exception {
    String warehouse = args[0];
    TableIdentifier ident = TableIdentifier.of(List.of(args[1]), args[2]);
    String writer = args[3];
    int threads = Integer.parseInt(args[4]);
    int commits = Integer.parseInt(args[5]);
    Path go = Path.of(args[6]);
    FileIO io = fileIO(warehouse, args[7], List.of(args).subList(8, args.length));
    FileSystemCatalog catalog = new FileSystemCatalog(io, warehouse);
    List<FileSystemTableOperations> tables = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      tables.add(catalog.loadTable(ident));
    }
    PrintStream out = System.out;
    out.println("READY");
    out.flush();
    while (!Files.exists(go)) {
      Thread.sleep(5);
    }
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      String name = threads == 1 ? writer : writer + "t" + t;
      FileSystemTableOperations table = tables.get(t);
      Thread thread = new Thread(() -> commitAll(table, name, commits, out), "storm-" + name);
      thread.start();
      running.add(thread);
    }
    for (Thread thread : running) {
      thread.join();
    }
    out.flush();
  }

  private static FileIO fileIO(String warehouse, String publisher, List<String> settings) {
    FileIO io;
    if (warehouse.startsWith("file:")) {
      io = new LocalFileIO();
    } else {
      Configuration conf = new Configuration();
      for (String setting : settings) {
        int eq = setting.indexOf('=');
        conf.set(setting.substring(0, eq), setting.substring(eq + 1));
      }
      io = "unsafe-rename".equals(publisher) ? HadoopFileIO.withUnsafeObjectStoreCommits(conf) : new HadoopFileIO(conf);
    }
    return switch (publisher) {
      case "safe", "unsafe-rename" -> io;
      case "check-then-rename" -> new CheckThenRenameFileIO(io, CHECK_THEN_RENAME_WINDOW_MS);
      default -> throw new IllegalArgumentException("Unknown publisher: " + publisher);
    };
  }

  private static void commitAll(FileSystemTableOperations table, String writer, int commits, PrintStream out) {
    AtomicInteger retries = new AtomicInteger();
    TableOperations counted = new RaceCountingOperations(table, retries);
    int exhausted = 0;
    for (int i = 0; i < commits; i++) {
      String path = table.current().location() + "/data/" + writer + "-" + i + ".parquet";
      DataFile file = DataFile.builder(table.current().spec())
          .withPath(path)
          .withFormat(FileFormat.PARQUET)
          .withRecordCount(1)
          .withFileSizeInBytes(100)
          .build();
      Snapshot committed;
      try {
        committed = new AppendFiles(counted).appendFile(file).commit();
      } catch (RuntimeException e) {
        exhausted += e instanceof CommitFailedException ? 1 : 0;
        String message = String.valueOf(e.getMessage()).lines().findFirst().orElse(e.getClass().getName());
        println(out, "FAIL " + path + " " + e.getClass().getSimpleName() + ": " + message);
        continue;
      }
      TableMetadata current = table.current();
      println(out, "ACK " + path + " " + table.currentVersion() + " " + current.commitId() + " "
          + committed.snapshotId());
    }
    println(out, "DONE " + writer + " " + retries.get() + " " + exhausted);
  }

  private static void println(PrintStream out, String line) {
    synchronized (out) {
      out.println(line);
    }
  }
}
