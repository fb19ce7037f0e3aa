package io.floe.format.index;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.floe.format.expr.Binder;
import io.floe.format.expr.Evaluator;
import io.floe.format.expr.Expression;
import io.floe.format.expr.Expressions;
import io.floe.format.types.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Lookups of both index types, for every supported type and predicate, against a brute-force
 * answer over random (seeded) files: the index never drops a file that holds a match, and for the
 * predicates it answers exactly it names exactly the files that hold one.
 */
public class TestIndexLookups {
  private static final int FILES = 30;

  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  /** A filter and whether the index must answer it exactly (else a superset is right). */
  private static final class Case {
    private final Expression expr;
    private final boolean exact;

    Case(Expression expr, boolean exact) {
      this.expr = expr;
      this.exact = exact;
    }

    Expression expr() {
      return expr;
    }

    boolean exact() {
      return exact;
    }
  }

  @Test
  public void lookupsMatchBruteForceForEveryTypeAndPredicate() throws Exception {
    for (IndexType indexType : IndexType.values()) {
      for (int fieldId : IndexFixtures.FIELD_IDS) {
        checkColumn(indexType, fieldId, new Random(fieldId * 31L + indexType.ordinal()));
      }
    }
  }

  private void checkColumn(IndexType indexType, int fieldId, Random rnd) {
    Type type = IndexFixtures.SCHEMA.findType(fieldId);
    String column = IndexFixtures.name(fieldId);
    List<Object> domain = IndexFixtures.domain(type, rnd, 40);
    List<FileValues> files = new ArrayList<>();
    IndexSegmentWriter writer = IndexSegmentWriter.builder(indexType, fieldId, type).pageSizeBytes(48).build();
    for (int f = 0; f < FILES; f++) {
      List<Object> values = new ArrayList<>();
      for (int k = rnd.nextInt(f % 7 == 0 ? 1 : 8); k > 0; k--) {
        values.add(domain.get(rnd.nextInt(domain.size())));
      }
      FileValues file = FileValues.of("file:/data/" + column + "/f" + f + ".parquet", values);
      files.add(rnd.nextInt(4) == 0 ? file.withNulls() : file);
      writer.add(files.get(f));
    }
    String where = IndexFixtures.location(temp.getRoot(), indexType + "-" + fieldId + ".puffin");
    IndexSegment segment = writer.write(IndexFixtures.IO.newOutputFile(where));
    assertEquals(FILES, segment.coveredFileCount());
    TableIndex index = TableIndex.builder("idx", indexType, fieldId).addSegment(segment).build();
    IndexSegmentReader reader = IndexSegmentReader.open("db.t", index, segment, type,
        IndexFixtures.IO.newInputFile(where));
    assertTrue("several pages", reader.directory().pages().size() > 1 || type.typeId() == Type.TypeID.BOOLEAN);
    int selective = 0;
    for (int n = 0; n < 150; n++) {
      Case c = randomCase(column, type, domain, rnd, 2);
      Set<String> truth = bruteForce(files, c.expr());
      selective += !truth.isEmpty() && truth.size() < FILES ? 1 : 0;
      Set<String> answer = new TreeSet<>(reader.lookup(Binder.bind(IndexFixtures.SCHEMA.asStruct(), c.expr())).paths());
      String what = indexType + " index on " + column + ", filter " + c.expr();
      assertTrue(what + ": answer " + answer + " misses a file of " + truth, answer.containsAll(truth));
      if (c.exact()) {
        assertEquals(what, truth, answer);
      }
    }
    assertTrue(indexType + " on " + column + ": only " + selective + " filters select some files but not all",
        selective >= 30);
    // predicates on another column say nothing: AND keeps the column's answer, OR gives every file
    Expression mine = Expressions.isNull(column);
    Expression other = Expressions.equal(fieldId == 2 ? "i" : "l", 5);
    Set<String> nulls = bruteForce(files, mine);
    assertEquals(nulls, new TreeSet<>(lookup(reader, Expressions.and(mine, other))));
    assertEquals(FILES, lookup(reader, Expressions.or(mine, other)).size());
    assertEquals(FILES, lookup(reader, other).size());
  }

  private static List<String> lookup(IndexSegmentReader reader, Expression expr) {
    return reader.lookup(Binder.bind(IndexFixtures.SCHEMA.asStruct(), expr)).paths();
  }

  /** The files holding a row (one of their values, or a null) that the filter selects. */
  private static Set<String> bruteForce(List<FileValues> files, Expression expr) {
    Evaluator evaluator = new Evaluator(IndexFixtures.SCHEMA.asStruct(), expr);
    Set<String> out = new TreeSet<>();
    for (FileValues file : files) {
      List<Object> values = new ArrayList<>(file.values());
      if (file.containsNull()) {
        values.add(null);
      }
      for (Object value : values) {
        if (evaluator.eval(row(file, value))) {
          out.add(file.path());
          break;
        }
      }
    }
    return out;
  }

  private static Object[] row(FileValues file, Object value) {
    Object[] row = new Object[10];
    String column = file.path().substring("file:/data/".length(), file.path().lastIndexOf('/'));
    int fieldId = IndexFixtures.SCHEMA.idFor(column);
    if (fieldId == 11) {
      row[9] = new Object[] {value};
    } else {
      row[fieldId - 1] = value;
    }
    return row;
  }

  private static Object literal(Type type, List<Object> domain, Random rnd) {
    return rnd.nextInt(3) == 0 ? IndexFixtures.randomValue(type, rnd) : domain.get(rnd.nextInt(domain.size()));
  }

  private static Case randomCase(String col, Type type, List<Object> domain, Random rnd, int depth) {
    int choice = rnd.nextInt(depth > 0 ? 16 : 13);
    Object v = literal(type, domain, rnd);
    switch (choice) {
      case 0: return new Case(Expressions.equal(col, v), true);
      case 1: return new Case(Expressions.lessThan(col, v), true);
      case 2: return new Case(Expressions.lessThanOrEqual(col, v), true);
      case 3: return new Case(Expressions.greaterThan(col, v), true);
      case 4: return new Case(Expressions.greaterThanOrEqual(col, v), true);
      case 5: {
        List<Object> values = new ArrayList<>();
        for (int i = rnd.nextInt(4); i >= 0; i--) {
          values.add(literal(type, domain, rnd));
        }
        return new Case(Expressions.in(col, values), true);
      }
      case 6: return new Case(Expressions.isNull(col), true);
      case 7: return new Case(Expressions.notNull(col), true);
      case 8: return new Case(Expressions.notEqual(col, v), false);
      case 9: return new Case(Expressions.notIn(col, v, literal(type, domain, rnd)), false);
      case 10: {
        Object w = literal(type, domain, rnd);
        boolean ordered = IndexKeys.ORDER.compare(v, w) <= 0;
        return new Case(Expressions.and(Expressions.greaterThanOrEqual(col, ordered ? v : w),
            Expressions.lessThanOrEqual(col, ordered ? w : v)), true); // BETWEEN
      }
      case 11: {
        if (type.typeId() != Type.TypeID.STRING) {
          return new Case(Expressions.not(Expressions.lessThan(col, v)), true);
        }
        String s = v.toString();
        String prefix = s.substring(0, rnd.nextInt(s.length() + 1));
        if (!prefix.isEmpty() && Character.isHighSurrogate(prefix.charAt(prefix.length() - 1))) {
          prefix = prefix.substring(0, prefix.length() - 1);
        }
        return rnd.nextBoolean() ? new Case(Expressions.startsWith(col, prefix), true)
            : new Case(Expressions.notStartsWith(col, prefix), false);
      }
      case 12: {
        Case leaf = randomCase(col, type, domain, rnd, 0);
        Expression.Operation op = leaf.expr().op();
        boolean exactNegation = op == Expression.Operation.LT || op == Expression.Operation.LT_EQ
            || op == Expression.Operation.GT || op == Expression.Operation.GT_EQ
            || op == Expression.Operation.IS_NULL || op == Expression.Operation.NOT_NULL;
        return new Case(Expressions.not(leaf.expr()), exactNegation);
      }
      case 13:
      case 14: {
        Case a = randomCase(col, type, domain, rnd, depth - 1);
        Case b = randomCase(col, type, domain, rnd, depth - 1);
        return new Case(Expressions.or(a.expr(), b.expr()), a.exact() && b.exact());
      }
      default: {
        Case a = randomCase(col, type, domain, rnd, depth - 1);
        Case b = randomCase(col, type, domain, rnd, depth - 1);
        return new Case(Expressions.and(a.expr(), b.expr()), false);
      }
    }
  }
}
