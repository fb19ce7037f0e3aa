package io.floe.format.manifest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.metadata.TableProperties;
import java.util.Map;
import org.junit.Test;

public class TestMetricsModes {
  @Test
  public void defaultIsTruncate16() {
    MetricsModes.Mode mode = MetricsModes.from(Map.of()).modeFor("any");
    assertEquals(MetricsModes.Kind.TRUNCATE, mode.kind());
    assertEquals(16, mode.length());
    assertEquals("truncate(16)", TableProperties.DEFAULT_WRITE_METRICS_MODE_DEFAULT);
  }

  @Test
  public void parsesEveryModeCaseInsensitively() {
    assertEquals(MetricsModes.Kind.NONE, MetricsModes.parse(" None ").kind());
    assertEquals(MetricsModes.Kind.COUNTS, MetricsModes.parse("counts").kind());
    assertEquals(MetricsModes.Kind.FULL, MetricsModes.parse("FULL").kind());
    assertEquals(4, MetricsModes.parse("truncate(4)").length());
    assertFalse(MetricsModes.parse("none").counts());
    assertTrue(MetricsModes.parse("counts").counts());
    assertFalse(MetricsModes.parse("counts").bounds());
    assertTrue(MetricsModes.parse("truncate(1)").bounds());
    assertTrue(MetricsModes.parse("full").bounds());
  }

  @Test
  public void columnModesOverrideTheDefault() {
    MetricsModes modes = MetricsModes.from(Map.of(
        TableProperties.DEFAULT_WRITE_METRICS_MODE, "counts",
        TableProperties.METRICS_MODE_COLUMN_PREFIX + "payload", "none",
        TableProperties.METRICS_MODE_COLUMN_PREFIX + "id", "full"));
    assertEquals(MetricsModes.Kind.COUNTS, modes.modeFor("name").kind());
    assertEquals(MetricsModes.Kind.NONE, modes.modeFor("payload").kind());
    assertEquals(MetricsModes.Kind.FULL, modes.modeFor("id").kind());
  }

  @Test
  public void invalidModesNameTheValueAndTheAcceptedOnes() {
    for (String bad : new String[] {"truncate(0)", "truncate(-1)", "truncate()", "some", ""}) {
      RuntimeException e = assertThrows(RuntimeException.class, () -> MetricsModes.parse(bad));
      assertTrue(e.getMessage(), e.getMessage().contains(bad) && e.getMessage().contains("truncate(N)"));
    }
  }
}
