package io.floe.format.io;

import java.io.IOException;
import java.util.List;

/**
 * Storage access for the format. Locations are full URIs ({@code file:/...}, {@code hdfs://...}).
 * Implementations: {@link LocalFileIO} here, a Hadoop FileSystem one in io.floe.spark.
 */
public interface FileIO {
  InputFile newInputFile(String location);

  /**
   * A file whose length the caller knows (a manifest, whose length its manifest list records): a
   * store can then open it without asking for its status first (on S3, a GET and no HEAD).
   */
  default InputFile newInputFile(String location, long length) {
    return newInputFile(location);
  }

  OutputFile newOutputFile(String location);

  /** Deletes a file; true if it existed. */
  boolean deleteFile(String location) throws IOException;

  boolean exists(String location) throws IOException;

  /**
   * Whether a file (not a directory) exists at {@code location}. Stores where {@link #exists} also
   * looks for a directory (an object store: a metadata request plus a listing) answer with one probe.
   */
  default boolean fileExists(String location) throws IOException {
    return exists(location);
  }

  /** Names of files (not directories) directly inside a directory, hidden files (".x", "_x") excluded. */
  List<String> listFileNames(String directory) throws IOException;

  /** Names of directories directly inside a directory, hidden ones excluded. */
  List<String> listDirectoryNames(String directory) throws IOException;

  /**
   * Every file below a directory, at any depth, hidden ones included; each location is
   * {@code directory + "/" + relative path}. A missing directory has no files.
   */
  List<FileInfo> listRecursively(String directory) throws IOException;

  void mkdirs(String directory) throws IOException;

  /** Deletes a directory and everything below it; true if it existed. */
  boolean deleteRecursively(String directory) throws IOException;

  /**
   * Makes the file at {@code source} visible as {@code target} atomically, failing with
   * {@link java.nio.file.FileAlreadyExistsException} when {@code target} exists. Never overwrites.
   * Leaves {@code source} in place; the caller removes it.
   */
  void publishIfAbsent(String source, String target) throws IOException;

  /**
   * True when {@link #createIfAbsent} can publish a new file at {@code location} in one conditional
   * request (an object store's put-if-absent, {@code If-None-Match: *}). Commits on such a store
   * must use it: a store without an atomic rename has no safe {@link #publishIfAbsent}. Fails, with
   * a message naming the store and the setting, on an object store that cannot make conditional
   * writes unless unsafe commits were allowed explicitly.
   */
  default boolean createsIfAbsent(String location) {
    return false;
  }

  /**
   * Writes {@code content} as a new file at {@code location} in one conditional request, which
   * fails with {@link java.nio.file.FileAlreadyExistsException} when the file exists (another
   * writer's, or this writer's own when the store retried a request whose answer was lost: the
   * caller reads the file back to tell). Only where {@link #createsIfAbsent} is true.
   */
  default void createIfAbsent(String location, byte[] content) throws IOException {
    throw new UnsupportedOperationException("Conditional create is not supported by " + getClass().getName());
  }

  /**
   * True when {@link #renameDirectory} moves a directory in one atomic step; false on object stores,
   * where a "directory rename" copies every file one by one.
   */
  default boolean renamesDirectoriesAtomically(String location) {
    return true;
  }

  /** Moves a directory to a new name; fails with FileAlreadyExistsException if the target exists. */
  void renameDirectory(String source, String target) throws IOException;

  /** Replaces {@code target} with {@code source} (for hints only, never for commits). */
  void replace(String source, String target) throws IOException;
}
