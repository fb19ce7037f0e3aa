package io.floe.format.io;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class TestLocations {
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
