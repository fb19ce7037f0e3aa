package io.floe.format.stream;

import io.floe.format.deletes.DeletionVector;
import io.floe.format.deletes.RoaringPositionBitmap;
import io.floe.format.io.FileIO;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import java.util.List;

/**
 * The row positions a {@link ChangelogTask.DeletedRows} task deletes, computed from deletion
 * vectors alone: the positions of its added vectors minus those of the existing ones (a new vector
 * holds the positions of the one it replaces too). Tasks whose deletes include position delete
 * files or equality deletes need their rows read by the engine; for them this answers null.
 */
public final class ChangelogPositions {
  private ChangelogPositions() {}

  /** The newly deleted positions of {@code task}'s data file, or null when not all its deletes are deletion vectors. */
  public static RoaringPositionBitmap newlyDeleted(FileIO io, ChangelogTask.DeletedRows task) {
    if (!allDeletionVectors(task.addedDeletes()) || !allDeletionVectors(task.existingDeletes())) {
      return null;
    }
    RoaringPositionBitmap before = union(io, task.existingDeletes());
    RoaringPositionBitmap out = new RoaringPositionBitmap();
    union(io, task.addedDeletes()).forEach(pos -> {
      if (!before.contains(pos)) {
        out.add(pos);
      }
    });
    return out;
  }

  private static boolean allDeletionVectors(List<DeleteFile> deletes) {
    return deletes.stream().allMatch(d -> d.content() == FileContent.POSITION_DELETES
        && d.format() == FileFormat.PUFFIN);
  }

  private static RoaringPositionBitmap union(FileIO io, List<DeleteFile> vectors) {
    RoaringPositionBitmap out = new RoaringPositionBitmap();
    for (DeleteFile dv : vectors) {
      out.addAll(DeletionVector.read(io.newInputFile(dv.path()), dv.contentOffset(), dv.contentSizeInBytes(),
          dv.recordCount()).positions());
    }
    return out;
  }
}
