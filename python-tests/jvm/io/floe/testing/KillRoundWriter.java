package io.floe.testing;

import io.floe.format.commit.AppendFiles;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.RowDelta;
import io.floe.format.io.LocalFileIO;
import io.floe.format.manifest.DataFile;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * One writer of R3's kill rounds, killed with {@code kill -9} at a random moment:
 * {@code KillRoundWriter DIR WRITER ROUND GO_FILE} loads db.t, prints {@code READY}, waits for
 * GO_FILE, then commits until killed: appends of one data file {@code w<WRITER>-r<ROUND>-<i>}, and
 * every third commit a row delta (a new data file plus a deletion vector on one of its own earlier
 * files). Prints {@code ACK <snapshot id> <data file path>} once a commit returned.
 */
public final class KillRoundWriter {
  private KillRoundWriter() {}

  public static void main(String[] args) throws Exception {
    String warehouse = CrashMatrix.uri(Paths.get(args[0]));
    String writer = args[1];
    String round = args[2];
    LocalFileIO io = new LocalFileIO();
    FileSystemTableOperations ops = ReliabilityTables.catalog(io, warehouse).loadTable(ReliabilityTables.IDENT);
    System.out.println("READY");
    System.out.flush();
    while (!Files.exists(Paths.get(args[3]))) {
      Thread.sleep(2);
    }
    List<DataFile> mine = new ArrayList<>();
    for (int i = 0; ; i++) {
      TableMetadata base = ops.refresh();
      DataFile file = ReliabilityTables.writeDataFile(io, base, "w" + writer + "-r" + round + "-" + i);
      Snapshot committed;
      if (i % 3 == 2 && !mine.isEmpty()) {
        DataFile target = mine.remove(0);
        committed = new RowDelta(ops).addRows(file)
            .addDeletes(ReliabilityTables.writeDeletionVector(io, base, target))
            .validateDataFilesExist(List.of(target.path())).commit();
      } else {
        committed = new AppendFiles(ops).appendFile(file).commit();
        mine.add(file);
      }
      System.out.println("ACK " + committed.snapshotId() + " " + file.path());
      System.out.flush();
    }
  }
}
