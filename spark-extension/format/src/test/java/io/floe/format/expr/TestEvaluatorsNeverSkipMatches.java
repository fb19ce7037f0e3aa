package io.floe.format.expr;

import static org.junit.Assert.assertTrue;

import io.floe.format.expr.Expression.Operation;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.Metrics;
import io.floe.format.manifest.PartitionFieldSummary;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Conversions;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.Test;

/**
 * Property check of the pruning evaluators: whenever some row (or partition tuple) matches a
 * filter exactly, the metrics of the file (or the summaries of the manifest) built from those
 * rows must not rule the file out. Rows mix nulls, NaN, -0.0 and non-ASCII strings; string
 * bounds are truncated to two code points with the upper one incremented, as writers do.
 */
public class TestEvaluatorsNeverSkipMatches {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.optional(1, "i", Types.IntegerType.get()),
      Types.NestedField.optional(2, "f", Types.FloatType.get()),
      Types.NestedField.optional(3, "d", Types.DoubleType.get()),
      Types.NestedField.optional(4, "s", Types.StringType.get()));
  private static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA)
      .identity("i").identity("f").identity("d").identity("s").build();

  private static final Object[][] POOLS = {
      {-3, -1, 0, 1, 2, 5, null},
      {-1.5f, -0.0f, 0.0f, 1.0f, 2.5f, Float.NaN, Float.POSITIVE_INFINITY, null},
      {-1.5, -0.0, 0.0, 1.0, 2.5, Double.NaN, Double.NEGATIVE_INFINITY, null},
      {"", "a", "ab", "abc", "abd", "b", "\uFFFD", "\uD83D\uDE00", "\uD83D\uDE00a", "\uD83D\uDE00\uFFFF", null}};
  private static final Object[][] LITERALS = {
      {-4, -3, -2, 0, 1, 3, 5, 6, 2.5, Long.MAX_VALUE},
      {-2.0f, -1.5f, 0.0f, -0.0, 1.0, 2.5f, 3.0, 0.1, Float.POSITIVE_INFINITY},
      {-2.0, -1.5, 0.0f, -0.0, 1.0, 2.5, 3.0, 0.1, Double.NEGATIVE_INFINITY, 7},
      {"", "a", "aa", "ab", "abc", "abcd", "abe", "b", "c", "\uFFFD", "\uD83D\uDE00", "\uD83D\uDE00a", "\uD83D\uDE01"}};
  private static final Operation[] OPS = {Operation.LT, Operation.LT_EQ, Operation.GT, Operation.GT_EQ,
      Operation.EQ, Operation.NOT_EQ, Operation.IN, Operation.NOT_IN, Operation.IS_NULL, Operation.NOT_NULL,
      Operation.IS_NAN, Operation.NOT_NAN, Operation.STARTS_WITH, Operation.NOT_STARTS_WITH};
  private static final String[] NAMES = {"i", "f", "d", "s"};

  @Test
  public void metricsAndSummariesNeverRuleOutAMatchingRow() {
    Random random = new Random(7);
    int matches = 0;
    for (int n = 0; n < 30_000; n++) {
      List<Object[]> rows = new ArrayList<>();
      int count = 1 + random.nextInt(4);
      for (int r = 0; r < count; r++) {
        Object[] row = new Object[4];
        for (int c = 0; c < 4; c++) {
          row[c] = POOLS[c][random.nextInt(POOLS[c].length)];
        }
        rows.add(row);
      }
      Expression filter = randomFilter(random);
      if (filter == null) {
        continue;
      }
      Evaluator exact = new Evaluator(SCHEMA.asStruct(), filter);
      boolean anyMatch = rows.stream().anyMatch(exact::eval);
      if (!anyMatch) {
        continue;
      }
      matches++;
      DataFile file = fileOf(rows, random);
      assertTrue(filter + " matches " + describe(rows) + " but the metrics ruled the file out",
          new InclusiveMetricsEvaluator(SCHEMA, filter).eval(file));
      ManifestFile manifest = manifestOf(rows);
      assertTrue(filter + " matches " + describe(rows) + " but the manifest summaries ruled it out",
          ManifestEvaluator.forRowFilter(filter, SPEC).eval(manifest));
      boolean anyPartition = false;
      Evaluator partitions = new Evaluator(SPEC.partitionType(), Projections.inclusive(SPEC).project(filter));
      for (Object[] row : rows) {
        anyPartition |= partitions.eval(PartitionData.of(row));
      }
      assertTrue(filter + " matches " + describe(rows) + " but no partition matched", anyPartition);
    }
    assertTrue("too few matching cases: " + matches, matches > 10_000);
  }

  private static Expression randomFilter(Random random) {
    int col = random.nextInt(4);
    Operation op = OPS[random.nextInt(OPS.length)];
    boolean isString = col == 3;
    boolean isFloating = col == 1 || col == 2;
    if ((op == Operation.STARTS_WITH || op == Operation.NOT_STARTS_WITH) && !isString) {
      return null;
    }
    if ((op == Operation.IS_NAN || op == Operation.NOT_NAN) && !isFloating) {
      return null;
    }
    Object[] lits = LITERALS[col];
    Expression pred;
    if (op.isUnary()) {
      pred = Expressions.predicate(op, NAMES[col]);
    } else if (op.isSet()) {
      pred = Expressions.predicate(op, NAMES[col], lits[random.nextInt(lits.length)], lits[random.nextInt(lits.length)]);
    } else {
      pred = Expressions.predicate(op, NAMES[col], lits[random.nextInt(lits.length)]);
    }
    return random.nextInt(3) == 0 ? Expressions.not(pred) : pred;
  }

  private static DataFile fileOf(List<Object[]> rows, Random random) {
    Map<Integer, Long> values = new HashMap<>();
    Map<Integer, Long> nulls = new HashMap<>();
    Map<Integer, Long> nans = new HashMap<>();
    Map<Integer, ByteBuffer> lower = new HashMap<>();
    Map<Integer, ByteBuffer> upper = new HashMap<>();
    for (int c = 0; c < 4; c++) {
      int id = c + 1;
      Type type = SCHEMA.findType(id);
      long nullCount = 0;
      long nanCount = 0;
      Object min = null;
      Object max = null;
      for (Object[] row : rows) {
        Object v = row[c];
        if (v == null) {
          nullCount++;
        } else if (isNaN(v)) {
          nanCount++;
        } else {
          min = min == null || writerOrder(v, min) < 0 ? v : min;
          max = max == null || writerOrder(v, max) > 0 ? v : max;
        }
      }
      // randomly leave stats out: missing means unknown
      if (random.nextInt(5) > 0) {
        values.put(id, (long) rows.size());
        nulls.put(id, nullCount);
      }
      if (random.nextInt(3) > 0 && (c == 1 || c == 2)) {
        nans.put(id, nanCount);
      }
      if (min != null && random.nextInt(5) > 0) {
        if (c == 3) {
          lower.put(id, Conversions.toByteBuffer(type, truncate((String) min)));
          String up = truncateAndIncrement((String) max);
          if (up != null) {
            upper.put(id, Conversions.toByteBuffer(type, up));
          }
        } else {
          lower.put(id, Conversions.toByteBuffer(type, min));
          upper.put(id, Conversions.toByteBuffer(type, max));
        }
      }
    }
    return DataFile.builder(PartitionSpec.unpartitioned()).withPath("file:/t/f.parquet")
        .withFormat(FileFormat.PARQUET).withFileSizeInBytes(1)
        .withMetrics(new Metrics((long) rows.size(), null, values, nulls, nans, lower, upper)).build();
  }

  private static ManifestFile manifestOf(List<Object[]> rows) {
    List<PartitionFieldSummary> summaries = new ArrayList<>();
    for (int c = 0; c < 4; c++) {
      Type type = SCHEMA.findType(c + 1);
      boolean hasNull = false;
      boolean hasNaN = false;
      Object min = null;
      Object max = null;
      for (Object[] row : rows) {
        Object v = row[c];
        if (v == null) {
          hasNull = true;
        } else if (isNaN(v)) {
          hasNaN = true;
        } else {
          min = min == null || writerOrder(v, min) < 0 ? v : min;
          max = max == null || writerOrder(v, max) > 0 ? v : max;
        }
      }
      summaries.add(new PartitionFieldSummary(hasNull, c == 1 || c == 2 ? hasNaN : null,
          Conversions.toByteBuffer(type, min), Conversions.toByteBuffer(type, max)));
    }
    return ManifestFile.builder("m.avro").withPartitions(summaries).build();
  }

  /** Writers order -0.0 before 0.0 (Java's compare), unlike Spark's equality. */
  private static int writerOrder(Object a, Object b) {
    if (a instanceof Float) {
      return Float.compare((Float) a, (Float) b);
    } else if (a instanceof Double) {
      return Double.compare((Double) a, (Double) b);
    }
    return Comparators.compare(a, b);
  }

  private static boolean isNaN(Object v) {
    return (v instanceof Float && ((Float) v).isNaN()) || (v instanceof Double && ((Double) v).isNaN());
  }

  private static String truncate(String s) {
    int end = s.offsetByCodePoints(0, Math.min(2, s.codePointCount(0, s.length())));
    return s.substring(0, end);
  }

  /** The first two code points with the last one incremented when the value was longer; null when impossible. */
  private static String truncateAndIncrement(String s) {
    if (s.codePointCount(0, s.length()) <= 2) {
      return s;
    }
    int[] cps = truncate(s).codePoints().toArray();
    for (int i = cps.length - 1; i >= 0; i--) {
      int next = cps[i] + 1;
      if (next >= 0xD800 && next <= 0xDFFF) {
        next = 0xE000;
      }
      if (next <= Character.MAX_CODE_POINT) {
        cps[i] = next;
        return new String(cps, 0, i + 1);
      }
    }
    return null;
  }

  private static String describe(List<Object[]> rows) {
    StringBuilder sb = new StringBuilder();
    for (Object[] row : rows) {
      sb.append(Arrays.toString(row));
    }
    return sb.toString();
  }
}
