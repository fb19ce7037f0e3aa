package io.floe.testing;

/**
 * A crash of the writer at a named point, thrown in process (mode A of R3, docs/reliability.md).
 * An {@link Error}, so the product's {@code catch (IOException | RuntimeException)} clean-up blocks
 * do not see it; once thrown, the {@link CrashPointFileIO} refuses every further call, so finally
 * blocks cannot clean up either, as after a real process death.
 */
public final class SimulatedCrash extends Error {
  public SimulatedCrash(String message) {
    super(message, null, false, false);
  }
}
