package io.floe.format.index;

import io.floe.format.expr.And;
import io.floe.format.expr.Binder;
import io.floe.format.expr.BoundPredicate;
import io.floe.format.expr.Expression;
import io.floe.format.expr.Expressions;
import io.floe.format.expr.Or;
import io.floe.format.io.FileIO;
import io.floe.format.scan.FileScanTask;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Prunes a scan's file tasks with a table's indexes, after partition and bounds pruning. A task is
 * dropped only when a segment of some index covers its file and says the file holds no match;
 * uncovered files are always kept. An index whose segment cannot be read is skipped (the scan
 * reads those files) and its error is returned for a warning.
 * <pre>
 *   IndexPlanner.Result result = IndexPlanner.of(table, schema, indexList, opener).prune(tasks, filter);
 * </pre>
 */
public final class IndexPlanner {
  /** Opens a reader of one segment (callers may cache readers across scans). */
  @FunctionalInterface
  public interface SegmentOpener {
    IndexSegmentReader open(TableIndex index, IndexSegment segment, Type keyType);

    /** Opens a new reader per segment from {@code io}; {@code table} names the table in errors. */
    static SegmentOpener using(FileIO io, String table) {
      return (index, segment, keyType) -> IndexSegmentReader.open(table, index, segment, keyType,
          io.newInputFile(segment.path()));
    }

    /**
     * As {@link #using}, sharing each segment's footer, directory and file list with the readers of
     * earlier scans in this JVM (for query planning; see {@link IndexSegmentReader#openShared}).
     */
    static SegmentOpener shared(FileIO io, String table) {
      return (index, segment, keyType) -> IndexSegmentReader.openShared(table, index, segment, keyType,
          io.newInputFile(segment.path()));
    }
  }

  /** How one index served a scan: segments read, files covered among the tasks, and files it pruned. */
  public record IndexUsage(String indexName, int segmentsRead, int coveredFiles, int prunedFiles) {
  }

  /** The tasks to scan, how each index took part, and the errors of indexes that could not be used. */
  public record Result(List<FileScanTask> tasks, List<IndexUsage> usages, List<IndexException> failures) {
    public Result {
      tasks = List.copyOf(tasks);
      usages = List.copyOf(usages);
      failures = List.copyOf(failures);
    }

    /** Files pruned by every index together. */
    public int prunedFiles() {
      return usages.stream().mapToInt(IndexUsage::prunedFiles).sum();
    }
  }

  private final Schema schema;
  private final IndexList indexes;
  private final SegmentOpener opener;

  private IndexPlanner(Schema schema, IndexList indexes, SegmentOpener opener) {
    this.schema = Objects.requireNonNull(schema, "Schema is null");
    this.indexes = Objects.requireNonNull(indexes, "Index list is null");
    this.opener = Objects.requireNonNull(opener, "Segment opener is null");
  }

  /** A planner for a table read with {@code schema}, whose indexes are {@code indexes}. */
  public static IndexPlanner of(Schema schema, IndexList indexes, SegmentOpener opener) {
    return new IndexPlanner(schema, indexes, opener);
  }

  /**
   * The tasks of {@code tasks} that may hold rows matching {@code filter} (by column name or bound to
   * {@code schema}). Indexes are tried in list order; a file pruned by one is counted for that one.
   */
  public Result prune(List<FileScanTask> tasks, Expression filter) {
    Expression bound = Expressions.rewriteNot(Binder.bind(schema.asStruct(), filter));
    List<FileScanTask> kept = new ArrayList<>(tasks);
    List<IndexUsage> usages = new ArrayList<>();
    List<IndexException> failures = new ArrayList<>();
    for (TableIndex index : indexes.indexes()) {
      Type keyType = schema.findType(index.sourceFieldId());
      if (keyType == null || !TableIndex.supports(keyType) || !canPrune(bound, index.sourceFieldId())
          || index.segments().isEmpty()) {
        continue;
      }
      try {
        List<MatchingFiles> answers = new ArrayList<>();
        for (IndexSegment segment : index.segments()) {
          answers.add(opener.open(index, segment, keyType).lookup(bound));
        }
        int covered = 0;
        List<FileScanTask> next = new ArrayList<>(kept.size());
        for (FileScanTask task : kept) {
          String path = task.file().path();
          boolean isCovered = false;
          boolean skip = false;
          for (MatchingFiles answer : answers) {
            isCovered |= answer.coveredFiles().covers(path);
            skip |= answer.canSkip(path);
          }
          covered += isCovered ? 1 : 0;
          if (!skip) {
            next.add(task);
          }
        }
        usages.add(new IndexUsage(index.name(), answers.size(), covered, kept.size() - next.size()));
        kept = next;
      } catch (IndexException e) {
        failures.add(e);
      }
    }
    return new Result(kept, usages, failures);
  }

  /**
   * True when {@code expr} can exclude a file through an index on {@code fieldId}: a predicate on
   * the column can, one on another column cannot, an AND can when either side can, an OR only when
   * both sides can. Saves reading segments for a filter such as {@code a = 1 OR b = 2}.
   */
  static boolean canPrune(Expression expr, int fieldId) {
    if (expr instanceof BoundPredicate pred) {
      return pred.fieldId() == fieldId && pred.isStructPath() && pred.op() != Expression.Operation.IS_NAN
          && pred.op() != Expression.Operation.NOT_NAN;
    } else if (expr instanceof And and) {
      return canPrune(and.left(), fieldId) || canPrune(and.right(), fieldId);
    } else if (expr instanceof Or or) {
      return canPrune(or.left(), fieldId) && canPrune(or.right(), fieldId);
    }
    return false;
  }
}
