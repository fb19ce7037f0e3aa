package io.floe.format.maintenance;

import io.floe.format.catalog.TableLocations;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.TableOperations;
import io.floe.format.io.FileIO;
import io.floe.format.io.FileInfo;
import io.floe.format.io.Locations;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableProperties;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Removes a table's orphan files: files below the table location (or below {@code location}, which
 * must lie inside it) that no metadata reaches (see {@link OrphanReachability}) and whose
 * modification time is before {@code olderThan} (default: three days ago). Files with a path segment
 * starting with {@code _} or {@code .} below the table location (in-flight write markers, {@code
 * _SUCCESS}, temporary metadata files) are never deleted, except in-flight markers abandoned for
 * longer than the default age and temporary metadata and hint files a commit left behind in
 * {@code metadata/} (its writer died before removing them) just as old; nor is anything outside
 * the table location. A listed file whose
 * path matches a reachable location under another scheme or authority is a prefix mismatch,
 * handled by {@link PrefixMismatchMode}. Nothing is deleted before every listed file is
 * classified, so a refusal deletes nothing.
 *
 * <p>Concurrent writers: the files of a write or commit whose in-flight marker exists after the
 * listing are kept ({@link InFlightFiles}), and reachability is checked again against the latest
 * metadata read after that, so a Floe write in flight or committed during the run loses nothing.
 * Files of writers that leave no marker (other engines) are protected only by {@code olderThan}.
 * Refuses to run when the table's location holds another table's metadata ({@link TableLocations}).
 */
public final class OrphanFiles {
  /** Default age of the files removed: only files last modified more than three days ago. */
  public static final long DEFAULT_AGE_MILLIS = TimeUnit.DAYS.toMillis(3);
  /** Shortest age accepted without {@link #allowShortInterval}: in-flight writes look like orphans. */
  public static final long MIN_SAFE_AGE_MILLIS = TimeUnit.DAYS.toMillis(1);

  /** What to do with a file that matches a reachable location except for scheme or authority. */
  public enum PrefixMismatchMode {
    /** Refuse, deleting nothing, and list the conflicting prefixes (the default). */
    ERROR,
    /** Keep such files. */
    IGNORE,
    /** Treat such files as orphans: only when the prefixes truly name different storage. */
    DELETE;

    /** Parses {@code error}, {@code ignore} or {@code delete} (any case). */
    public static PrefixMismatchMode fromString(String text) {
      try {
        return valueOf(text.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("Invalid prefix_mismatch_mode '" + text
            + "': use 'ERROR' (default), 'IGNORE' or 'DELETE'");
      }
    }
  }

  private static final String ACTION = "remove orphan files of";

  private final TableOperations ops;
  private Long olderThanMillis;
  private boolean allowShortInterval = false;
  private String location;
  private boolean dryRun = false;
  private int threads = 1;
  private Map<String, String> equalSchemes = Map.of();
  private Map<String, String> equalAuthorities = Map.of();
  private PrefixMismatchMode mode = PrefixMismatchMode.ERROR;
  private long now = -1;

  private OrphanFiles(TableOperations ops) {
    this.ops = ops;
  }

  public static OrphanFiles of(TableOperations ops) {
    return new OrphanFiles(ops);
  }

  /** Only files last modified before this instant (epoch millis) are removed; null: three days ago. */
  public OrphanFiles olderThan(Long millis) {
    this.olderThanMillis = millis;
    return this;
  }

  /** Accepts an {@code olderThan} less than 24 hours ago: the caller knows no write is in flight. */
  public OrphanFiles allowShortInterval(boolean allow) {
    this.allowShortInterval = allow;
    return this;
  }

  /** Only looks below this directory, which must be the table location or lie inside it; null: all. */
  public OrphanFiles location(String dir) {
    this.location = dir;
    return this;
  }

  /** Finds the orphan files without deleting them. */
  public OrphanFiles dryRun(boolean dry) {
    this.dryRun = dry;
    return this;
  }

  /** How many manifests are read, and files deleted, at once (at least 1). */
  public OrphanFiles threads(int count) {
    if (count < 1) {
      throw new IllegalArgumentException("max_concurrent_deletes must be at least 1, got " + count);
    }
    this.threads = count;
    return this;
  }

  /** Scheme aliases, e.g. {@code "s3a,s3n" -> "s3"}; added to the defaults s3a and s3n = s3. */
  public OrphanFiles equalSchemes(Map<String, String> aliases) {
    this.equalSchemes = aliases == null ? Map.of() : aliases;
    return this;
  }

  /** Authority aliases, e.g. {@code "nn1:8020,nn1" -> "nn1"}. */
  public OrphanFiles equalAuthorities(Map<String, String> aliases) {
    this.equalAuthorities = aliases == null ? Map.of() : aliases;
    return this;
  }

  public OrphanFiles prefixMismatchMode(PrefixMismatchMode mismatchMode) {
    this.mode = mismatchMode == null ? PrefixMismatchMode.ERROR : mismatchMode;
    return this;
  }

  /** The current time in epoch millis (tests); by default the system clock. */
  OrphanFiles now(long millis) {
    this.now = millis;
    return this;
  }

  /**
   * Finds the orphan files and, unless this is a dry run, deletes them. Returns their locations as
   * listed. Throws IllegalArgumentException for an unusable argument and IllegalStateException
   * when the table's state makes deleting unsafe; in both cases nothing was deleted.
   */
  public List<String> execute() {
    TableMetadata metadata = ops.refresh();
    String table = ops.tableName();
    if (metadata == null) {
      throw new IllegalArgumentException("Cannot remove orphan files: table " + table + " does not exist");
    }
    if (!TableProperties.booleanValue(metadata.properties(), TableProperties.GC_ENABLED)) {
      throw new IllegalStateException("Cannot remove orphan files of table " + table
          + ": gc.enabled is false (its files may be shared with another table); set gc.enabled to true first");
    }
    long clock = now >= 0 ? now : System.currentTimeMillis();
    long cutoff = olderThanMillis != null ? olderThanMillis : clock - DEFAULT_AGE_MILLIS;
    if (cutoff > clock - MIN_SAFE_AGE_MILLIS && !allowShortInterval) {
      throw new IllegalArgumentException("Cannot remove orphan files of table " + table + " with older_than "
          + Instant.ofEpochMilli(cutoff) + ": that is " + (cutoff > clock ? "in the future" : "less than 24 hours ago")
          + ". Files of writes still in flight "
          + "(written but not yet committed) look like orphans, and deleting them corrupts those commits. "
          + "Use an older_than at least 24 hours ago, or pass allow_short_interval => true if you are sure "
          + "no write to this table is running");
    }
    String tableLocation = metadata.location();
    String dir = listingRoot(tableLocation, table);

    OrphanPrefixes prefixes = new OrphanPrefixes(equalSchemes, equalAuthorities);
    FileIO io = ops.io();
    TableLocations.checkSoleOwner(io, metadata, ops.metadataRoot(), table, ACTION);
    addReachable(prefixes, OrphanReachability.of(io, metadata, ops.metadataRoot(), threads, table), table);
    List<FileInfo> listed;
    try {
      listed = io.listRecursively(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + dir + " to find the orphan files of table " + table, e);
    }
    TableLocations.checkNoForeignMetadata(io, metadata, ops.metadataRoot(),
        listed.stream().map(FileInfo::location).toList(), table, ACTION);
    // in-flight markers are checked after the listing and before the latest metadata is read
    long staleBefore = Math.min(cutoff, clock - DEFAULT_AGE_MILLIS);
    InFlightFiles inFlight = InFlightFiles.of(io, listed, markerDirs(metadata), staleBefore);
    // a file is never older than its operation's marker, so only files newer than staleBefore can be in flight
    Set<String> recent = new HashSet<>();
    listed.stream().filter(f -> f.modifiedMillis() >= staleBefore).forEach(f -> recent.add(f.location()));
    List<String> candidates = classify(listed, cutoff, prefixes, tableLocation, table);
    candidates.retainAll(recent);
    Set<String> writing = inFlight.inFlight(candidates);
    TableMetadata latest = ops.refresh();
    if (latest != null && !Objects.equals(latest.metadataFileLocation(), metadata.metadataFileLocation())) {
      // a commit landed while listing: what it reaches is reachable too
      addReachable(prefixes, OrphanReachability.of(io, latest, ops.metadataRoot(), threads, table), table);
    }

    List<String> orphans = classify(listed, cutoff, prefixes, tableLocation, table);
    orphans.removeIf(writing::contains);
    for (String marker : inFlight.staleMarkers()) {
      if (Locations.isInside(tableLocation, marker)) {
        orphans.add(marker);
      }
    }
    orphans.addAll(abandonedTemporaryFiles(listed, staleBefore));
    for (String orphan : orphans) {
      Locations.checkInside(tableLocation, orphan, "orphan file of table " + table);
    }
    orphans.removeIf(orphan -> !checkNoLinkEscape(tableLocation, orphan, table));
    if (!dryRun) {
      delete(io, orphans, table);
    }
    return Collections.unmodifiableList(orphans);
  }

  /**
   * The orphans among the listed files: old enough, inside the table location, not hidden, and
   * unreachable (or, in DELETE mode, reachable only under another prefix). Prefix mismatches in
   * ERROR mode throw, before anything is deleted.
   */
  private List<String> classify(List<FileInfo> listed, long cutoff, OrphanPrefixes prefixes, String tableLocation,
      String table) {
    OrphanPrefixes.Parts root = prefixes.parse(tableLocation);
    List<String> orphans = new ArrayList<>();
    List<String> conflicts = new ArrayList<>();
    for (FileInfo file : listed) {
      if (file.modifiedMillis() >= cutoff) {
        continue;
      }
      OrphanPrefixes.Parts parts = prefixes.parse(file.location());
      if (parts == null || !Locations.isInside(tableLocation, file.location()) || isHidden(root, parts)) {
        continue;
      }
      switch (prefixes.match(parts)) {
        case REACHABLE -> { }
        case UNREACHABLE -> orphans.add(file.location());
        case PREFIX_MISMATCH -> {
          if (mode == PrefixMismatchMode.DELETE) {
            orphans.add(file.location());
          } else if (mode == PrefixMismatchMode.ERROR) {
            conflicts.add(file.location() + " (metadata has " + prefixes.reachablePrefixes(parts) + ")");
          }
        }
      }
    }
    if (!conflicts.isEmpty()) {
      throw new IllegalStateException("Cannot remove orphan files of table " + table + ": " + conflicts.size()
          + " listed file(s) match a location in the metadata except for scheme or authority, e.g. "
          + conflicts.subList(0, Math.min(5, conflicts.size())) + ". Nothing was deleted. If the prefixes name "
          + "the same storage, pass equal_schemes / equal_authorities (e.g. equal_authorities => map('nn:8020', "
          + "'nn')); prefix_mismatch_mode => 'IGNORE' keeps such files, 'DELETE' deletes them (only if you are "
          + "sure they are different files: deleted files cannot be recovered)");
    }
    return orphans;
  }

  /**
   * The temporary files of commits ({@link FileSystemTableOperations#isTemporaryFileName}) directly in
   * the table's metadata folder and last modified before {@code staleBefore}: no commit is still
   * publishing them, since one that ran that long ago has ended or died.
   */
  private List<String> abandonedTemporaryFiles(List<FileInfo> listed, long staleBefore) {
    String metadataDir = Locations.canonical(ops.metadataRoot() + "/metadata");
    List<String> abandoned = new ArrayList<>();
    for (FileInfo file : listed) {
      String location = file.location();
      int slash = location.lastIndexOf('/');
      if (file.modifiedMillis() < staleBefore && slash > 0
          && FileSystemTableOperations.isTemporaryFileName(location.substring(slash + 1))
          && Objects.equals(Locations.canonical(location.substring(0, slash)), metadataDir)) {
        abandoned.add(location);
      }
    }
    return abandoned;
  }

  /** The folders where the table's writers and commits put their in-flight markers. */
  private List<String> markerDirs(TableMetadata metadata) {
    List<String> dirs = new ArrayList<>();
    dirs.add(ops.metadataRoot() + "/metadata");
    dirs.add(metadata.location() + "/data");
    if (!metadata.dataLocation().equals(metadata.location() + "/data")) {
      dirs.add(metadata.dataLocation());
    }
    return dirs;
  }

  /** The directory to list: {@code location} when given (inside the table location), else the table's. */
  private String listingRoot(String tableLocation, String table) {
    if (Locations.canonical(tableLocation) == null) {
      throw new IllegalStateException("Cannot remove orphan files of table " + table + ": its location '"
          + tableLocation + "' is not a usable location (unparseable, or a '.' or '..' segment)");
    }
    if (location == null || location.isBlank()) {
      return tableLocation;
    }
    String canonicalRoot = Locations.canonical(tableLocation);
    String canonical = Locations.canonical(location);
    if (canonical == null || canonicalRoot == null
        || !(canonical.equals(canonicalRoot) || Locations.isInside(tableLocation, location))) {
      throw new IllegalArgumentException("Cannot remove orphan files of table " + table + " under location '"
          + location + "': it is not inside the table location " + tableLocation
          + " (orphan removal never deletes anything outside the table). Pass a directory below "
          + tableLocation + ", or omit location");
    }
    return location;
  }

  private static void addReachable(OrphanPrefixes prefixes, Set<String> reachable, String table) {
    for (String file : reachable) {
      if (!prefixes.addReachable(file)) {
        throw new IllegalStateException("Cannot remove orphan files of table " + table + ": its metadata "
            + "references '" + file + "', which is not a usable location (unparseable, or a '.' or '..' "
            + "segment), so it cannot tell which listed file that is. Nothing was deleted; repair the metadata");
      }
    }
  }

  /** True when a path segment below the table location starts with {@code _} or {@code .}. */
  static boolean isHidden(OrphanPrefixes.Parts root, OrphanPrefixes.Parts file) {
    String base = root.path().endsWith("/") ? root.path() : root.path() + "/";
    String relative = file.path().startsWith(base) ? file.path().substring(base.length()) : file.path();
    for (String segment : relative.split("/")) {
      if (segment.startsWith("_") || segment.startsWith(".")) {
        return true;
      }
    }
    return false;
  }

  /**
   * For local files: the file's real directory (symbolic links resolved) must lie inside the table
   * location's real directory, so a link to a directory elsewhere never leads a deletion out.
   * Returns false when the file's directory is gone (deleted since the listing): nothing to delete.
   */
  private static boolean checkNoLinkEscape(String tableLocation, String file, String table) {
    String canonicalFile = Locations.canonical(file);
    String canonicalRoot = Locations.canonical(tableLocation);
    if (!canonicalFile.startsWith("file:/") || !canonicalRoot.startsWith("file:/")) {
      return true;
    }
    try {
      Path root = Paths.get(canonicalRoot.substring("file:".length())).toRealPath();
      Path parent = Paths.get(canonicalFile.substring("file:".length())).getParent().toRealPath();
      if (!parent.startsWith(root)) {
        throw new IllegalStateException("Cannot remove orphan files of table " + table + ": " + file
            + " lies, through a symbolic link, in " + parent + ", outside the table location " + root
            + ". Nothing was deleted; remove the link");
      }
      return true;
    } catch (NoSuchFileException e) {
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot resolve " + file + " of table " + table + "; nothing was deleted", e);
    }
  }

  private void delete(FileIO io, List<String> orphans, String table) {
    List<String> failures = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = threads > 1 && orphans.size() > 1 ? Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "floe-orphan-delete");
      t.setDaemon(true);
      return t;
    }) : null;
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (String orphan : orphans) {
        Runnable task = () -> {
          try {
            io.deleteFile(orphan);
          } catch (IOException | RuntimeException e) {
            failures.add(orphan + " (" + e.getMessage() + ")");
          }
        };
        if (pool == null) {
          task.run();
        } else {
          futures.add(pool.submit(task));
        }
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while deleting orphan files of table " + table, e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("Deleting orphan files of table " + table + " failed", e.getCause());
    } finally {
      if (pool != null) {
        pool.shutdownNow();
      }
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException("Removed " + (orphans.size() - failures.size()) + " of " + orphans.size()
          + " orphan files of table " + table + "; could not delete " + failures.size() + ", e.g. "
          + failures.subList(0, Math.min(5, failures.size())) + ". Run remove_orphan_files again");
    }
  }
}
