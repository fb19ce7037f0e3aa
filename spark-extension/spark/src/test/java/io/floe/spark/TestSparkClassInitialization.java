package io.floe.spark;

import io.floe.format.TestClassInitialization;
import org.junit.Test;

/** The format layer's class-initialization check (TestClassInitialization) on the Spark layer. */
public class TestSparkClassInitialization {
  @Test
  public void classesInitializeInAnyOrderFromSeveralThreadsAtOnce() throws Exception {
    TestClassInitialization.assertNoInitializationDeadlock(FloeCatalog.class, "io.floe.spark.", 10);
  }
}
