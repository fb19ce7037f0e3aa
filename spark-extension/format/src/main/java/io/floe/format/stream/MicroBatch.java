package io.floe.format.stream;

import java.util.List;

/** The files of one micro-batch, in commit order, and the offset just after them (the next batch's start). */
public record MicroBatch(List<AppendedFile> files, StreamingOffset end) {
  public MicroBatch {
    files = List.copyOf(files);
  }

  public long rows() {
    return files.stream().mapToLong(f -> f.file().recordCount()).sum();
  }
}
