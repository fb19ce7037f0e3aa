package io.floe.format.stream;

import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.partition.PartitionSpec;
import java.util.List;

/**
 * One unit of a table's change feed (docs/streaming.md), as Iceberg's changelog scan tasks: a data
 * file whose rows, filtered by delete files, are emitted with one change type. Every task carries
 * the snapshot that made the change and its {@code changeOrdinal}, the index of that snapshot among
 * the range's snapshots that change rows (oldest first, from 0; {@code replace} snapshots take none).
 * The tasks name files and deletes; an engine reads the rows.
 */
public sealed interface ChangelogTask permits ChangelogTask.AddedRows, ChangelogTask.DeletedDataFile,
    ChangelogTask.DeletedRows {

  /** The change type of every row a task emits ({@code _change_type}). */
  enum ChangeType {
    INSERT,
    DELETE
  }

  int changeOrdinal();

  long commitSnapshotId();

  DataFile file();

  PartitionSpec spec();

  ChangeType changeType();

  /**
   * INSERT the rows of a data file the snapshot added, minus those {@code deletes} (delete files
   * of the same commit that apply to it) delete.
   */
  record AddedRows(int changeOrdinal, long commitSnapshotId, DataFile file, PartitionSpec spec,
      List<DeleteFile> deletes) implements ChangelogTask {
    public AddedRows {
      deletes = List.copyOf(deletes);
    }

    @Override
    public ChangeType changeType() {
      return ChangeType.INSERT;
    }
  }

  /**
   * DELETE the rows of a data file the snapshot removed (copy-on-write delete or overwrite) that
   * were live before it: all rows minus those {@code existingDeletes} already deleted.
   */
  record DeletedDataFile(int changeOrdinal, long commitSnapshotId, DataFile file, PartitionSpec spec,
      List<DeleteFile> existingDeletes) implements ChangelogTask {
    public DeletedDataFile {
      existingDeletes = List.copyOf(existingDeletes);
    }

    @Override
    public ChangeType changeType() {
      return ChangeType.DELETE;
    }
  }

  /**
   * DELETE the rows of a data file that stays in the table which the snapshot's new delete files
   * ({@code addedDeletes}: position deletes, deletion vectors, or equality deletes with a higher
   * sequence number) delete and that {@code existingDeletes} (the deletes that applied to the file
   * before the snapshot, including a deletion vector the new one replaces) had not deleted already.
   */
  record DeletedRows(int changeOrdinal, long commitSnapshotId, DataFile file, PartitionSpec spec,
      List<DeleteFile> addedDeletes, List<DeleteFile> existingDeletes) implements ChangelogTask {
    public DeletedRows {
      addedDeletes = List.copyOf(addedDeletes);
      existingDeletes = List.copyOf(existingDeletes);
      if (addedDeletes.isEmpty()) {
        throw new IllegalArgumentException("Invalid deleted-rows task for " + file.path() + ": no added deletes");
      }
    }

    @Override
    public ChangeType changeType() {
      return ChangeType.DELETE;
    }
  }
}
