package io.floe.format.io;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** FileIO over the local file system; commits publish with a hard link, which fails if the name exists. */
public final class LocalFileIO implements FileIO {

  /**
   * The local path of {@code location}: {@code file:///p}, {@code file://localhost/p}, {@code file:/p}
   * or a plain path. Taken literally, like Hadoop's {@code Path}: nothing is percent-decoded, so
   * {@code %2E%2E} is a folder named so, never {@code ..}.
   */
  public static Path toPath(String location) {
    return Paths.get(localPath(location));
  }

  static String localPath(String location) {
    if (!location.startsWith("file:")) {
      return location;
    }
    String rest = location.substring("file:".length());
    if (rest.startsWith("//")) {
      // file:///p and file://localhost/p; a lenient file://p (no authority meant) is /p as before
      String afterSlashes = rest.substring(2);
      rest = afterSlashes.startsWith("localhost/") ? afterSlashes.substring("localhost".length())
          : afterSlashes.startsWith("/") ? afterSlashes : "/" + afterSlashes;
    }
    return rest;
  }

  @Override
  public InputFile newInputFile(String location) {
    Path path = toPath(location);
    return new InputFile() {
      @Override
      public String location() {
        return location;
      }

      @Override
      public long length() {
        try {
          return Files.size(path);
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot get length of " + location, e);
        }
      }

      @Override
      public boolean exists() {
        return Files.exists(path);
      }

      @Override
      public InputStream newStream() throws IOException {
        return Files.newInputStream(path);
      }
    };
  }

  @Override
  public OutputFile newOutputFile(String location) {
    Path path = toPath(location);
    return new OutputFile() {
      @Override
      public String location() {
        return location;
      }

      @Override
      public OutputStream create() throws IOException {
        Files.createDirectories(path.getParent());
        return Files.newOutputStream(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      }

      @Override
      public OutputStream createOrOverwrite() throws IOException {
        Files.createDirectories(path.getParent());
        return Files.newOutputStream(path);
      }

      @Override
      public InputFile toInputFile() {
        return newInputFile(location);
      }
    };
  }

  @Override
  public boolean deleteFile(String location) throws IOException {
    return Files.deleteIfExists(toPath(location));
  }

  @Override
  public boolean exists(String location) {
    return Files.exists(toPath(location));
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
    List<String> names = new ArrayList<>();
    Path dir = toPath(directory);
    if (!Files.isDirectory(dir)) {
      return names;
    }
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
      for (Path p : stream) {
        String name = p.getFileName().toString();
        if (name.startsWith(".") || name.startsWith("_")) {
          continue;
        }
        if (Files.isDirectory(p) == directories) {
          names.add(name);
        }
      }
    }
    names.sort(null);
    return names;
  }

  @Override
  public List<FileInfo> listRecursively(String directory) throws IOException {
    Path dir = toPath(directory);
    List<FileInfo> files = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return files;
    }
    String prefix = directory.endsWith("/") ? directory : directory + "/";
    // files and folders that vanish while listing (temporary files, concurrent deletes) are skipped
    Files.walkFileTree(dir, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path p, BasicFileAttributes attrs) throws IOException {
        String location = prefix + dir.relativize(p).toString().replace('\\', '/');
        if (attrs.isRegularFile()) {
          files.add(new FileInfo(location, attrs.size(), attrs.lastModifiedTime().toMillis()));
        } else if (attrs.isSymbolicLink() && Files.isRegularFile(p)) {
          try {
            files.add(new FileInfo(location, Files.size(p), Files.getLastModifiedTime(p).toMillis()));
          } catch (NoSuchFileException e) {
            // deleted while listing
          }
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path p, IOException e) throws IOException {
        if (e instanceof NoSuchFileException) {
          return FileVisitResult.CONTINUE;
        }
        throw e;
      }
    });
    files.sort(Comparator.comparing(FileInfo::location));
    return files;
  }

  @Override
  public void mkdirs(String directory) throws IOException {
    Files.createDirectories(toPath(directory));
  }

  @Override
  public boolean deleteRecursively(String directory) throws IOException {
    Path dir = toPath(directory);
    if (!Files.exists(dir)) {
      return false;
    }
    // A writer may still be adding files (a task of a statement racing the drop): each pass deletes
    // what it found; a directory that gained a file meanwhile is emptied by the next pass.
    for (int pass = 1; ; pass++) {
      try {
        deleteTree(dir);
        return true;
      } catch (DirectoryNotEmptyException | NoSuchFileException | UncheckedIOException e) {
        if (pass == DELETE_PASSES) {
          throw e instanceof UncheckedIOException u ? u.getCause() : (IOException) e;
        }
      }
    }
  }

  private static final int DELETE_PASSES = 5;

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Override
  public void publishIfAbsent(String source, String target) throws IOException {
    Path to = toPath(target);
    try {
      Files.createLink(to, toPath(source));
    } catch (FileAlreadyExistsException e) {
      throw new FileAlreadyExistsException(target);
    } catch (NoSuchFileException e) {
      throw new NoSuchFileException(source);
    }
  }

  @Override
  public void renameDirectory(String source, String target) throws IOException {
    Path to = toPath(target);
    if (Files.exists(to)) {
      throw new FileAlreadyExistsException(target);
    }
    Files.createDirectories(to.getParent());
    Files.move(toPath(source), to);
  }

  @Override
  public void replace(String source, String target) throws IOException {
    Files.move(toPath(source), toPath(target), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
