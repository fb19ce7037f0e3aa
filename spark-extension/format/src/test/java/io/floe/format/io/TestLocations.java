package io.floe.format.io;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class TestLocations {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  @Test
  public void checkInsideRefusesAFileThatALinkTakesOutsideTheRoot() throws IOException {
    Path root = temp.newFolder("w", "t").toPath();
    Path outside = temp.newFolder("outside").toPath();
    Files.write(outside.resolve("victim.parquet"), new byte[] {1});
    Files.createDirectories(root.resolve("data"));
    Files.createSymbolicLink(root.resolve("data/escape"), outside);
    String victim = root.toUri() + "data/escape/victim.parquet";

    assertTrue("by name the file is inside", Locations.isInside(root.toUri().toString(), victim));
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> Locations.checkInside(root.toString(), victim, "data file"));
    assertTrue(e.getMessage(), e.getMessage().contains("through a symbolic link")
        && e.getMessage().contains(outside.toRealPath().toString()));
    assertTrue(Files.exists(outside.resolve("victim.parquet")));
  }

  @Test
  public void checkInsideAcceptsALinkedRootAndMissingFolders() throws IOException {
    Path real = temp.newFolder("real").toPath();
    Files.createDirectories(real.resolve("data"));
    Path linkedRoot = temp.getRoot().toPath().resolve("linked");
    Files.createSymbolicLink(linkedRoot, real);
    Locations.checkInside(linkedRoot.toString(), linkedRoot + "/data/a.parquet", "data file");
    Locations.checkInside(linkedRoot.toString(), linkedRoot + "/gone/a.parquet", "data file");
    Locations.checkInside("s3://b/w/t", "s3://b/w/t/data/a.parquet", "data file");
  }

  @Test
  public void localFormsAreTheSame() {
    assertEquals("file:/w/t/data/a.parquet", Locations.canonical("file:///w/t/data/a.parquet"));
    assertEquals("file:/w/t/data/a.parquet", Locations.canonical("file:/w/t/data/a.parquet"));
    assertEquals("file:/w/t/data/a.parquet", Locations.canonical("/w//t/data/a.parquet"));
    assertEquals("file:/w/t", Locations.canonical("file:/w/t/"));
  }

  @Test
  public void untrustedLocations() {
    assertNull(Locations.canonical("/w/t/../u/a.parquet"));
    assertNull(Locations.canonical("/w/t/./a"));
    assertNull(Locations.canonical("relative/a"));
    assertNull(Locations.canonical("file://otherhost/w/t"));
    assertNull(Locations.canonical(""));
  }

  @Test
  public void insideComparesSchemeAuthorityAndWholeSegments() {
    assertTrue(Locations.isInside("file:/w/t", "/w/t/data/a.parquet"));
    assertTrue(Locations.isInside("hdfs://nn:8020/w/t", "hdfs://nn:8020/w/t/metadata/v1.metadata.json"));
    assertFalse(Locations.isInside("hdfs://nn:8020/w/t", "hdfs://other:8020/w/t/metadata/v1.metadata.json"));
    assertFalse(Locations.isInside("file:/w/t", "hdfs://nn/w/t/a"));
    assertFalse(Locations.isInside("file:/w/t", "/w/t2/a.parquet"));
    assertFalse(Locations.isInside("file:/w/t", "/w/t"));
    assertFalse(Locations.isInside("file:/w/t", "/w/t/../u/a.parquet"));
    assertFalse(Locations.isInside("file:/w/t", "/etc/passwd"));
  }

  @Test
  public void checkInsideNamesTheFile() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> Locations.checkInside("file:/w/t", "/etc/passwd", "data file"));
    assertTrue(e.getMessage(), e.getMessage().contains("/etc/passwd"));
    assertTrue(e.getMessage(), e.getMessage().contains("file:/w/t"));
  }
}
