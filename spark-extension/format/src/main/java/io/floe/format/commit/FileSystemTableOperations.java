package io.floe.format.commit;

import io.floe.format.FloeFormatException;
import io.floe.format.io.FileIO;
import io.floe.format.io.InputFile;
import io.floe.format.io.Locations;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableMetadataParser;
import io.floe.format.metadata.TableProperties;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Iceberg's file-system table layout: {@code metadata/v<N>.metadata.json} plus a
 * {@code version-hint.text} hint. A new version is written to a temporary file and published under
 * its final name with {@link FileIO#publishIfAbsent}, which fails if another writer got there first,
 * so two writers racing from the same base never both win and no version file is overwritten. On an
 * object store, which has no atomic rename, the version is written directly with the store's
 * conditional create ({@link FileIO#createIfAbsent}, {@code If-None-Match: *}), to the same effect.
 *
 * <p>Parsed versions are shared through a {@link MetadataFileCache} (the catalog's, so that each
 * load of an unchanged table does not parse its metadata again); after a commit the metadata just
 * written is used as it is in memory, not read back, unless the publish outcome was ambiguous.
 */
public final class FileSystemTableOperations implements TableOperations {
  private static final Pattern VERSION_FILE = Pattern.compile("v(\\d+)\\.metadata\\.json");
  private static final String HINT = "version-hint.text";
  private static final String UUID_TEXT = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
  /** The temporary files a commit writes in {@code metadata/}: the new version and the new hint. */
  private static final Pattern TEMPORARY_FILE = Pattern.compile(
      "\\.floe-" + UUID_TEXT + "(\\.metadata\\.json|-version-hint)\\.tmp");

  private final FileIO io;
  private final String root;
  private final String name;
  private final MetadataFileCache cache;
  private TableMetadata current;
  private int currentVersion = 0;

  public FileSystemTableOperations(FileIO io, String tableRoot, String tableName) {
    this(io, tableRoot, tableName, new MetadataFileCache(1, MetadataFileCache.DEFAULT_MAX_BYTES));
  }

  public FileSystemTableOperations(FileIO io, String tableRoot, String tableName, MetadataFileCache cache) {
    this.io = io;
    this.root = stripTrailingSlash(tableRoot);
    this.name = tableName;
    this.cache = cache;
  }

  static String stripTrailingSlash(String s) {
    String out = s;
    while (out.endsWith("/") && !out.endsWith("://") && out.length() > 1) {
      out = out.substring(0, out.length() - 1);
    }
    return out;
  }

  /**
   * True for the name of a temporary file a commit writes in {@code metadata/} (a new version, a new
   * hint) and removes once published or abandoned; one left by a writer that died is an orphan.
   */
  public static boolean isTemporaryFileName(String fileName) {
    return TEMPORARY_FILE.matcher(fileName).matches();
  }

  @Override
  public FileIO io() {
    return io;
  }

  @Override
  public String tableName() {
    return name;
  }

  @Override
  public String metadataRoot() {
    return root;
  }

  @Override
  public TableMetadata current() {
    return current;
  }

  private String versionFile(int version) {
    return metadataFileLocation("v" + version + ".metadata.json");
  }

  /**
   * The newest version number present (0 when none): the hint, checked and advanced by probing. A
   * hint naming a version whose file is missing, with no newer version listed, means the current
   * metadata file was lost: that is an error, never a silent fall back to an older snapshot.
   */
  int findVersion() {
    int hinted = readHint();
    int version = hinted;
    if (version <= 0 || !exists(versionFile(version))) {
      version = highestListedVersion();
      if (hinted > 0 && version < hinted) {
        throw new FloeFormatException("Cannot load table " + name + ": metadata file " + versionFile(hinted)
            + " is missing (" + HINT + " names version " + hinted + ", the newest file found is "
            + (version == 0 ? "none" : "v" + version + ".metadata.json") + ")");
      }
    }
    while (exists(versionFile(version + 1))) {
      version += 1;
    }
    return version;
  }

  /**
   * True when {@code version-hint.text} names a version file that exists: a cheap sign that this is
   * a table, with no listing. False says nothing (no hint, or a stale one); list to be sure.
   */
  public boolean hasHintedVersion() {
    int hinted = readHint();
    return hinted > 0 && exists(versionFile(hinted));
  }

  /** A probe for a file (one metadata request on an object store, never a directory listing). */
  private boolean exists(String location) {
    try {
      return io.fileExists(location);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot check " + location + " of table " + name, e);
    }
  }

  private boolean versionExists(String location) throws IOException {
    return io.fileExists(location);
  }

  /** The hinted version, 0 when there is no readable hint; read without a probe first. */
  private int readHint() {
    InputFile hint = io.newInputFile(metadataFileLocation(HINT));
    try {
      return Integer.parseInt(new String(hint.readAllBytes(), StandardCharsets.UTF_8).trim());
    } catch (IOException | NumberFormatException | UncheckedIOException e) {
      return 0;
    }
  }

  private int highestListedVersion() {
    try {
      List<String> names = io.listFileNames(root + "/metadata");
      int max = 0;
      for (String n : names) {
        Matcher m = VERSION_FILE.matcher(n);
        if (m.matches()) {
          max = Math.max(max, Integer.parseInt(m.group(1)));
        }
      }
      return max;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list metadata of table " + name + " at " + root, e);
    }
  }

  @Override
  public TableMetadata refresh() {
    int version = findVersion();
    if (version == 0) {
      current = null;
      currentVersion = 0;
      return null;
    }
    if (version != currentVersion || current == null) {
      current = cache.read(io, root, versionFile(version));
      currentVersion = version;
    }
    return current;
  }

  @Override
  public void commit(TableMetadata base, TableMetadata updated) {
    // With a conditional create, a base that is this object's current version needs no refresh: the
    // create of the next version fails by itself when another writer published it.
    boolean baseIsCurrent = base != null && current != null
        && java.util.Objects.equals(base.metadataFileLocation(), current.metadataFileLocation());
    TableMetadata latest = baseIsCurrent && io.createsIfAbsent(versionFile(currentVersion + 1)) ? current : refresh();
    String baseFile = base == null ? null : base.metadataFileLocation();
    String latestFile = latest == null ? null : latest.metadataFileLocation();
    if (!java.util.Objects.equals(baseFile, latestFile)) {
      if (base == null) {
        throw new CommitFailedException("Table " + name + " already exists");
      }
      throw new CommitFailedException("Cannot commit to table " + name + ": it changed since " + baseFile
          + " (now " + latestFile + ")");
    }
    int nextVersion = currentVersion + 1;
    String commitId = UUID.randomUUID().toString();
    TableMetadata toWrite = TableMetadata.buildFrom(updated).withCommitId(commitId).build();
    String target = versionFile(nextVersion);
    boolean conditional = io.createsIfAbsent(target);
    byte[] json = TableMetadataParser.toJsonBytes(toWrite);
    TableMetadata committed = conditional
        ? createVersion(commitId, target, toWrite, json)
        : publishVersion(commitId, nextVersion, target, toWrite, json);
    boolean hinted = writeHint(nextVersion, conditional);
    cache.put(root, json, committed);
    current = committed;
    currentVersion = nextVersion;
    if (hinted) {
      deleteRemovedMetadataFiles(latest, current);
    }
  }

  /**
   * With {@code write.metadata.delete-after-commit.enabled}, deletes the metadata files that were in
   * the base's metadata-log (or were the base itself) and dropped out of the committed one, which
   * keeps {@code write.metadata.previous-versions-max} entries. Runs only after a commit known to
   * have landed and whose hint was written; only files inside this table's metadata folder are
   * deleted, best effort. Never with a stale hint: readers probe forward from the hinted version and
   * stop at the first missing one, so a hint naming an old version that survived (its delete failed)
   * next to a deleted successor would load that old version, and a writer would commit on top of it
   * (losing every commit after it; found by the R3 fault run, docs/reliability.md).
   */
  private void deleteRemovedMetadataFiles(TableMetadata base, TableMetadata committed) {
    if (base == null || !committed.propertyAsBoolean(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED,
        TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED_DEFAULT)) {
      return;
    }
    java.util.Set<String> kept = new java.util.HashSet<>();
    kept.add(committed.metadataFileLocation());
    committed.previousFiles().forEach(e -> kept.add(e.file()));
    java.util.List<String> candidates = new java.util.ArrayList<>();
    base.previousFiles().forEach(e -> candidates.add(e.file()));
    candidates.add(base.metadataFileLocation());
    String metadataDir = root + "/metadata";
    for (String file : candidates) {
      if (file != null && !kept.contains(file) && Locations.isInside(metadataDir, file)) {
        Locations.checkInside(metadataDir, file, "old metadata file of table " + name);
        deleteQuietly(file);
      }
    }
  }

  /**
   * Publishes the new version with the store's conditional create (an object store's put-if-absent):
   * one request, no temporary file, no rename. "Already exists" is read back, as the store may have
   * retried a request of ours whose answer was lost; any other error leaves the outcome unknown
   * unless the version file is found, since a request that failed for us may still land.
   */
  private TableMetadata createVersion(String commitId, String target, TableMetadata toWrite, byte[] json) {
    try {
      io.createIfAbsent(target, json);
      return toWrite.withMetadataFileLocation(target);
    } catch (FileAlreadyExistsException e) {
      TableMetadata landed = resolveAmbiguousPublish(commitId, target, null, e);
      if (landed == null) {
        throw new CommitFailedException("Cannot commit to table " + name + ": " + target
            + " was published by another writer", e);
      }
      return landed;
    } catch (IOException | RuntimeException e) {
      IOException cause = asIOException(e);
      TableMetadata landed = resolveAmbiguousPublish(commitId, target, null, cause);
      if (landed == null) {
        throw new CommitStateUnknownException("Cannot tell whether the commit to table " + name + " landed at "
            + target + ": the conditional write failed and may still complete", cause);
      }
      return landed;
    }
  }

  /**
   * A publish error as an IOException: a store client may throw an unchecked exception (an SDK's
   * client exception) after the write landed, which must be resolved like any other error, never
   * passed up as a plain failure (the caller would then delete the files of a committed snapshot).
   */
  private static IOException asIOException(Exception e) {
    return e instanceof IOException io ? io : new IOException(e.toString(), e);
  }

  /** Publishes the new version by writing a temporary file and {@link FileIO#publishIfAbsent}. */
  private TableMetadata publishVersion(String commitId, int nextVersion, String target, TableMetadata toWrite,
      byte[] json) {
    String temp = metadataFileLocation(".floe-" + commitId + ".metadata.json.tmp");
    writeTemp(json, temp);
    TableMetadata committed;
    try {
      io.publishIfAbsent(temp, target);
      committed = toWrite.withMetadataFileLocation(target);
    } catch (FileAlreadyExistsException e) {
      // another writer's version, or this commit's own when the store retried a rename whose answer
      // was lost (HDFS): read it back, as a retry on top of our own version would apply it twice
      committed = resolveAmbiguousPublish(commitId, target, temp, e);
      if (committed == null) {
        deleteQuietly(temp);
        throw new CommitFailedException("Cannot commit to table " + name + ": version " + nextVersion
            + " was published by another writer", e);
      }
    } catch (IOException | RuntimeException e) {
      IOException cause = asIOException(e);
      committed = resolveAmbiguousPublish(commitId, target, temp, cause);
      if (committed == null) {
        committed = fenceFailedPublish(commitId, target, temp, cause);
      }
    }
    deleteQuietly(temp);
    return committed;
  }

  /**
   * After a publish error with no version at {@code target}: a rename the store still carries out
   * (an HDFS call queued at a NameNode whose answer the client gave up on) can land later, so the
   * temporary file is deleted to fence it. A delete that removed the file means no rename of it can
   * land: the commit failed. A file already gone was renamed meanwhile: the version is read back
   * (ours: committed). A delete that fails leaves the outcome unknown.
   */
  private TableMetadata fenceFailedPublish(String commitId, String target, String temp, IOException cause) {
    boolean removed;
    try {
      removed = io.deleteFile(temp);
    } catch (IOException | RuntimeException deleteFailure) {
      cause.addSuppressed(deleteFailure);
      throw new CommitStateUnknownException("Cannot tell whether the commit to table " + name + " landed at "
          + target + ": publishing failed and its temporary file " + temp + " could not be removed", cause);
    }
    if (removed) {
      throw new CommitFailedException("Cannot commit to table " + name + ": publishing " + target + " failed", cause);
    }
    TableMetadata landed = resolveAmbiguousPublish(commitId, target, null, cause);
    if (landed == null) {
      throw new CommitStateUnknownException("Cannot tell whether the commit to table " + name + " landed at "
          + target + ": publishing failed and its temporary file " + temp + " is gone", cause);
    }
    return landed;
  }

  /**
   * After a publish error: the version at {@code target} as read back when it is ours, null when
   * there is none, a commit failure when another writer's is there.
   */
  private TableMetadata resolveAmbiguousPublish(String commitId, String target, String temp, IOException cause) {
    TableMetadata landed;
    try {
      if (!versionExists(target)) {
        return null;
      }
      // through the cache: after a lost race, the refresh before the retry reuses this parse
      landed = cache.read(io, root, target);
    } catch (IOException | RuntimeException readBack) {
      if (readBack instanceof CommitFailedException) {
        throw (CommitFailedException) readBack;
      }
      cause.addSuppressed(readBack);
      throw new CommitStateUnknownException("Cannot tell whether the commit to table " + name + " landed at " + target,
          cause);
    }
    if (!commitId.equals(landed.commitId())) {
      if (temp != null) {
        deleteQuietly(temp);
      }
      throw new CommitFailedException("Cannot commit to table " + name + ": " + target
          + " was published by another writer", cause);
    }
    return landed;
  }

  /** Writes the new version's JSON to {@code temp}. */
  private void writeTemp(byte[] json, String temp) {
    try (OutputStream out = io.newOutputFile(temp).create()) {
      out.write(json);
    } catch (IOException e) {
      deleteQuietly(temp);
      throw new CommitFailedException("Cannot write new metadata for table " + name + " to " + temp, e);
    }
  }

  /**
   * Best effort: a stale hint only costs readers a probe (old versions are then kept, see
   * {@link #deleteRemovedMetadataFiles}); true when the hint now names {@code version}. Java's checksum sidecar is removed with it.
   * On an object store ({@code direct}) the hint is overwritten in one request: a whole-object write
   * there is seen whole or not at all, and a rename would be a copy plus a delete.
   */
  private boolean writeHint(int version, boolean direct) {
    byte[] text = Integer.toString(version).getBytes(StandardCharsets.UTF_8);
    if (direct) {
      try (OutputStream out = io.newOutputFile(metadataFileLocation(HINT)).createOrOverwrite()) {
        out.write(text);
        return true;
      } catch (IOException | RuntimeException e) {
        return false; // best effort, as below
      }
    }
    String temp = metadataFileLocation(".floe-" + UUID.randomUUID() + "-version-hint.tmp");
    try {
      try (OutputStream out = io.newOutputFile(temp).create()) {
        out.write(text);
      }
      io.deleteFile(metadataFileLocation(".version-hint.text.crc"));
      io.replace(temp, metadataFileLocation(HINT));
      return true;
    } catch (IOException | RuntimeException e) {
      deleteQuietly(temp);
      return false;
    }
  }

  private void deleteQuietly(String location) {
    try {
      io.deleteFile(location);
    } catch (IOException | RuntimeException ignored) {
      // best effort clean-up of our own temporary file
    }
  }

  /** Reads a specific published version; for tests and time travel by version file. */
  public TableMetadata readVersion(int version) {
    String location = versionFile(version);
    if (!exists(location)) {
      throw new FloeFormatException("Cannot find metadata version " + version + " of table " + name + ": "
          + location + " does not exist");
    }
    return TableMetadataParser.read(io, location);
  }

  public int currentVersion() {
    return currentVersion;
  }
}
