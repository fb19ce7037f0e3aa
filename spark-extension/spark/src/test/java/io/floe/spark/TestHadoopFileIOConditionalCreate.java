package io.floe.spark;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.catalog.CatalogException;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import org.junit.Test;

/**
 * How the answers of an object store to a conditional create become Floe's outcomes. The store's
 * exceptions are modelled by one carrying {@code statusCode()}, as S3A's AWSServiceIOException and the
 * AWS SDK's S3Exception do (their classes are the user's jars, read reflectively).
 */
public class TestHadoopFileIOConditionalCreate {
  private static final String V2 = "s3a://bucket/wh/db/t/metadata/v2.metadata.json";

  /** Stands for the AWS SDK's S3Exception, the cause S3A wraps. */
  public static final class StatusException extends RuntimeException {
    private final int status;

    public StatusException(int status) {
      super("status " + status);
      this.status = status;
    }

    public int statusCode() {
      return status;
    }
  }

  private static IOException storeAnswered(int status) {
    return new IOException("Writing Object on " + V2, new StatusException(status));
  }

  @Test
  public void preconditionFailedIsAlreadyExists() {
    IOException e = HadoopFileIO.conditionalCreateFailure(V2, storeAnswered(412));
    assertTrue(e.toString(), e instanceof FileAlreadyExistsException);
    assertEquals(V2, ((FileAlreadyExistsException) e).getFile());
  }

  @Test
  public void hadoopsFileExistsIsAlreadyExists() {
    IOException e = HadoopFileIO.conditionalCreateFailure(V2,
        new org.apache.hadoop.fs.FileAlreadyExistsException(V2));
    assertTrue(e.toString(), e instanceof FileAlreadyExistsException);
  }

  @Test
  public void notImplementedNamesTheStoreAndTheSetting() {
    CatalogException e = assertThrows(CatalogException.class,
        () -> HadoopFileIO.conditionalCreateFailure(V2, storeAnswered(501)));
    assertTrue(e.getMessage(), e.getMessage().contains("s3a://bucket"));
    assertTrue(e.getMessage(), e.getMessage().contains("object-store-commits=unsafe-rename"));
    assertTrue(e.getMessage(), e.getMessage().contains("Nothing was committed"));
  }

  @Test
  public void otherFailuresAreReturnedAsTheyAre() {
    IOException reset = storeAnswered(500);
    assertSame(reset, HadoopFileIO.conditionalCreateFailure(V2, reset));
    IOException noStatus = new IOException("connection reset");
    assertSame(noStatus, HadoopFileIO.conditionalCreateFailure(V2, noStatus));
  }

  @Test
  public void onlyObjectStoresNeedConditionalCreates() {
    assertTrue(HadoopFileIO.isObjectStore("s3a://bucket/wh"));
    assertFalse(HadoopFileIO.isObjectStore("hdfs://nn/wh"));
    assertFalse(HadoopFileIO.isObjectStore("file:///tmp/wh"));
  }
}
