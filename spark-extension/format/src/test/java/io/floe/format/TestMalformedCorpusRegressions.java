package io.floe.format;

import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.deletes.DeletionVector;
import io.floe.format.index.IndexListFiles;
import io.floe.format.io.FileIO;
import io.floe.format.io.LocalFileIO;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.metadata.TableMetadataParser;
import io.floe.format.puffin.BlobMetadata;
import io.floe.format.puffin.Puffin;
import io.floe.format.puffin.PuffinReader;
import java.nio.file.Path;
import java.util.Map;
import org.junit.Test;
import org.junit.function.ThrowingRunnable;

/**
 * One case per reader crash the R4 corpus found (python-tests/corpus/r4, see docs/reliability.md):
 * each file must fail with a Floe error naming it and saying what is wrong, where it used to exhaust
 * a 512 MiB heap, hang, or throw a raw exception.
 */
public class TestMalformedCorpusRegressions {
  private static final Path CORPUS = Path.of(System.getProperty("user.dir"), "..", "..", "python-tests", "corpus", "r4")
      .normalize();
  private static final FileIO IO = new LocalFileIO();

  private static String corpus(String file) {
    return CORPUS.resolve(file).toString();
  }

  private static void assertClear(String file, String fragment, ThrowingRunnable read) {
    FloeException e = assertThrows(FloeException.class, read);
    String name = Path.of(file).getFileName().toString();
    assertTrue(e.getMessage(), e.getMessage().contains(name) && e.getMessage().contains(fragment));
  }

  private static void assertManifestList(String file, String fragment) {
    String location = corpus("manifest-list/" + file);
    assertClear(location, fragment, () -> ManifestLists.read(IO.newInputFile(location)));
  }

  private static void assertMetadata(String file, String fragment) {
    String location = corpus("metadata/" + file);
    assertClear(location, fragment, () -> TableMetadataParser.read(IO, location));
  }

  @Test
  public void avroStringLengthIsCheckedAgainstTheBlockBeforeAllocating() {
    assertManifestList("manifest-list-string-length-400MiB.avro", "invalid length 419430400 of a string");
  }

  @Test
  public void snappyBlockDeclaringTwoGibibytesIsRejectedBeforeAllocating() {
    assertManifestList("manifest-list-snappy-declares-2gib.avro", "snappy block declares 2147483647 bytes");
  }

  @Test(timeout = 60_000)
  public void zstandardBombStopsAtTheFilesLimit() {
    assertManifestList("manifest-list-zstandard-bomb.avro", "zstandard block expands past 67108864 bytes");
  }

  @Test(timeout = 60_000)
  public void deflateBombStopsAtSixtyFourMebibytes() {
    assertManifestList("manifest-list-deflate-bomb.avro", "deflate block expands past 67108864 bytes");
  }

  @Test
  public void keyValueRecordsWithoutAValueFieldAreAClearError() {
    String location = corpus("data-manifest/data-manifest-kv-field-renamed.avro");
    assertClear(location, "is not an array of key/value records", () -> io.floe.format.manifest.ManifestReader.read(
        IO.newInputFile(location), ManifestLists.read(IO.newInputFile(corpus("valid/manifest-list.avro"))).get(0),
        TableMetadataParser.read(IO, corpus("valid/table.metadata.json")).specsById()));
  }

  @Test
  public void plainJsonNamedGzipIsAFileError() {
    assertMetadata("plain-json-named-gz.gz.metadata.json", "not valid gzip");
  }

  @Test(timeout = 60_000)
  public void gzipBombStopsAtTheLimit() {
    assertMetadata("gzip-bomb.metadata.json.gz", "gzip data expands past 67108864 bytes");
  }

  @Test
  public void duplicateKeysAreRejected() {
    assertMetadata("duplicate-format-version.metadata.json", "Duplicate field 'format-version'");
  }

  @Test
  public void snapshotParentCycleIsRejected() {
    assertMetadata("snapshot-parent-cycle.metadata.json", "is its own ancestor");
    assertMetadata("snapshot-parent-self.metadata.json", "is its own ancestor");
  }

  @Test
  public void fieldIdUsedTwiceIsRejectedWhenParsed() {
    assertMetadata("duplicate-field-id.metadata.json", "is used more than once");
  }

  @Test(timeout = 60_000)
  public void puffinZstdBombStopsAtTheLimit() {
    String location = corpus("puffin/puffin-zstd-bomb.puffin");
    assertClear(location, "expands past", () -> {
      PuffinReader reader = Puffin.read(IO.newInputFile(location)).build();
      for (BlobMetadata blob : reader.fileMetadata().blobs()) {
        reader.readBlob(blob);
      }
    });
  }

  @Test
  public void deletionVectorAtANegativeOffsetIsAFileError() {
    String location = corpus("deletion-vector/dv-context-offset-negative.puffin");
    assertClear(location, "found offset -1", () -> DeletionVector.read(IO.newInputFile(location), -1, 46, 3));
  }

  @Test
  public void indexWithoutATypeIsAFileErrorNotANullPointer() {
    String location = corpus("index-list/list-missing-type.json");
    assertClear(location, "missing field: type",
        () -> IndexListFiles.read(IO, "r4.t", Map.of("floe.indexes", location)));
  }

  @Test
  public void indexListThatIsNotUtf8IsRejected() {
    String location = corpus("index-list/list-invalid-utf8.json");
    assertClear(location, "not UTF-8", () -> IndexListFiles.read(IO, "r4.t", Map.of("floe.indexes", location)));
  }
}
