package io.floe.format.manifest;

import static io.floe.format.manifest.ManifestFixtures.*;
import static org.junit.Assert.assertEquals;

import io.floe.format.partition.PartitionSpec;
import java.io.File;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Writes v2 and v3 manifests and manifest lists for reading by pyiceberg (/work/plan/check_manifest.py).
 * The directory is {@code -Dfloe.test.avro-out=DIR} when set, else a temporary folder.
 */
public class TestManifestInteropFiles {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  @Test
  public void writeV2FilesForPyiceberg() throws Exception {
    writeFiles(2, "floe-m0.avro", "snap-100-1-floe.avro", null);
  }

  @Test
  public void writeV3FilesForPyiceberg() throws Exception {
    writeFiles(3, "floe-m0-v3.avro", "snap-100-1-floe-v3.avro", 1000L);
  }

  private void writeFiles(int version, String manifestName, String listName, Long firstRowId) throws Exception {
    String configured = System.getProperty("floe.test.avro-out");
    File dir = configured == null ? temp.getRoot() : new File(configured);
    Files.createDirectories(dir.toPath());
    File manifestFile = new File(dir, manifestName);
    File listFile = new File(dir, listName);
    Files.deleteIfExists(manifestFile.toPath());
    Files.deleteIfExists(listFile.toPath());

    PartitionSpec spec = identitySpec();
    ManifestWriter writer = ManifestWriter.write(version, spec, SCHEMA,
        IO.newOutputFile(manifestFile.toURI().toString()), 100L, ManifestContent.DATA);
    writer.add(dataFile(spec, "a", 10, 1, "a", 19723, new BigDecimal("12.34"), 1_704_067_200_000_000L));
    writer.add(dataFile(spec, "b", 20, 2, null, 19724, new BigDecimal("-1.00"), null));
    writer.existing(new ManifestEntry<>(ManifestEntry.Status.EXISTING, 7L, 2L, 2L,
        dataFile(spec, "c", 30, 3, "c", null, new BigDecimal("0.00"), 5L)));
    writer.delete(new ManifestEntry<>(ManifestEntry.Status.EXISTING, 7L, 1L, 1L,
        dataFile(spec, "d", 40, 4, "d", 19000, new BigDecimal("9.99"), 6L)));
    ManifestFile m = close(writer);
    ManifestLists.write(version, IO.newOutputFile(listFile.toURI().toString()), 100L, 7L, 3L, firstRowId, List.of(m));

    List<ManifestFile> listed = ManifestLists.read(IO.newInputFile(listFile.toURI().toString()));
    assertEquals(firstRowId, listed.get(0).firstRowId());
    assertEquals(4, ManifestReader.read(IO.newInputFile(listed.get(0).path()), listed.get(0), Map.of(0, spec)).size());
  }
}
