package io.floe.spark;

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
 * no-overwrite rename, which fails when the target exists (atomic on HDFS). Local warehouses use
 * {@link LocalFileIO}, whose hard-link publish is safe where a local rename would overwrite.
 */
public final class HadoopFileIO implements FileIO, java.io.Serializable {
  private final SerializableConfiguration conf;

  public HadoopFileIO(Configuration conf) {
    this.conf = new SerializableConfiguration(conf);
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
          return fs(path).exists(path);
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
        return fs(path).create(path, false);
      }

      @Override
      public OutputStream createOrOverwrite() throws IOException {
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
  public void renameDirectory(String source, String target) throws IOException {
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
