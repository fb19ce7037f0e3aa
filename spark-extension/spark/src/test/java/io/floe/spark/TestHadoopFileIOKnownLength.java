package io.floe.spark;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import io.floe.format.io.InputFile;
import java.io.FileNotFoundException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Files opened with the length their manifest list records (Hadoop's openFile with a known length). */
public class TestHadoopFileIOKnownLength {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  @Test
  public void readsTheWholeFileAndAnswersTheKnownLength() throws Exception {
    byte[] content = new byte[70_000];
    for (int i = 0; i < content.length; i++) {
      content[i] = (byte) (i * 31);
    }
    Path file = temp.getRoot().toPath().resolve("m0.avro");
    Files.write(file, content);
    InputFile in = new HadoopFileIO(new Configuration()).newInputFile(file.toUri().toString(), content.length);
    assertEquals(content.length, in.length());
    assertArrayEquals(content, in.readAllBytes());
  }

  @Test
  public void aMissingFileIsNotFound() {
    String missing = temp.getRoot().toPath().resolve("gone.avro").toUri().toString();
    InputFile in = new HadoopFileIO(new Configuration()).newInputFile(missing, 10);
    assertThrows(FileNotFoundException.class, in::readAllBytes);
  }
}
