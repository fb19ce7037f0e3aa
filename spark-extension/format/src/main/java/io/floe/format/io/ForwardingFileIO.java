package io.floe.format.io;

import java.io.IOException;
import java.util.List;

/** A FileIO that delegates every call; subclasses override what they change (fault injection, counting). */
public class ForwardingFileIO implements FileIO {
  private final FileIO delegate;

  public ForwardingFileIO(FileIO delegate) {
    this.delegate = delegate;
  }

  @Override
  public InputFile newInputFile(String location) {
    return delegate.newInputFile(location);
  }

  @Override
  public OutputFile newOutputFile(String location) {
    return delegate.newOutputFile(location);
  }

  @Override
  public boolean deleteFile(String location) throws IOException {
    return delegate.deleteFile(location);
  }

  @Override
  public boolean exists(String location) throws IOException {
    return delegate.exists(location);
  }

  @Override
  public List<String> listFileNames(String directory) throws IOException {
    return delegate.listFileNames(directory);
  }

  @Override
  public List<FileInfo> listRecursively(String directory) throws IOException {
    return delegate.listRecursively(directory);
  }

  @Override
  public List<String> listDirectoryNames(String directory) throws IOException {
    return delegate.listDirectoryNames(directory);
  }

  @Override
  public void mkdirs(String directory) throws IOException {
    delegate.mkdirs(directory);
  }

  @Override
  public boolean deleteRecursively(String directory) throws IOException {
    return delegate.deleteRecursively(directory);
  }

  @Override
  public void publishIfAbsent(String source, String target) throws IOException {
    delegate.publishIfAbsent(source, target);
  }

  @Override
  public void renameDirectory(String source, String target) throws IOException {
    delegate.renameDirectory(source, target);
  }

  @Override
  public void replace(String source, String target) throws IOException {
    delegate.replace(source, target);
  }

  @Override
  public boolean createsIfAbsent(String location) {
    return delegate.createsIfAbsent(location);
  }

  @Override
  public void createIfAbsent(String location, byte[] content) throws IOException {
    delegate.createIfAbsent(location, content);
  }

  @Override
  public boolean renamesDirectoriesAtomically(String location) {
    return delegate.renamesDirectoriesAtomically(location);
  }
}
