package io.floe.format.index;

import io.floe.format.types.Type;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One index of a table: its name, type, the field id of the column it indexes (by id, so a rename
 * keeps it), its properties and its segments. Immutable; change with {@link #buildFrom}.
 * <pre>
 *   TableIndex idx = TableIndex.builder("by_user", IndexType.BTREE, 3).build();
 *   TableIndex more = TableIndex.buildFrom(idx).addSegment(segment).build();
 * </pre>
 */
public final class TableIndex {
  /** Property: {@code sync} (default) adds a segment with every commit, {@code deferred} waits for rewrite_index. */
  public static final String MAINTENANCE = "maintenance";
  public static final String MAINTENANCE_SYNC = "sync";
  public static final String MAINTENANCE_DEFERRED = "deferred";

  private final String name;
  private final IndexType type;
  private final List<Integer> sourceFieldIds;
  private final Map<String, String> properties;
  private final List<IndexSegment> segments;

  private TableIndex(Builder b) {
    this.name = b.name;
    this.type = b.type;
    this.sourceFieldIds = List.copyOf(b.sourceFieldIds);
    this.properties = Collections.unmodifiableMap(new LinkedHashMap<>(b.properties));
    this.segments = List.copyOf(b.segments);
    if (name.isEmpty()) {
      throw new IllegalArgumentException("Index name is empty");
    }
    if (sourceFieldIds.size() != 1) {
      throw new IllegalArgumentException("Invalid index " + name + ": indexes cover exactly one column, found field ids "
          + sourceFieldIds);
    }
  }

  public static Builder builder(String name, IndexType type, int sourceFieldId) {
    return new Builder(name, type, List.of(sourceFieldId));
  }

  static Builder builder(String name, IndexType type, List<Integer> sourceFieldIds) {
    return new Builder(name, type, sourceFieldIds);
  }

  public static Builder buildFrom(TableIndex base) {
    Builder b = new Builder(base.name, base.type, base.sourceFieldIds);
    b.properties.putAll(base.properties);
    b.segments.addAll(base.segments);
    return b;
  }

  /** True when columns of {@code type} can be indexed (int, long, string, date, timestamps, decimal, binary, boolean). */
  public static boolean supports(Type type) {
    return IndexKeys.isSupported(type);
  }

  public String name() {
    return name;
  }

  public IndexType type() {
    return type;
  }

  /** The indexed column's field ids; one today (the JSON keeps a list for composite indexes). */
  public List<Integer> sourceFieldIds() {
    return sourceFieldIds;
  }

  public int sourceFieldId() {
    return sourceFieldIds.get(0);
  }

  public Map<String, String> properties() {
    return properties;
  }

  /** True when commits leave new files uncovered until rewrite_index ({@code maintenance=deferred}). */
  public boolean isDeferred() {
    return MAINTENANCE_DEFERRED.equalsIgnoreCase(properties.get(MAINTENANCE));
  }

  public List<IndexSegment> segments() {
    return segments;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof TableIndex)) {
      return false;
    }
    TableIndex that = (TableIndex) o;
    return name.equals(that.name) && type == that.type && sourceFieldIds.equals(that.sourceFieldIds)
        && properties.equals(that.properties) && segments.equals(that.segments);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, type, sourceFieldIds, segments.size());
  }

  @Override
  public String toString() {
    return "TableIndex(" + name + " " + type.typeName() + " on field " + sourceFieldIds + ", " + segments.size()
        + " segments)";
  }

  /** Builds a {@link TableIndex}. */
  public static final class Builder {
    private final String name;
    private final IndexType type;
    private final List<Integer> sourceFieldIds;
    private final Map<String, String> properties = new LinkedHashMap<>();
    private final List<IndexSegment> segments = new ArrayList<>();

    private Builder(String name, IndexType type, List<Integer> sourceFieldIds) {
      this.name = Objects.requireNonNull(name, "Index name is null");
      this.type = Objects.requireNonNull(type, "Index type is null");
      this.sourceFieldIds = List.copyOf(sourceFieldIds);
    }

    public Builder setProperty(String key, String value) {
      properties.put(Objects.requireNonNull(key, "Property key is null"),
          Objects.requireNonNull(value, "Value of index property " + key + " is null"));
      return this;
    }

    public Builder setProperties(Map<String, String> values) {
      values.forEach(this::setProperty);
      return this;
    }

    public Builder addSegment(IndexSegment segment) {
      segments.add(Objects.requireNonNull(segment, "Segment is null"));
      return this;
    }

    /** Replaces {@code merged} (segments of this index) with {@code replacement}, where the first of them was. */
    public Builder replaceSegments(List<IndexSegment> merged, IndexSegment replacement) {
      int at = segments.indexOf(merged.isEmpty() ? null : merged.get(0));
      if (merged.isEmpty() || !segments.containsAll(merged)) {
        throw new IllegalArgumentException("Cannot replace segments of index " + name + ": not all of " + merged
            + " are among its segments");
      }
      segments.removeAll(merged);
      segments.add(Math.min(at, segments.size()), Objects.requireNonNull(replacement, "Segment is null"));
      return this;
    }

    public Builder removeSegments() {
      segments.clear();
      return this;
    }

    /** Removes {@code dropped}, segments of this index. */
    public Builder removeSegments(List<IndexSegment> dropped) {
      if (!segments.containsAll(dropped)) {
        throw new IllegalArgumentException("Cannot remove segments of index " + name + ": not all of " + dropped
            + " are among its segments");
      }
      segments.removeAll(dropped);
      return this;
    }

    public TableIndex build() {
      return new TableIndex(this);
    }
  }
}
