package io.floe.spark;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;

import org.junit.Test;

/**
 * The data source alias {@code iceberg} is Floe's only without Iceberg's runtime (this test's
 * classpath has none); with it, python-tests/test_data_source.py checks that {@code iceberg} stays
 * Iceberg's in the same session.
 */
public class TestFloeIcebergAlias {
  @Test
  public void aliasIsIcebergWithoutTheIcebergRuntime() {
    assertFalse(FloeIcebergAlias.icebergRuntimePresent(getClass().getClassLoader()));
    assertEquals("iceberg", new FloeIcebergAlias().shortName());
    assertEquals("floe", new FloeSource().shortName());
  }
}
