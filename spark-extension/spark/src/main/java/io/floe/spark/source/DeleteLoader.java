package io.floe.spark.source;

import io.floe.format.FloeFormatException;
import io.floe.format.deletes.DeletionVector;
import io.floe.format.deletes.RoaringPositionBitmap;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import io.floe.spark.source.FloeInputPartition.DeleteFileRef;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.functional.FutureIO;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Loads what a data file's delete files remove, once per task before its first batch:
 * <ul>
 *   <li>the deleted row positions, in one 64-bit Roaring bitmap that the reader applies per batch:
 *     <ul>
 *       <li>a deletion vector ({@code PUFFIN}): exactly the bytes [content_offset, content_offset +
 *           content_size_in_bytes) of the Puffin file (its footer is never read), whose cardinality
 *           must be the record count;
 *       <li>a Parquet position delete file: its rows whose {@code file_path} is this data file's path;
 *     </ul>
 *   <li>the equality delete sets ({@link EqualityDeleteSet}): one per distinct list of equality
 *       field ids, holding the rows of all those delete files.
 * </ul>
 * Which delete files apply was decided at planning by the spec's sequence-number rules.
 *
 * <p>A task reading several data files ({@link TaskDeletes}) reads each delete file at most once:
 * the deletion vectors of its files that share a Puffin file are read with one open and one read
 * per contiguous stretch of blobs; a position delete file covering several of its data files is
 * read once for all of them; an equality delete file is loaded once and shared by every data file
 * it applies to.
 */
public final class DeleteLoader {
  /** Deletion vectors closer than this in one Puffin file are read together, gap included. */
  private static final long MAX_GAP = 1 << 20;
  /** The largest stretch of a Puffin file read at once. */
  private static final long MAX_READ = 64L << 20;

  private DeleteLoader() {}

  /**
   * The positions that {@code deleteFiles} (the delete files that apply to it, as planned) remove
   * from the data file at {@code dataFilePath}: its deletion vector and position delete files.
   * Equality delete files are skipped: they delete by value, not position, and stay in force. Used
   * by merge-on-read writers to merge a file's existing deletes into its new deletion vector or
   * delete file.
   */
  public static RoaringPositionBitmap positionsOf(String dataFilePath,
      List<io.floe.format.manifest.DeleteFile> deleteFiles, Configuration conf) {
    List<DeleteFileRef> refs = deleteFiles.stream().map(DeleteFileRef::of).filter(d -> !d.isEquality()).toList();
    // loaded by a cache of this call only: the caller may change the result
    RoaringPositionBitmap positions = new TaskDeletes(conf, FloeParquetReader.DEFAULT_BATCH_SIZE, Map.of())
        .positions(dataFilePath, refs);
    return positions != null ? positions : new RoaringPositionBitmap();
  }

  /**
   * {@link #positionsOf(String, List, Configuration)} for many data files at once (data file path
   * to the delete files that apply to it): deletion vectors that share a Puffin file are read
   * with one open and one read per stretch of nearby blobs, and a position delete file covering
   * several of the data files is read once. Every data file of the map is in the result (an empty
   * bitmap when nothing is deleted); each bitmap is the caller's to change.
   */
  public static Map<String, RoaringPositionBitmap> positionsOf(
      Map<String, List<io.floe.format.manifest.DeleteFile>> deleteFilesByDataFile, Configuration conf) {
    Map<String, List<DeleteFileRef>> refs = new LinkedHashMap<>();
    deleteFilesByDataFile.forEach((path, files) ->
        refs.put(path, files.stream().map(DeleteFileRef::of).filter(d -> !d.isEquality()).toList()));
    TaskDeletes deletes = new TaskDeletes(conf, FloeParquetReader.DEFAULT_BATCH_SIZE, refs);
    Map<String, RoaringPositionBitmap> out = new LinkedHashMap<>();
    refs.forEach((path, files) -> {
      RoaringPositionBitmap positions = deletes.positions(path, files);
      RoaringPositionBitmap own = new RoaringPositionBitmap();
      if (positions != null) {
        own.addAll(positions); // a position file's bitmaps may be shared between data files' results
      }
      out.put(path, own);
    });
    return out;
  }

  /**
   * Every position a Parquet position delete file deletes, by the data file path its rows name
   * (the whole file, whichever data files it covers): for rewriting it with other paths.
   */
  public static Map<String, RoaringPositionBitmap> positionsByDataFile(String positionDeleteFile,
      Configuration conf) {
    return PositionDeleteFileReader.readAll(positionDeleteFile, conf, FloeParquetReader.DEFAULT_BATCH_SIZE);
  }

  /**
   * The deletes of the data files of one task, loaded on demand and shared between its files.
   * Single-threaded, like the task.
   */
  static final class TaskDeletes implements AutoCloseable {
    private final Configuration conf;
    private final int batchSize;
    private final Map<String, List<DeleteFileRef>> files; // data file path -> its deletes
    // Puffin path -> content offset -> blob bytes not yet used
    private final Map<String, Map<Long, byte[]>> blobs = new HashMap<>();
    // position delete file path -> data file path -> its positions
    private final Map<String, Map<String, RoaringPositionBitmap>> positionFiles = new HashMap<>();
    private final Map<String, EqualityDeleteSet> equalityFiles = new HashMap<>();
    private final Map<List<String>, EqualityDeleteSet> equalityUnions = new HashMap<>();

    /** {@code files}: the task's data files, so that deletes they share are read once for all. */
    TaskDeletes(Configuration conf, int batchSize, List<FloeInputPartition> files) {
      this(conf, batchSize, byPath(files));
    }

    /** {@code files}: data file path to the deletes that apply to it. */
    TaskDeletes(Configuration conf, int batchSize, Map<String, List<DeleteFileRef>> files) {
      this.conf = conf;
      this.batchSize = batchSize;
      this.files = files;
    }

    private static Map<String, List<DeleteFileRef>> byPath(List<FloeInputPartition> files) {
      Map<String, List<DeleteFileRef>> out = new LinkedHashMap<>();
      for (FloeInputPartition file : files) {
        out.merge(file.path(), file.deletes(), (a, b) -> {
          List<DeleteFileRef> both = new ArrayList<>(a);
          both.addAll(b);
          return both;
        });
      }
      return out;
    }

    /**
     * The positions the position deletes and deletion vectors of {@code file} remove, or null when
     * it has none. The bitmap may be shared with other files' readers: read it, never change it.
     */
    RoaringPositionBitmap positions(FloeInputPartition file) {
      return positions(file.path(), file.deletes().stream().filter(d -> !d.isEquality()).toList());
    }

    private RoaringPositionBitmap positions(String dataFilePath, List<DeleteFileRef> deletes) {
      RoaringPositionBitmap only = null;
      RoaringPositionBitmap merged = null;
      for (DeleteFileRef delete : deletes) {
        RoaringPositionBitmap positions = positionsOf(dataFilePath, delete);
        if (positions.isEmpty()) {
          continue;
        }
        if (only == null) {
          only = positions;
        } else {
          if (merged == null) {
            merged = new RoaringPositionBitmap();
            merged.addAll(only);
          }
          merged.addAll(positions);
        }
      }
      return merged != null ? merged : only;
    }

    private RoaringPositionBitmap positionsOf(String dataFilePath, DeleteFileRef delete) {
      FileContent content = FileContent.fromId(delete.content());
      if (content != FileContent.POSITION_DELETES) {
        throw new IllegalStateException("Invalid delete file " + delete.path() + " for " + dataFilePath
            + ": content " + content + ", expected position deletes");
      }
      FileFormat format = FileFormat.fromString(delete.format());
      switch (format) {
        case PUFFIN:
          return deletionVector(dataFilePath, delete);
        case PARQUET:
          return positionFile(dataFilePath, delete);
        default:
          throw new UnsupportedOperationException("Cannot read data file " + dataFilePath
              + ": its position delete file " + delete.path() + " is " + format
              + ", and Floe reads position deletes from Parquet files and deletion vectors");
      }
    }

    /** Reads a position delete file once for every data file of the task that it applies to. */
    private RoaringPositionBitmap positionFile(String dataFilePath, DeleteFileRef delete) {
      Map<String, RoaringPositionBitmap> byDataFile = positionFiles.get(delete.path());
      if (byDataFile == null || !byDataFile.containsKey(dataFilePath)) {
        Map<UTF8String, RoaringPositionBitmap> targets = new LinkedHashMap<>();
        targets.put(UTF8String.fromString(dataFilePath), new RoaringPositionBitmap());
        files.forEach((path, deletes) -> {
          if (deletes.contains(delete)) {
            targets.computeIfAbsent(UTF8String.fromString(path), k -> new RoaringPositionBitmap());
          }
        });
        PositionDeleteFileReader.read(delete.path(), delete.fileSizeInBytes(), targets, conf, batchSize);
        byDataFile = positionFiles.computeIfAbsent(delete.path(), k -> new HashMap<>());
        for (Map.Entry<UTF8String, RoaringPositionBitmap> e : targets.entrySet()) {
          byDataFile.put(e.getKey().toString(), e.getValue());
        }
      }
      return byDataFile.get(dataFilePath);
    }

    private RoaringPositionBitmap deletionVector(String dataFilePath, DeleteFileRef dv) {
      if (dv.contentOffset() == null || dv.contentSizeInBytes() == null) {
        throw new FloeFormatException("Invalid deletion vector " + dv.path() + " for data file " + dataFilePath
            + ": the manifest entry has no content_offset or content_size_in_bytes");
      }
      long offset = dv.contentOffset();
      long length = dv.contentSizeInBytes();
      if (offset < 0 || length < 0 || length > Integer.MAX_VALUE) {
        throw new FloeFormatException("Invalid deletion vector " + dv.path() + " for data file " + dataFilePath
            + ": content_offset " + offset + ", content_size_in_bytes " + length);
      }
      Map<Long, byte[]> cached = blobs.get(dv.path());
      byte[] blob = cached == null ? null : cached.remove(offset);
      if (blob == null || blob.length != length) {
        readBlobs(dv);
        blob = blobs.get(dv.path()).remove(offset);
      }
      return DeletionVector.deserialize(blob, dv.recordCount(),
          "deletion vector in " + dv.path() + " at offset " + offset + " (for data file " + dataFilePath + ")")
          .positions();
    }

    /**
     * Reads {@code dv}'s blob and those of the task's other deletion vectors in the same Puffin
     * file, with one open and one read per stretch of nearby blobs.
     */
    private void readBlobs(DeleteFileRef dv) {
      List<long[]> ranges = new ArrayList<>(); // offset, length
      ranges.add(new long[] {dv.contentOffset(), dv.contentSizeInBytes()});
      for (List<DeleteFileRef> deletes : files.values()) {
        for (DeleteFileRef d : deletes) {
          if (d.path().equals(dv.path()) && d.contentOffset() != null && d.contentSizeInBytes() != null
              && d.contentOffset() >= 0 && d.contentSizeInBytes() >= 0 && d.contentSizeInBytes() <= Integer.MAX_VALUE
              && !d.contentOffset().equals(dv.contentOffset())) {
            ranges.add(new long[] {d.contentOffset(), d.contentSizeInBytes()});
          }
        }
      }
      ranges.sort(Comparator.comparingLong(r -> r[0]));
      Map<Long, byte[]> out = blobs.computeIfAbsent(dv.path(), k -> new HashMap<>());
      Path path = new Path(dv.path());
      try {
        FileSystem fs = path.getFileSystem(conf);
        long needed = ranges.stream().mapToLong(r -> r[0] + r[1]).max().orElse(0);
        long length = dv.fileSizeInBytes();
        try (FSDataInputStream in = length >= needed ? open(fs, path, length) : fs.open(path)) {
          int i = 0;
          while (i < ranges.size()) {
            long start = ranges.get(i)[0];
            long end = start + ranges.get(i)[1];
            int j = i + 1;
            while (j < ranges.size() && ranges.get(j)[0] - end <= MAX_GAP
                && Math.max(end, ranges.get(j)[0] + ranges.get(j)[1]) - start <= MAX_READ) {
              end = Math.max(end, ranges.get(j)[0] + ranges.get(j)[1]);
              j++;
            }
            byte[] stretch = new byte[(int) (end - start)];
            try {
              in.readFully(start, stretch);
            } catch (EOFException e) {
              throw new FloeFormatException("Invalid Puffin file " + dv.path() + ": expected " + stretch.length
                  + " bytes at offset " + start + " (deletion vectors), found end of file (truncated file)", e);
            }
            for (int k = i; k < j; k++) {
              int from = (int) (ranges.get(k)[0] - start);
              out.put(ranges.get(k)[0], Arrays.copyOfRange(stretch, from, from + (int) ranges.get(k)[1]));
            }
            i = j;
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read deletion vectors from " + dv.path(), e);
      }
    }

    /**
     * Opens {@code path}, {@code length} bytes long (its manifest entry), for positioned reads and
     * without a status request (a HEAD on an object store): Hadoop's {@code openFile} with the
     * file's status.
     */
    private static FSDataInputStream open(FileSystem fs, Path path, long length) throws IOException {
      return FutureIO.awaitFuture(fs.openFile(path).withFileStatus(new FileStatus(length, false, 1, 0, 0, path))
          .opt("fs.option.openfile.read.policy", "random").build());
    }

    /**
     * The equality delete sets that apply to {@code file}: one per distinct list of equality field
     * ids, each holding the rows of all its delete files. Empty when none applies.
     */
    List<EqualityDeleteSet> equalitySets(FloeInputPartition file) {
      Map<List<Integer>, List<DeleteFileRef>> byIds = new LinkedHashMap<>();
      for (DeleteFileRef d : file.deletes()) {
        if (d.isEquality()) {
          FileFormat format = FileFormat.fromString(d.format());
          if (format != FileFormat.PARQUET) {
            throw new UnsupportedOperationException("Cannot read data file " + file.path()
                + ": its equality delete file " + d.path() + " is " + format
                + ", and Floe reads equality deletes from Parquet files");
          }
          byIds.computeIfAbsent(d.equalityFieldIds(), k -> new ArrayList<>()).add(d);
        }
      }
      List<EqualityDeleteSet> sets = new ArrayList<>();
      for (Map.Entry<List<Integer>, List<DeleteFileRef>> group : byIds.entrySet()) {
        List<EqualityDeleteSet> loaded = new ArrayList<>();
        List<String> paths = new ArrayList<>();
        for (DeleteFileRef d : group.getValue()) {
          EqualityDeleteSet set = equalityFiles.get(d.path());
          if (set == null) {
            String context = "equality delete file " + d.path() + " of data file " + file.path();
            set = EqualityDeleteSet.load(d.path(), d.fileSizeInBytes(), d.equalityFieldIds(),
                EqualityDeleteColumns.select(file.equalitySchema(), d.equalityFieldIds(), context), conf, batchSize);
            equalityFiles.put(d.path(), set);
          }
          if (set.size() > 0) {
            loaded.add(set);
            paths.add(d.path());
          }
        }
        if (loaded.size() == 1) {
          sets.add(loaded.get(0));
        } else if (loaded.size() > 1) {
          paths.sort(null);
          sets.add(equalityUnions.computeIfAbsent(paths, k -> EqualityDeleteSet.union(loaded)));
        }
      }
      return sets;
    }

    /** Drops what was loaded (nothing holds a file open between calls). */
    @Override
    public void close() {
      blobs.clear();
      positionFiles.clear();
      equalityFiles.clear();
      equalityUnions.clear();
    }
  }
}
