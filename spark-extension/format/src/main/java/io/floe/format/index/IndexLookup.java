package io.floe.format.index;

import io.floe.format.expr.And;
import io.floe.format.expr.BoundPredicate;
import io.floe.format.expr.Expression;
import io.floe.format.expr.Or;
import java.util.ArrayList;
import java.util.List;
import org.roaringbitmap.RoaringBitmap;

/**
 * Evaluates a bound, NOT-free filter against one segment, giving the ordinals of the covered files
 * that may hold a match. Every answer is a superset of the true one: a predicate the index cannot
 * answer (another column, NOT_EQ, NaN checks, an unexpected literal) gives every covered file, or
 * every file holding a non-null value when that alone is certain. AND intersects, OR unites; range
 * predicates on the column under one AND become one key range, so {@code x >= a AND x <= b} reads
 * only the pages between a and b.
 */
final class IndexLookup {
  private final IndexSegmentReader reader;
  private final int fieldId;

  IndexLookup(IndexSegmentReader reader, int fieldId) {
    this.reader = reader;
    this.fieldId = fieldId;
  }

  RoaringBitmap evaluate(Expression expr) {
    switch (expr.op()) {
      case TRUE:
        return all();
      case FALSE:
        return new RoaringBitmap();
      case AND:
        return and(expr);
      case OR:
        return RoaringBitmap.or(evaluate(((Or) expr).left()), evaluate(((Or) expr).right()));
      default:
        return expr instanceof BoundPredicate ? predicate((BoundPredicate) expr) : all();
    }
  }

  private RoaringBitmap all() {
    return RoaringBitmap.bitmapOfRange(0, reader.fileCount());
  }

  private boolean onColumn(Expression expr) {
    return expr instanceof BoundPredicate && ((BoundPredicate) expr).fieldId() == fieldId
        && ((BoundPredicate) expr).isStructPath();
  }

  private RoaringBitmap and(Expression expr) {
    List<Expression> conjuncts = new ArrayList<>();
    flatten(expr, conjuncts);
    KeyRange range = KeyRange.ALL;
    boolean ranged = false;
    RoaringBitmap result = null;
    for (Expression conjunct : conjuncts) {
      KeyRange r = onColumn(conjunct) ? KeyRange.of((BoundPredicate) conjunct) : null;
      if (r != null) {
        try {
          range = range.intersect(r);
          ranged = true;
          continue;
        } catch (IllegalArgumentException e) {
          // literals that do not compare: leave this predicate to its own evaluation
        }
      }
      RoaringBitmap files = evaluate(conjunct);
      result = result == null ? files : RoaringBitmap.and(result, files);
    }
    if (ranged) {
      RoaringBitmap files = lookupRange(range);
      result = result == null ? files : RoaringBitmap.and(result, files);
    }
    return result == null ? all() : result;
  }

  private static void flatten(Expression expr, List<Expression> out) {
    if (expr instanceof And) {
      flatten(((And) expr).left(), out);
      flatten(((And) expr).right(), out);
    } else {
      out.add(expr);
    }
  }

  private RoaringBitmap predicate(BoundPredicate pred) {
    if (!onColumn(pred)) {
      return all();
    }
    try {
      switch (pred.op()) {
        case IS_NULL:
          return reader.directory().nullFiles().clone();
        case NOT_NULL:
        case NOT_EQ:
        case NOT_IN:
        case NOT_STARTS_WITH:
          return reader.directory().valueFiles().clone();
        case IN: {
          RoaringBitmap files = new RoaringBitmap();
          for (Object value : pred.literals()) {
            files.or(lookupRange(KeyRange.exactly(value)));
          }
          return files;
        }
        case STARTS_WITH:
          return pred.literal() instanceof CharSequence ? lookupPrefix(pred.literal().toString()) : all();
        default:
          KeyRange range = KeyRange.of(pred);
          return range == null ? all() : lookupRange(range);
      }
    } catch (IllegalArgumentException e) {
      return all(); // a literal the keys do not compare with: no answer, so every file
    }
  }

  /** The files of every key in {@code range}, reading only the pages whose key range meets it. */
  private RoaringBitmap lookupRange(KeyRange range) {
    RoaringBitmap files = new RoaringBitmap();
    if (range.isEmpty()) {
      return files;
    }
    List<IndexDirectory.PageRef> pages = reader.directory().pages();
    for (int p = firstPageEndingAtOrAbove(pages, range); p < pages.size(); p++) {
      IndexDirectory.PageRef ref = pages.get(p);
      if (range.isAbove(ref.firstKey())) {
        break;
      }
      IndexPage page = reader.page(p);
      int start = range.lower() == null ? 0 : insertionPoint(page, range.lower());
      for (int i = start; i < page.size() && !range.isAbove(page.key(i)); i++) {
        if (range.contains(page.key(i))) {
          files.or(page.files(i));
        }
      }
    }
    return files;
  }

  private RoaringBitmap lookupPrefix(String prefix) {
    if (prefix.isEmpty()) {
      return reader.directory().valueFiles().clone(); // every string starts with ""
    }
    RoaringBitmap files = new RoaringBitmap();
    List<IndexDirectory.PageRef> pages = reader.directory().pages();
    KeyRange from = new KeyRange(prefix, true, null, false);
    for (int p = firstPageEndingAtOrAbove(pages, from); p < pages.size(); p++) {
      Object first = pages.get(p).firstKey();
      if (IndexKeys.ORDER.compare(first, prefix) > 0 && !IndexKeys.startsWith(first, prefix)) {
        break;
      }
      IndexPage page = reader.page(p);
      for (int i = insertionPoint(page, prefix); i < page.size() && IndexKeys.startsWith(page.key(i), prefix); i++) {
        files.or(page.files(i));
      }
    }
    return files;
  }

  /** The first page whose last key is not below the range (binary search over the directory). */
  private static int firstPageEndingAtOrAbove(List<IndexDirectory.PageRef> pages, KeyRange range) {
    int lo = 0;
    int hi = pages.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (range.isBelow(pages.get(mid).lastKey())) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static int insertionPoint(IndexPage page, Object value) {
    int at = page.find(value);
    return at >= 0 ? at : -at - 1;
  }
}
