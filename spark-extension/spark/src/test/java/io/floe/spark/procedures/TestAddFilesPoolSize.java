package io.floe.spark.procedures;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

/** add_files' footer threads: as many as asked, but never more than the files or 64. */
public class TestAddFilesPoolSize {
  @Test
  public void aHugeParallelismIsCappedAndNeverExceedsTheFiles() {
    assertEquals(8, AddFilesProcedure.poolSize(AddFilesProcedure.DEFAULT_PARALLELISM, 1000));
    assertEquals(64, AddFilesProcedure.poolSize(2_000_000_000, 100_000));
    assertEquals(3, AddFilesProcedure.poolSize(2_000_000_000, 3));
    assertEquals(2, AddFilesProcedure.poolSize(2, 100));
  }
}
