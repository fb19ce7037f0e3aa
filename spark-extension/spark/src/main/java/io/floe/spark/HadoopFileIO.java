package io.floe.spark;

import io.floe.format.catalog.CatalogErrors;
import io.floe.format.io.FileIO;
import io.floe.format.io.FileInfo;
import io.floe.format.io.InputFile;
import io.floe.format.io.OutputFile;
import io.floe.format.io.LocalFileIO;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.util.SerializableConfiguration;

/**
 * FileIO over any Hadoop FileSystem (HDFS, S3A, ...). Versions are published with FileContext's
 * no-overwrite rename, which fails when the target exists (one atomic NameNode operation on HDFS:
 * {@link #publishIfAbsent}). On object stores (S3A,
 * ...), where a rename is a copy and a delete, they are written with the store's conditional create
 * instead ({@link #createIfAbsent}: {@code createFile()} with {@value #CONDITIONAL_CREATE}, a PUT with
 * {@code If-None-Match: *}), unless unsafe commits were allowed ({@link #withUnsafeObjectStoreCommits}).
 * Local warehouses use {@link LocalFileIO}, whose hard-link publish is safe where a local rename would
 * overwrite.
 */
public final class HadoopFileIO implements FileIO, java.io.Serializable {
  /** Hadoop's createFile() option for put-if-absent (HADOOP-19256, Hadoop 3.4.2). */
  static final String CONDITIONAL_CREATE = "fs.option.create.conditional.overwrite";
  /** S3A's switch for conditional writes; S3A declares {@link #CONDITIONAL_CREATE} only while it is on. */
  static final String S3A_CONDITIONAL_ENABLED = "fs.s3a.create.conditional.enabled";
  /** S3A's createFile() option that skips the existence probes of a create. */
  private static final String S3A_CREATE_PERFORMANCE = "fs.s3a.create.performance";
  private static final java.util.Set<String> OBJECT_STORE_SCHEMES =
      java.util.Set.of("s3a", "s3", "s3n", "gs", "oss", "cosn", "obs");
  private static final int PRECONDITION_FAILED = 412;
  private static final int NOT_IMPLEMENTED = 501;

  private final SerializableConfiguration conf;
  private final boolean unsafeObjectStoreCommits;

  public HadoopFileIO(Configuration conf) {
    this(conf, false);
  }

  private HadoopFileIO(Configuration conf, boolean unsafeObjectStoreCommits) {
    this.conf = new SerializableConfiguration(conf);
    this.unsafeObjectStoreCommits = unsafeObjectStoreCommits;
  }

  /**
   * A FileIO that publishes versions on object stores with rename (copy, then delete) as on HDFS.
   * UNSAFE: two writers committing at once can both "win", and one commit is silently lost. Only for
   * stores without conditional writes and a single writer at a time.
   */
  public static HadoopFileIO withUnsafeObjectStoreCommits(Configuration conf) {
    return new HadoopFileIO(conf, true);
  }

  /** True for stores whose rename copies (S3 and the like): they need conditional creates to commit. */
  static boolean isObjectStore(String location) {
    String scheme = new Path(location).toUri().getScheme();
    return scheme != null && OBJECT_STORE_SCHEMES.contains(scheme.toLowerCase(java.util.Locale.ROOT));
  }

  private static String store(Path path) {
    java.net.URI uri = path.toUri();
    return uri.getScheme() + "://" + (uri.getAuthority() == null ? "" : uri.getAuthority());
  }

  /** The FileIO for a warehouse: local paths get {@link LocalFileIO}, anything else Hadoop's. */
  public static FileIO forLocation(String location, Configuration conf) {
    if (location.startsWith("file:") || !location.contains(":")) {
      return new LocalFileIO();
    }
    return new HadoopFileIO(conf);
  }

  private FileSystem fs(Path path) {
    try {
      return path.getFileSystem(conf.value());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot get file system for " + path, e);
    }
  }

  @Override
  public InputFile newInputFile(String location) {
    Path path = new Path(location);
    return new InputFile() {
      @Override
      public String location() {
        return location;
      }

      @Override
      public long length() {
        try {
          return fs(path).getFileStatus(path).getLen();
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot get length of " + location, e);
        }
      }

      @Override
      public boolean exists() {
        try {
          // isFile: one HEAD on S3A, where exists() also lists to look for a directory
          return fs(path).isFile(path);
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot check " + location, e);
        }
      }

      @Override
      public InputStream newStream() throws IOException {
        return fs(path).open(path);
      }
    };
  }

  /**
   * Opens with Hadoop's {@code openFile()} and the known length ({@code fs.option.openfile.length}),
   * which S3A and other object-store connectors use instead of a status request; read whole.
   */
  @Override
  public InputFile newInputFile(String location, long knownLength) {
    InputFile plain = newInputFile(location);
    if (knownLength < 0) {
      return plain;
    }
    Path path = new Path(location);
    return new InputFile() {
      @Override
      public String location() {
        return location;
      }

      @Override
      public long length() {
        return knownLength;
      }

      @Override
      public boolean exists() {
        return plain.exists();
      }

      @Override
      public InputStream newStream() throws IOException {
        return org.apache.hadoop.util.functional.FutureIO.awaitFuture(fs(path).openFile(path)
            .opt("fs.option.openfile.length", Long.toString(knownLength))
            .opt("fs.option.openfile.read.policy", "whole-file")
            .build());
      }
    };
  }

  @Override
  public OutputFile newOutputFile(String location) {
    Path path = new Path(location);
    return new OutputFile() {
      @Override
      public String location() {
        return location;
      }

      @Override
      public OutputStream create() throws IOException {
        if (isObjectStore(location) && conditionalCreates(path)) {
          // one conditional PUT at close, instead of existence probes (HEAD, LIST) before it
          return conditionalCreate(path);
        }
        return fs(path).create(path, false);
      }

      @Override
      public OutputStream createOrOverwrite() throws IOException {
        if (isObjectStore(location)) {
          // one PUT: no probes for a directory or parent at the path
          FSDataOutputStreamBuilder<?, ?> builder = fs(path).createFile(path);
          builder.overwrite(true);
          builder.opt(S3A_CREATE_PERFORMANCE, true);
          return builder.build();
        }
        return fs(path).create(path, true);
      }

      @Override
      public InputFile toInputFile() {
        return newInputFile(location);
      }
    };
  }

  @Override
  public boolean deleteFile(String location) throws IOException {
    Path path = new Path(location);
    return fs(path).delete(path, false);
  }

  @Override
  public boolean exists(String location) throws IOException {
    Path path = new Path(location);
    return fs(path).exists(path);
  }

  @Override
  public boolean fileExists(String location) throws IOException {
    Path path = new Path(location);
    // isFile: one HEAD on S3A, where exists() also lists to look for a directory
    return fs(path).isFile(path);
  }

  @Override
  public List<String> listFileNames(String directory) throws IOException {
    return list(directory, false);
  }

  @Override
  public List<String> listDirectoryNames(String directory) throws IOException {
    return list(directory, true);
  }

  private List<String> list(String directory, boolean directories) throws IOException {
    Path dir = new Path(directory);
    List<String> names = new ArrayList<>();
    FileStatus[] statuses;
    try {
      statuses = fs(dir).listStatus(dir);
    } catch (FileNotFoundException e) {
      return names;
    }
    for (FileStatus s : statuses) {
      String name = s.getPath().getName();
      if (name.startsWith(".") || (!directories && name.startsWith("_"))) {
        continue;
      }
      if (s.isDirectory() == directories) {
        names.add(name);
      }
    }
    names.sort(null);
    return names;
  }

  @Override
  public List<FileInfo> listRecursively(String directory) throws IOException {
    Path dir = new Path(directory);
    FileSystem fs = fs(dir);
    List<FileInfo> files = new ArrayList<>();
    String root;
    RemoteIterator<LocatedFileStatus> it;
    try {
      root = fs.makeQualified(dir).toUri().getPath();
      it = fs.listFiles(dir, true);
    } catch (FileNotFoundException e) {
      return files;
    }
    String prefix = directory.endsWith("/") ? directory : directory + "/";
    String rootPrefix = root.endsWith("/") ? root : root + "/";
    while (it.hasNext()) {
      LocatedFileStatus status = it.next();
      String path = status.getPath().toUri().getPath();
      if (!path.startsWith(rootPrefix)) {
        throw new IOException("Listing " + directory + " returned " + status.getPath() + ", which is not below it");
      }
      files.add(new FileInfo(prefix + path.substring(rootPrefix.length()), status.getLen(),
          status.getModificationTime()));
    }
    files.sort(java.util.Comparator.comparing(FileInfo::location));
    return files;
  }

  @Override
  public void mkdirs(String directory) throws IOException {
    Path dir = new Path(directory);
    fs(dir).mkdirs(dir);
  }

  @Override
  public boolean deleteRecursively(String directory) throws IOException {
    Path dir = new Path(directory);
    FileSystem fs = fs(dir);
    if (!fs.exists(dir)) {
      return false;
    }
    // A writer may still be adding files (a task of a statement racing the drop): a pass that left
    // the directory behind is followed by another.
    for (int pass = 1; ; pass++) {
      try {
        if (fs.delete(dir, true) || !fs.exists(dir)) {
          return true;
        }
      } catch (FileNotFoundException e) {
        // removed underneath this pass
      }
      if (pass == DELETE_PASSES) {
        throw new IOException("Could not delete " + directory + " (files were being added to it)");
      }
    }
  }

  private static final int DELETE_PASSES = 5;

  /**
   * FileContext's rename without overwrite ({@link Options.Rename#NONE}). On HDFS ({@code hdfs://},
   * {@code webhdfs://}, and {@code viewfs://} mounts of them) that is the NameNode's {@code rename2}:
   * one operation under the namespace lock that moves the file, or fails with "already exists"
   * (thrown here as {@link FileAlreadyExistsException}) and leaves both files as they were, so of two
   * writers publishing the same version exactly one wins. The NameNode's retry cache answers a
   * retried call with its first outcome, so a lost answer cannot turn this writer's own rename into
   * "already exists". On other Hadoop file systems FileContext falls back to FileSystem's default:
   * a check, then the two-argument rename, which is atomic only where that rename refuses an
   * existing destination (it then fails with an IOException, and the commit reads the version back
   * to learn who won). Object stores never come here for versions: see {@link #createsIfAbsent}.
   */
  @Override
  public void publishIfAbsent(String source, String target) throws IOException {
    Path src = new Path(source);
    Path dst = new Path(target);
    FileContext fc = FileContext.getFileContext(dst.toUri(), conf.value());
    try {
      fc.rename(src, dst, Options.Rename.NONE);
    } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
      throw new FileAlreadyExistsException(target);
    }
  }

  @Override
  public boolean createsIfAbsent(String location) {
    if (!isObjectStore(location)) {
      return false;
    }
    Path path = new Path(location);
    boolean conditional;
    try {
      conditional = fs(path).hasPathCapability(path, CONDITIONAL_CREATE);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot check the capabilities of " + store(path), e);
    }
    if (conditional && !unsafeObjectStoreCommits) {
      return true;
    }
    if (unsafeObjectStoreCommits) {
      return false;
    }
    throw CatalogErrors.conditionalWritesUnavailable(store(path), location,
        "its Hadoop connector does not offer " + CONDITIONAL_CREATE + " (for S3A: Hadoop 3.4.2 or later, with "
            + S3A_CONDITIONAL_ENABLED + "=true)");
  }

  @Override
  public void createIfAbsent(String location, byte[] content) throws IOException {
    Path path = new Path(location);
    try (OutputStream out = conditionalCreate(path)) {
      out.write(content);
    }
  }

  /**
   * The failure of a conditional create, as Floe reports it: "precondition failed" (412) or Hadoop's
   * "file exists" become {@link FileAlreadyExistsException}; a store that does not implement
   * conditional writes (501) is a clear {@link io.floe.format.catalog.CatalogException} naming the
   * store and the setting; anything else is returned as it is.
   */
  static IOException conditionalCreateFailure(String location, IOException e) {
    int status = httpStatus(e);
    if (e instanceof org.apache.hadoop.fs.FileAlreadyExistsException || status == PRECONDITION_FAILED) {
      return alreadyExists(location, e);
    }
    if (status == NOT_IMPLEMENTED || e.getClass().getSimpleName().equals("AWSUnsupportedFeatureException")) {
      throw CatalogErrors.conditionalWritesUnavailable(store(new Path(location)), location,
          "the store answered a conditional write with 'not implemented' (" + e.getMessage() + ")");
    }
    return e;
  }

  /** A stream whose close is one conditional PUT; its failures pass {@link #conditionalCreateFailure}. */
  private OutputStream conditionalCreate(Path path) throws IOException {
    String location = path.toString();
    FSDataOutputStreamBuilder<?, ?> builder = fs(path).createFile(path);
    builder.overwrite(false);
    builder.must(CONDITIONAL_CREATE, true);
    OutputStream out;
    try {
      out = builder.build();
    } catch (IOException e) {
      throw conditionalCreateFailure(location, e);
    }
    return new java.io.FilterOutputStream(out) {
      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
      }

      @Override
      public void close() throws IOException {
        try {
          super.close();
        } catch (IOException e) {
          throw conditionalCreateFailure(location, e);
        }
      }
    };
  }

  private boolean conditionalCreates(Path path) throws IOException {
    return !unsafeObjectStoreCommits && fs(path).hasPathCapability(path, CONDITIONAL_CREATE);
  }

  private static FileAlreadyExistsException alreadyExists(String location, IOException cause) {
    FileAlreadyExistsException e = new FileAlreadyExistsException(location);
    e.initCause(cause);
    return e;
  }

  /**
   * The HTTP status of the store's answer carried by an exception or one of its causes (S3A's
   * AWSServiceIOException and the AWS SDK's S3Exception both have {@code statusCode()}), or -1.
   * Read reflectively: the AWS classes are the user's jars, not Floe's.
   */
  static int httpStatus(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      try {
        Object status = t.getClass().getMethod("statusCode").invoke(t);
        if (status instanceof Integer && (Integer) status > 0) {
          return (Integer) status;
        }
      } catch (ReflectiveOperationException | RuntimeException ignored) {
        // not an exception that carries a status
      }
    }
    return -1;
  }

  @Override
  public boolean renamesDirectoriesAtomically(String location) {
    return !isObjectStore(location);
  }

  @Override
  public void renameDirectory(String source, String target) throws IOException {
    if (isObjectStore(target)) {
      throw new IOException("Cannot move " + source + " to " + target + ": " + store(new Path(target))
          + " is an object store, where a directory cannot be moved in one step");
    }
    publishIfAbsent(source, target);
  }

  @Override
  public void replace(String source, String target) throws IOException {
    Path src = new Path(source);
    Path dst = new Path(target);
    FileContext fc = FileContext.getFileContext(dst.toUri(), conf.value());
    fc.rename(src, dst, Options.Rename.OVERWRITE);
  }
}
