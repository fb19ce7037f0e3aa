package io.floe.spark.index;

import io.floe.format.commit.CommitStateUnknownException;
import io.floe.format.commit.TableOperations;
import io.floe.format.index.IndexColumns;
import io.floe.format.index.IndexErrors;
import io.floe.format.index.IndexException;
import io.floe.format.index.IndexList;
import io.floe.format.index.IndexListCommit;
import io.floe.format.index.IndexListFiles;
import io.floe.format.index.IndexLocations;
import io.floe.format.index.IndexSegment;
import io.floe.format.index.IndexSegmentMerger;
import io.floe.format.index.IndexSegmentReader;
import io.floe.format.index.IndexSegmentWriter;
import io.floe.format.index.IndexType;
import io.floe.format.index.TableIndex;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.scan.FileScanTask;
import io.floe.format.scan.TableScan;
import io.floe.format.sql.SqlTokens;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import io.floe.spark.util.PhaseLog;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CREATE INDEX, DROP INDEX and the index listing of one table, shared by {@code SupportsIndex} and
 * the procedures. A build reads the current snapshot's live data files (covering what it saw; files
 * appended meanwhile stay uncovered and are scanned), then commits the new index list in a
 * metadata-only commit ({@link IndexListCommit}). User errors are {@link io.floe.format.index.IndexException}s
 * from {@link IndexErrors}; callers turn them into Spark's exceptions.
 */
public final class TableIndexes {
  private static final Logger LOG = LoggerFactory.getLogger(TableIndexes.class);
  /** Options CREATE INDEX accepts (besides the type). */
  static final List<String> OPTIONS = List.of(TableIndex.MAINTENANCE);

  private final TableOperations ops;
  private final String tableName;
  private final String quotedName;

  /** {@code tableName} is how Spark names the table (catalog.db.t), {@code quotedName} the same quoted for SQL. */
  public TableIndexes(TableOperations ops, String tableName, String quotedName) {
    this.ops = ops;
    this.tableName = tableName;
    this.quotedName = quotedName;
  }

  /** The table's current indexes (fails with an IndexException when the index list cannot be read). */
  public IndexList current() {
    return IndexListFiles.read(ops.io(), tableName, ops.refresh().properties());
  }

  /** True when an index named {@code name} exists. */
  public boolean exists(String name) {
    return current().index(name) != null;
  }

  /**
   * Builds and commits index {@code name} on the column at {@code column} (name parts) of type
   * {@code type} (null or empty: inverted). Fails when the name exists, now or by the time of the commit.
   */
  public TableIndex create(SparkSession spark, String name, List<String> column, String type,
      Map<String, String> options) {
    TableMetadata base = ops.refresh();
    String columnName = String.join(".", column);
    Types.NestedField field = IndexColumns.resolve(base.schema(), column);
    if (field == null) {
      List<String> collection = IndexColumns.collectionOnPath(base.schema(), column);
      if (collection != null) {
        throw IndexErrors.insideCollection(tableName, name, columnName, String.join(".", collection),
            IndexColumns.resolve(base.schema(), collection).type());
      }
      throw IndexErrors.unknownColumn(tableName, name, columnName);
    }
    if (!TableIndex.supports(field.type())) {
      throw IndexErrors.unsupportedType(tableName, name, columnName, field.type());
    }
    IndexType indexType;
    try {
      indexType = type == null || type.isBlank() ? IndexType.INVERTED : IndexType.fromName(type.trim());
    } catch (IllegalArgumentException e) {
      throw IndexErrors.unknownType(tableName, name, type);
    }
    TableIndex.Builder definition = TableIndex.builder(name, indexType, field.fieldId());
    for (Map.Entry<String, String> option : options.entrySet()) {
      String key = option.getKey().toLowerCase(Locale.ROOT);
      if (!OPTIONS.contains(key) || !List.of(TableIndex.MAINTENANCE_SYNC, TableIndex.MAINTENANCE_DEFERRED)
          .contains(option.getValue().toLowerCase(Locale.ROOT))) {
        throw IndexErrors.unknownOption(tableName, name, option.getKey() + "=" + option.getValue());
      }
      definition.setProperty(key, option.getValue().toLowerCase(Locale.ROOT));
    }
    IndexList before = IndexListFiles.read(ops.io(), tableName, base.properties());
    if (before.index(name) != null) {
      throw IndexErrors.indexExists(tableName, name);
    }
    Snapshot snapshot = base.currentSnapshot();
    List<IndexSegment> segments = new ArrayList<>();
    PhaseLog progress = PhaseLog.start("create_index " + name, tableName);
    if (snapshot != null) {
      List<FileScanTask> tasks = TableScan.of(ops.io(), base).useSnapshot(snapshot).planFiles().tasks();
      progress.phase("planned " + tasks.size() + " data files of snapshot " + snapshot.snapshotId() + " to index ("
          + indexType.typeName() + " on " + columnName + ")");
      String columnSql = column(base, field.fieldId());
      segments = IndexBuildJob.build(spark, target(), definition.build(), field.type(), columnSql, snapshot, tasks);
      progress.phase("built " + segments.size() + " segments: "
          + segments.stream().mapToLong(IndexSegment::entryCount).sum() + " keys, "
          + segments.stream().mapToLong(IndexSegment::fileSizeInBytes).sum() + " bytes");
    }
    segments.forEach(definition::addSegment);
    TableIndex index = definition.build();
    try {
      IndexListCommit.commit(ops, tableName, (current, latest) -> {
        if (current.index(name) != null) {
          throw IndexErrors.indexExists(tableName, name);
        }
        if (latest.schema().findField(field.fieldId()) == null) {
          throw IndexErrors.unknownColumn(tableName, name, columnName);
        }
        return IndexList.buildFrom(current).add(index).build();
      });
    } catch (CommitStateUnknownException e) {
      throw e; // the segments may be committed: keep them
    } catch (RuntimeException e) {
      IndexFiles.deleteQuietly(ops.io(), segments);
      throw e;
    }
    progress.phase("committed the index list with " + segments.size() + " segments");
    return index;
  }

  /** Drops index {@code name}; fails when there is none. Its files stay until expire_snapshots. */
  public void drop(String name) {
    IndexListCommit.commit(ops, tableName, (current, latest) -> {
      if (current.index(name) == null) {
        throw IndexErrors.noSuchIndex(tableName, name);
      }
      return IndexList.buildFrom(current).remove(name).build();
    });
  }

  /** What rewrite_index did: segments before and after, live files covered, files newly indexed. */
  public record RewriteResult(int segmentsBefore, int segmentsAfter, int coveredFiles, int addedFiles) {
  }

  /**
   * rewrite_index: merges the segments of index {@code name} (into one, or one per bin of
   * {@link IndexSegmentMerger#bins} for a large index), dropping files that are no longer live,
   * and indexes the live files no segment covers. Segments that cannot be read are
   * dropped and their files indexed again, which repairs a corrupt or missing segment.
   */
  public RewriteResult rewrite(SparkSession spark, String name) {
    TableMetadata base = ops.refresh();
    TableIndex index = IndexListFiles.read(ops.io(), tableName, base.properties()).index(name);
    if (index == null) {
      throw IndexErrors.noSuchIndex(tableName, name);
    }
    Type keyType = base.schema().findType(index.sourceFieldId());
    Snapshot snapshot = base.currentSnapshot();
    List<FileScanTask> live = snapshot == null ? List.of()
        : TableScan.of(ops.io(), base).useSnapshot(snapshot).planFiles().tasks();
    Set<String> livePaths = live.stream().map(t -> t.file().path()).collect(Collectors.toSet());
    Map<IndexSegment, IndexSegmentReader> readable = new LinkedHashMap<>();
    Set<String> covered = new HashSet<>();
    for (IndexSegment segment : index.segments()) {
      IndexSegmentReader reader = IndexSegmentReader.open(tableName, index, segment, keyType,
          ops.io().newInputFile(segment.path()));
      try {
        covered.addAll(reader.coveredFiles().paths());
        readable.put(segment, reader);
      } catch (IndexException e) {
        LOG.warn("Rebuilding what segment {} covered: {}", segment.path(), e.getMessage());
      }
    }
    covered.retainAll(livePaths);
    PhaseLog progress = PhaseLog.start("rewrite_index " + name, tableName);
    progress.phase("planned: " + index.segments().size() + " segments (" + readable.size() + " readable) covering "
        + covered.size() + " of " + live.size() + " live data files");
    List<IndexSegment> written = new ArrayList<>();
    try {
      long snapshotId = snapshot == null ? -1 : snapshot.snapshotId();
      long sequence = snapshot == null ? -1 : snapshot.sequenceNumber();
      // merged in bins that bound the memory of each merge; a bin without live files is dropped
      for (List<IndexSegment> bin : IndexSegmentMerger.bins(List.copyOf(readable.keySet()),
          IndexSegmentMerger.Limits.DEFAULT)) {
        List<IndexSegmentReader> readers = bin.stream().map(readable::get).toList();
        if (readers.stream().noneMatch(r -> r.coveredFiles().paths().stream().anyMatch(livePaths::contains))) {
          continue;
        }
        IndexSegmentWriter writer = IndexSegmentWriter.builder(index.type(), index.sourceFieldId(), keyType)
            .snapshot(snapshotId, sequence).build();
        written.add(IndexSegmentMerger.merge(readers, livePaths, writer,
            ops.io().newOutputFile(IndexLocations.newSegment(target().metadataFolder(), name))));
      }
      progress.phase("merged " + readable.size() + " segments into " + written.size());
      List<FileScanTask> uncovered = live.stream().filter(t -> !covered.contains(t.file().path())).toList();
      if (!uncovered.isEmpty()) {
        int merged = written.size();
        written.addAll(IndexBuildJob.build(spark, target(), index, keyType, column(base, index.sourceFieldId()),
            snapshot, uncovered));
        progress.phase("indexed " + uncovered.size() + " uncovered data files into " + (written.size() - merged)
            + " segments");
      }
      IndexListCommit.commit(ops, tableName, (current, latest) -> {
        TableIndex now = current.index(name);
        if (now == null || now.sourceFieldId() != index.sourceFieldId()) {
          throw IndexErrors.noSuchIndex(tableName, name);
        }
        TableIndex.Builder next = TableIndex.buildFrom(now).removeSegments();
        now.segments().stream().filter(s -> !index.segments().contains(s)).forEach(next::addSegment);
        written.forEach(next::addSegment);
        return IndexList.buildFrom(current).replace(next.build()).build();
      });
    } catch (CommitStateUnknownException e) {
      throw e;
    } catch (RuntimeException e) {
      IndexFiles.deleteQuietly(ops.io(), written);
      throw e;
    }
    progress.phase("committed the index list with " + written.size() + " new segments");
    return new RewriteResult(index.segments().size(), written.size(), covered.size(),
        live.size() - covered.size());
  }

  /** The column of field {@code fieldId} as SQL names it: {@code `a`.`b`}. */
  static String column(TableMetadata metadata, int fieldId) {
    return quote(IndexColumns.path(metadata.schema(), fieldId));
  }

  /** Name parts quoted for SQL: {@code `a`.`b`}. */
  static String quote(List<String> parts) {
    return SqlTokens.quote(parts);
  }

  private IndexBuildJob.Target target() {
    return new IndexBuildJob.Target(tableName, quotedName, ops.io(), ops.metadataRoot() + "/metadata");
  }
}
