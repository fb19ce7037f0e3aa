package io.floe.format.manifest;

import static io.floe.format.manifest.ManifestFixtures.*;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.floe.format.FloeFormatException;
import io.floe.format.io.InputFile;
import io.floe.format.partition.PartitionSpec;
import java.io.File;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class TestManifestErrors {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private final ManifestFile someManifest = ManifestFile.builder("file:/x.avro").withSequenceNumber(1)
      .withMinSequenceNumber(1).withSnapshotId(1L).build();

  @Test
  public void garbageIsRejectedNamingTheFile() throws Exception {
    File file = temp.newFile("garbage.avro");
    Files.write(file.toPath(), "this is not avro at all".getBytes());
    expectError(file, () -> ManifestReader.read(in(file), someManifest, Map.of()), "not a valid Avro file");
    expectError(file, () -> ManifestLists.read(in(file)), "manifest list");
  }

  @Test
  public void emptyAndTruncatedFilesAreRejected() throws Exception {
    File empty = temp.newFile("empty.avro");
    expectError(empty, () -> ManifestLists.read(in(empty)), "Cannot read");

    PartitionSpec spec = PartitionSpec.unpartitioned();
    ManifestWriter writer = ManifestWriter.write(2, spec, SCHEMA, newFile(temp.getRoot(), "whole.avro"), 1L,
        ManifestContent.DATA);
    for (int i = 0; i < 20; i++) {
      writer.add(dataFile(spec, "f" + i, i + 1));
    }
    close(writer);
    byte[] whole = Files.readAllBytes(new File(temp.getRoot(), "whole.avro").toPath());
    File cut = new File(temp.getRoot(), "cut.avro");
    Files.write(cut.toPath(), Arrays.copyOf(whole, whole.length - 40));
    expectError(cut, () -> ManifestReader.read(in(cut), someManifest, Map.of(0, spec)), "Cannot read manifest");
  }

  @Test
  public void aManifestListIsNotAManifest() {
    File list = new File(temp.getRoot(), "list.avro");
    ManifestLists.write(2, IO.newOutputFile(list.toURI().toString()), 1L, null, 1L, null, List.of(someManifest));
    expectError(list, () -> ManifestReader.read(in(list), someManifest, Map.of()), "not a manifest");
  }

  @Test
  public void missingFileIsNamed() {
    File missing = new File(temp.getRoot(), "missing.avro");
    expectError(missing, () -> ManifestLists.read(in(missing)), "not found");
  }

  private static InputFile in(File f) {
    return IO.newInputFile(f.toURI().toString());
  }

  private static void expectError(File file, Runnable action, String expected) {
    try {
      action.run();
      fail("expected FloeFormatException for " + file);
    } catch (FloeFormatException e) {
      assertTrue(e.getMessage(), e.getMessage().contains(file.toURI().toString()));
      assertTrue(e.getMessage(), e.getMessage().contains(expected));
    }
  }
}
