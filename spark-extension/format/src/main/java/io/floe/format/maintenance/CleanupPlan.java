package io.floe.format.maintenance;

import io.floe.format.io.Locations;
import io.floe.format.manifest.ContentFile;
import io.floe.format.manifest.FileContent;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The files to delete after snapshots were expired, each with its kind, and the table location they
 * must all lie inside. {@link #checkInside()} refuses the whole plan when any file lies outside.
 */
public final class CleanupPlan {
  /** What a file to delete is; the procedure's output counts deleted files by kind. */
  public enum Kind {
    DATA("data file"),
    POSITION_DELETES("position delete file"),
    EQUALITY_DELETES("equality delete file"),
    MANIFEST("manifest"),
    MANIFEST_LIST("manifest list"),
    STATISTICS("statistics file");

    private final String description;

    Kind(String description) {
      this.description = description;
    }

    public String description() {
      return description;
    }

    static Kind of(ContentFile file) {
      if (file.content() == FileContent.DATA) {
        return DATA;
      }
      return file.content() == FileContent.EQUALITY_DELETES ? EQUALITY_DELETES : POSITION_DELETES;
    }
  }

  private final String tableLocation;
  private final Map<String, Kind> files;
  private final boolean fast;

  private CleanupPlan(String tableLocation, Map<String, Kind> files, boolean fast) {
    this.tableLocation = tableLocation;
    this.files = Collections.unmodifiableMap(files);
    this.fast = fast;
  }

  /** Every file to delete, in the order found, with its kind. */
  public Map<String, Kind> files() {
    return files;
  }

  /** True when the plan came from the fast (boundary) computation, false for full reachability. */
  public boolean isFast() {
    return fast;
  }

  public String tableLocation() {
    return tableLocation;
  }

  /**
   * Checks that every file lies inside the table location; otherwise throws IllegalStateException
   * naming the first file outside, its kind and the location, before anything is deleted.
   */
  public void checkInside() {
    for (Map.Entry<String, Kind> e : files.entrySet()) {
      Locations.checkInside(tableLocation, e.getKey(), e.getValue().description());
    }
  }

  static final class Builder {
    private final String tableLocation;
    private final Map<String, Kind> files = new LinkedHashMap<>();

    Builder(String tableLocation) {
      this.tableLocation = tableLocation;
    }

    void add(String path, Kind kind) {
      files.putIfAbsent(path, kind);
    }

    CleanupPlan build(boolean fast) {
      return new CleanupPlan(tableLocation, files, fast);
    }
  }
}
