package io.floe.format.index;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The indexes of a table at one point in time: an immutable document written to a new file under
 * the hidden index folder ({@link IndexLocations}) with every change; the table property
 * {@code floe.indexes} names the current one. Change with {@link #buildFrom}.
 * <pre>
 *   IndexList next = IndexList.buildFrom(current).add(index).build();
 * </pre>
 */
public final class IndexList {
  public static final int FORMAT_VERSION = 1;
  private static final IndexList EMPTY = new IndexList(List.of());

  private final List<TableIndex> indexes;

  private IndexList(List<TableIndex> indexes) {
    this.indexes = List.copyOf(indexes);
    for (int i = 0; i < this.indexes.size(); i++) {
      for (int j = 0; j < i; j++) {
        if (this.indexes.get(i).name().equals(this.indexes.get(j).name())) {
          throw new IllegalArgumentException("Invalid index list: index " + this.indexes.get(i).name()
              + " is listed twice");
        }
      }
    }
  }

  public static IndexList empty() {
    return EMPTY;
  }

  public static Builder buildFrom(IndexList base) {
    return new Builder(base.indexes);
  }

  public List<TableIndex> indexes() {
    return indexes;
  }

  /** The index named {@code name}, or null. */
  public TableIndex index(String name) {
    for (TableIndex index : indexes) {
      if (index.name().equals(name)) {
        return index;
      }
    }
    return null;
  }

  /** Every segment file of every index: what orphan removal and expiry must keep. */
  public List<String> segmentPaths() {
    List<String> paths = new ArrayList<>();
    for (TableIndex index : indexes) {
      index.segments().forEach(s -> paths.add(s.path()));
    }
    return paths;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IndexList && indexes.equals(((IndexList) o).indexes);
  }

  @Override
  public int hashCode() {
    return indexes.hashCode();
  }

  /** Builds an {@link IndexList}. */
  public static final class Builder {
    private final List<TableIndex> indexes;

    private Builder(List<TableIndex> base) {
      this.indexes = new ArrayList<>(base);
    }

    /** Adds a new index; fails if one of that name exists. */
    public Builder add(TableIndex index) {
      Objects.requireNonNull(index, "Index is null");
      if (indexes.stream().anyMatch(i -> i.name().equals(index.name()))) {
        throw new IllegalArgumentException("Index " + index.name() + " already exists");
      }
      indexes.add(index);
      return this;
    }

    /** Replaces the index of the same name. */
    public Builder replace(TableIndex index) {
      for (int i = 0; i < indexes.size(); i++) {
        if (indexes.get(i).name().equals(index.name())) {
          indexes.set(i, index);
          return this;
        }
      }
      throw new IllegalArgumentException("Index " + index.name() + " does not exist");
    }

    /** Removes the index named {@code name}; fails if there is none. */
    public Builder remove(String name) {
      if (!indexes.removeIf(i -> i.name().equals(name))) {
        throw new IllegalArgumentException("Index " + name + " does not exist");
      }
      return this;
    }

    public IndexList build() {
      return new IndexList(indexes);
    }
  }
}
