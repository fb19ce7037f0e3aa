package io.floe.format.stats;

import io.floe.format.types.Conversions;
import io.floe.format.types.Type;
import java.nio.ByteBuffer;
import org.apache.datasketches.common.Family;
import org.apache.datasketches.memory.Memory;
import org.apache.datasketches.theta.CompactSketch;
import org.apache.datasketches.theta.SetOperation;
import org.apache.datasketches.theta.Sketch;
import org.apache.datasketches.theta.Union;
import org.apache.datasketches.theta.UpdateSketch;

/**
 * The theta sketches of {@code apache-datasketches-theta-v1} blobs, as Iceberg builds them: an
 * Alpha-family update sketch with the default seed (9001) and nominal entries (4096, lgK 12), fed
 * with the single-value serialization of each non-null value ({@link Conversions}); empty values
 * (an empty string or binary) are ignored by the sketch, as in Iceberg. Per-task sketches are
 * merged with a {@link Union}; a blob holds {@code sketch.compact().toByteArray()} and the
 * {@code ndv} property is the estimate truncated to a long.
 *
 * <p>Fast paths with the same hashes as the serialized bytes (MurmurHash3 reads arrays
 * little-endian): {@code update(long)} for 8-byte values, {@code update(int[]{v})} for 4-byte ones.
 */
public final class ThetaSketches {
  private ThetaSketches() {}

  /** An empty update sketch with Iceberg's settings. */
  public static UpdateSketch newSketch() {
    return UpdateSketch.builder().setFamily(Family.ALPHA).build();
  }

  /** An empty union with the default settings. */
  public static Union newUnion() {
    return SetOperation.builder().buildUnion();
  }

  /** Adds one value of {@code type} (null is skipped) through its single-value serialization. */
  public static void update(UpdateSketch sketch, Type type, Object value) {
    ByteBuffer bytes = Conversions.toByteBuffer(type, value);
    if (bytes != null) {
      sketch.update(bytes);
    }
  }

  /** The compact (ordered) form of {@code sketch}, as blobs store it. */
  public static CompactSketch compact(Sketch sketch) {
    return sketch instanceof CompactSketch && sketch.isOrdered() ? (CompactSketch) sketch : sketch.compact();
  }

  /**
   * The {@code ndv} property of a sketch: the estimate of its compact form truncated to a long (an
   * Alpha update sketch estimates slightly differently from its compact form; blobs hold the latter).
   */
  public static long ndv(Sketch sketch) {
    return (long) compact(sketch).getEstimate();
  }

  /** The bytes of a blob: the compact (ordered) form of {@code sketch}. */
  public static byte[] toBlob(Sketch sketch) {
    return compact(sketch).toByteArray();
  }

  /** A sketch read back from blob bytes (a copy on the heap); corrupt bytes throw with the reason. */
  public static Sketch fromBlob(byte[] bytes) {
    return Sketch.heapify(Memory.wrap(bytes));
  }
}
