package io.floe.format.metadata;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.catalog.CatalogErrors;
import java.util.Map;
import org.junit.Test;

/** The registry of known table properties: the values each accepts, defaults and typed getters. */
public class TestTableProperties {
  private static boolean accepts(String key, String value) {
    TableProperty p = TableProperties.known(key);
    assertNotNull("known: " + key, p);
    return p.accepts(value);
  }

  @Test
  public void numbersMustParseAndBeInRange() {
    assertTrue(accepts("write.target-file-size-bytes", "1048576"));
    assertTrue(accepts("write.target-file-size-bytes", " 1048576 "));
    assertFalse(accepts("write.target-file-size-bytes", "abc"));
    assertFalse(accepts("write.target-file-size-bytes", "-5"));
    assertFalse(accepts("write.target-file-size-bytes", "0"));
    assertFalse(accepts("write.target-file-size-bytes", "1.5"));
    assertTrue(accepts("commit.retry.num-retries", "0"));
    assertFalse(accepts("commit.retry.num-retries", "-1"));
    assertFalse(accepts("commit.retry.num-retries", "3000000000")); // does not fit an int
    assertTrue(accepts("write.parquet.compression-level", "3"));
    assertFalse(accepts("write.parquet.compression-level", "23"));
    assertFalse(accepts("history.expire.min-snapshots-to-keep", "0"));
    assertTrue(accepts("history.expire.max-snapshot-age-ms", "0"));
    assertFalse(accepts("write.metadata.previous-versions-max", "0"));
    assertTrue(accepts("format-version", "3"));
    assertFalse(accepts("format-version", "1"));
  }

  @Test
  public void booleansAreTrueOrFalse() {
    assertTrue(accepts("gc.enabled", "false"));
    assertTrue(accepts("gc.enabled", "TRUE"));
    assertFalse(accepts("gc.enabled", "yes"));
    assertFalse(accepts("write.wap.enabled", "1"));
    assertTrue(accepts("commit.manifest-merge.enabled", "true"));
    assertFalse(accepts("write.metadata.delete-after-commit.enabled", ""));
  }

  @Test
  public void enumsAcceptTheirValuesCaseInsensitively() {
    assertTrue(accepts("write.parquet.compression-codec", "ZSTD"));
    assertTrue(accepts("write.parquet.compression-codec", "snappy"));
    assertFalse(accepts("write.parquet.compression-codec", "brotli"));
    assertFalse(accepts("write.parquet.compression-codec", "lzo"));
    assertTrue(accepts("write.delete.mode", "merge-on-read"));
    assertFalse(accepts("write.update.mode", "merge_on_read"));
    assertTrue(accepts("write.merge.isolation-level", "snapshot"));
    assertFalse(accepts("write.delete.isolation-level", "read-committed"));
    assertTrue(accepts("write.distribution-mode", "range"));
    assertFalse(accepts("write.distribution-mode", "sort"));
    assertFalse(accepts("write.format.default", "orc"));
    assertTrue(accepts("write.statistics.compression-codec", "lz4"));
    assertFalse(accepts("write.statistics.compression-codec", "snappy"));
  }

  @Test
  public void metricsModesAndPerColumnKeys() {
    for (String mode : new String[] {"none", "counts", "truncate(16)", "truncate(1)", "full", "Full"}) {
      assertTrue(mode, accepts("write.metadata.metrics.default", mode));
    }
    for (String mode : new String[] {"truncate(0)", "truncate", "truncate(x)", "some", "truncate(-1)"}) {
      assertFalse(mode, accepts("write.metadata.metrics.default", mode));
    }
    assertTrue(accepts("write.metadata.metrics.column.a.b", "counts"));
    assertFalse(accepts("write.metadata.metrics.column.a", "bounds"));
    assertFalse(accepts("write.parquet.bloom-filter-enabled.column.id", "maybe"));
    assertEquals("write.metadata.metrics.column.a", TableProperties.known("write.metadata.metrics.column.a").key());
    assertNull("a prefix alone is no column key", TableProperties.known("write.metadata.metrics.column."));
  }

  @Test
  public void byteSizesTakeUnits() {
    assertTrue(accepts("read.split.target-size", "134217728"));
    assertTrue(accepts("read.split.target-size", "128m"));
    assertTrue(accepts("read.split.open-file-cost", "4MB"));
    assertFalse(accepts("read.split.target-size", "0"));
    assertFalse(accepts("read.split.target-size", "big"));
    assertFalse(accepts("read.split.target-size", "1.5g"));
    assertFalse(accepts("read.split.target-size", "128 m"));
    assertTrue(accepts("read.split.target-size", "1gb"));
  }

  @Test
  public void unknownKeysAreTheUsersOwn() {
    assertNull(TableProperties.known("owner.team"));
    assertNull(TableProperties.known("write.something-new"));
    assertNull(TableProperties.firstInvalid(Map.of("owner.team", "anything", "ttl", "-5")));
  }

  @Test
  public void firstInvalidNamesTheKeyAndTheErrorSaysWhatIsAccepted() {
    Map<String, String> props = Map.of("owner.team", "x", "write.target-file-size-bytes", "abc", "gc.enabled", "true");
    TableProperty bad = TableProperties.firstInvalid(props);
    assertEquals("write.target-file-size-bytes", bad.key());
    String message = CatalogErrors.invalidTableProperty("db.t", bad, "abc").getMessage();
    assertEquals("Invalid value 'abc' for table property write.target-file-size-bytes of table db.t: expected "
        + "a whole number >= 1. Nothing was changed", message);
    String codec = CatalogErrors.invalidTableProperty("db.t",
        TableProperties.known("write.parquet.compression-codec"), "brotli").getMessage();
    assertTrue(codec, codec.contains("expected one of zstd, snappy, gzip, lz4, uncompressed, none"));
  }

  @Test
  public void everyKnownPropertyAcceptsItsOwnDefault() {
    for (TableProperty p : TableProperties.all()) {
      if (p.defaultValue() != null) {
        assertTrue(p.toString(), p.accepts(p.defaultValue()));
      }
    }
  }

  @Test
  public void typedGettersUseTheRegistryDefaults() {
    Map<String, String> none = Map.of();
    assertEquals(536_870_912L, TableProperties.longValue(none, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES));
    assertEquals(4, TableProperties.intValue(none, TableProperties.COMMIT_NUM_RETRIES));
    assertTrue(TableProperties.booleanValue(none, TableProperties.GC_ENABLED));
    assertFalse(TableProperties.booleanValue(none, TableProperties.WRITE_AUDIT_PUBLISH_ENABLED));
    assertEquals("hash", TableProperties.stringValue(none, TableProperties.WRITE_DISTRIBUTION_MODE));
    Map<String, String> set = Map.of("commit.retry.num-retries", " 7 ", "gc.enabled", "FALSE",
        "write.distribution-mode", "NONE");
    assertEquals(7, TableProperties.intValue(set, TableProperties.COMMIT_NUM_RETRIES));
    assertFalse(TableProperties.booleanValue(set, TableProperties.GC_ENABLED));
    assertEquals("none", TableProperties.stringValue(set, TableProperties.WRITE_DISTRIBUTION_MODE));
  }

  @Test
  public void typedGettersRefuseABadStoredValueByName() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TableProperties.longValue(Map.of("write.target-file-size-bytes", "abc"),
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES));
    assertTrue(e.getMessage(), e.getMessage().contains("write.target-file-size-bytes"));
    assertThrows(IllegalArgumentException.class,
        () -> TableProperties.booleanValue(Map.of("gc.enabled", "nope"), TableProperties.GC_ENABLED));
  }
}
