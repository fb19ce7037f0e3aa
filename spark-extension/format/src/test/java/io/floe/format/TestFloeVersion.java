package io.floe.format;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class TestFloeVersion {
  @Test
  public void versionComesFromTheBuild() {
    assertTrue(FloeVersion.version(), FloeVersion.version().matches("\\d+\\.\\d+\\.\\d+.*"));
    assertEquals("Floe " + FloeVersion.version(), FloeVersion.createdBy());
  }
}
