package io.floe.format.index;

import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * What one data file holds in the index column: its distinct non-null values (in Floe's Java value
 * representation) and whether it holds a null. Writers gather this while writing a file; an index
 * build gathers it by reading the column. A file with no values and no null is still covered.
 * <pre>
 *   FileValues.of(path, List.of(1L, 7L)).withNulls()
 * </pre>
 */
public final class FileValues {
  private final String path;
  private final List<Object> values;
  private final boolean containsNull;

  private FileValues(String path, List<Object> values, boolean containsNull) {
    this.path = Objects.requireNonNull(path, "Data file path is null");
    this.values = values;
    this.containsNull = containsNull;
  }

  /** The non-null {@code values} of the file at {@code path}; duplicates are allowed and ignored. */
  public static FileValues of(String path, Collection<?> values) {
    for (Object value : values) {
      if (value == null) {
        throw new IllegalArgumentException("Values of " + path + " hold a null: use withNulls() instead");
      }
    }
    return new FileValues(path, List.copyOf(values), false);
  }

  /** The same file, also holding a null. */
  public FileValues withNulls() {
    return new FileValues(path, values, true);
  }

  public String path() {
    return path;
  }

  public List<Object> values() {
    return values;
  }

  public boolean containsNull() {
    return containsNull;
  }
}
