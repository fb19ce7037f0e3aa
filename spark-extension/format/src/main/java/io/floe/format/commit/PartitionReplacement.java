package io.floe.format.commit;

import io.floe.format.expr.Comparators;
import io.floe.format.manifest.DataFile;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.partition.Transform;
import io.floe.format.partition.Truncate;
import io.floe.format.types.Conversions;
import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Which live files a dynamic partition overwrite replaces when some were written under an older
 * partition spec. The statement replaces the partitions (of the current spec) that receive new
 * files; a file of another spec is projected onto the current spec, field by field, from its own
 * partition values (an identity field, the same transform, a finer time unit or a truncate width
 * that divides the new one) or else from its column bounds (order-preserving transforms). A file
 * whose rows all fall into replaced partitions is removed, one with none of them is kept, and one
 * that may hold both cannot be replaced by whole files: the caller refuses the statement.
 */
final class PartitionReplacement {
  enum Outcome { REMOVE, KEEP, MIXED }

  private final Schema schema;
  private final PartitionSpec target;
  private final Set<PartitionData> replaced;

  PartitionReplacement(Schema schema, PartitionSpec target, Set<PartitionData> replaced) {
    this.schema = schema;
    this.target = target;
    this.replaced = replaced;
  }

  /** What the overwrite does with {@code file}, written under {@code fileSpec} (not the target spec). */
  Outcome outcome(DataFile file, PartitionSpec fileSpec) {
    List<Possible> fields = new ArrayList<>();
    boolean determined = true;
    for (PartitionField f : target.fields()) {
      Possible p = possible(f, file, fileSpec);
      fields.add(p);
      determined &= p.determined;
    }
    if (determined) {
      Object[] values = fields.stream().map(p -> p.value).toArray();
      return replaced.contains(PartitionData.wrap(values)) ? Outcome.REMOVE : Outcome.KEEP;
    }
    for (PartitionData partition : replaced) {
      if (mayHold(fields, partition)) {
        return Outcome.MIXED;
      }
    }
    return Outcome.KEEP;
  }

  private static boolean mayHold(List<Possible> fields, PartitionData partition) {
    for (int i = 0; i < fields.size(); i++) {
      if (!fields.get(i).mayBe(partition.get(i))) {
        return false;
      }
    }
    return true;
  }

  /** The values field {@code f} of the target spec may take for the rows of {@code file}. */
  private Possible possible(PartitionField f, DataFile file, PartitionSpec fileSpec) {
    Transform t = f.transform();
    if (t.isVoid()) {
      return Possible.exactly(null);
    }
    Type sourceType = schema.findField(f.sourceId()) == null ? null : schema.findField(f.sourceId()).type();
    List<PartitionField> old = fileSpec.fields();
    for (int i = 0; i < old.size(); i++) {
      PartitionField g = old.get(i);
      if (g.sourceId() == f.sourceId() && sourceType != null) {
        Object value = file.partition().get(i);
        if (value == null && !g.transform().isVoid()) {
          return Possible.exactly(null); // the file's rows all have a null source value
        }
        Object source = representative(g.transform(), t, value, sourceType);
        if (source != null) {
          return Possible.exactly(t.apply(source));
        }
        if (g.transform().toString().equals(t.toString())) {
          return Possible.exactly(value);
        }
      }
    }
    return fromBounds(f, file, sourceType);
  }

  /**
   * A source value that {@code newT} maps to the same partition value as every source value that
   * {@code oldT} maps to {@code value}; null when {@code oldT}'s partitions are not nested in {@code newT}'s.
   */
  private static Object representative(Transform oldT, Transform newT, Object value, Type sourceType) {
    if (oldT.isIdentity()) {
      return value;
    }
    if (oldT instanceof Truncate && newT instanceof Truncate) {
      int oldWidth = ((Truncate) oldT).width();
      int newWidth = ((Truncate) newT).width();
      boolean text = value instanceof CharSequence || value instanceof ByteBuffer;
      return (text ? newWidth <= oldWidth : newWidth % oldWidth == 0) ? value : null;
    }
    int oldRank = timeRank(oldT);
    int newRank = timeRank(newT);
    if (oldRank < 0 || newRank < oldRank || !(value instanceof Integer)) {
      return null;
    }
    int v = (Integer) value;
    LocalDate epoch = LocalDate.ofEpochDay(0);
    long days;
    switch (oldRank) {
      case 0: // hour: timestamps only
        return v * 3_600_000_000L;
      case 1:
        days = v;
        break;
      case 2:
        days = epoch.plusMonths(v).toEpochDay();
        break;
      default:
        days = epoch.plusYears(v).toEpochDay();
    }
    return sourceType.typeId() == Type.TypeID.DATE ? (Object) Math.toIntExact(days) : (Object) (days * 86_400_000_000L);
  }

  private static int timeRank(Transform t) {
    return List.of("hour", "day", "month", "year").indexOf(t.toString());
  }

  /** From the file's bounds of the source column: exact when both map to one value, else a range. */
  private static Possible fromBounds(PartitionField f, DataFile file, Type sourceType) {
    Transform t = f.transform();
    int id = f.sourceId();
    Long nulls = file.nullValueCounts() == null ? null : file.nullValueCounts().get(id);
    Long values = file.valueCounts() == null ? null : file.valueCounts().get(id);
    if (nulls != null && values != null && nulls.equals(values)) {
      return Possible.exactly(null);
    }
    boolean mayBeNull = nulls == null || nulls > 0;
    ByteBuffer lower = file.lowerBounds() == null ? null : file.lowerBounds().get(id);
    ByteBuffer upper = file.upperBounds() == null ? null : file.upperBounds().get(id);
    if (sourceType == null || !t.preservesOrder() || lower == null || upper == null) {
      return Possible.unknown();
    }
    Object lo = t.apply(Conversions.fromByteBuffer(sourceType, lower));
    Object hi = t.apply(Conversions.fromByteBuffer(sourceType, upper));
    if (!mayBeNull && Objects.equals(lo, hi)) {
      return Possible.exactly(lo);
    }
    return new Possible(false, null, lo, hi, mayBeNull);
  }

  /** The values a field may take: one exactly, or a range (inclusive) and maybe null, or anything. */
  private static final class Possible {
    final boolean determined;
    final Object value;
    final Object lo;
    final Object hi;
    final boolean mayBeNull;

    Possible(boolean determined, Object value, Object lo, Object hi, boolean mayBeNull) {
      this.determined = determined;
      this.value = value;
      this.lo = lo;
      this.hi = hi;
      this.mayBeNull = mayBeNull;
    }

    static Possible exactly(Object value) {
      return new Possible(true, value, null, null, false);
    }

    static Possible unknown() {
      return new Possible(false, null, null, null, true);
    }

    boolean mayBe(Object v) {
      if (determined) {
        return Objects.equals(value, v);
      }
      if (v == null) {
        return mayBeNull;
      }
      return lo == null || hi == null || (Comparators.compare(lo, v) <= 0 && Comparators.compare(v, hi) <= 0);
    }
  }

  /** E.g. {@code spec 0 (category, days(ts))}, for error messages. */
  static String describe(PartitionSpec spec, Schema schema) {
    List<String> fields = new ArrayList<>();
    for (PartitionField f : spec.fields()) {
      String source = schema.findColumnName(f.sourceId());
      String transform = f.transform().toString();
      fields.add(f.transform().isIdentity() ? source : transform + "(" + source + ")");
    }
    return "spec " + spec.specId() + " (" + (fields.isEmpty() ? "unpartitioned" : String.join(", ", fields)) + ")";
  }
}
