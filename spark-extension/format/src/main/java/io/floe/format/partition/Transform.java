package io.floe.format.partition;

import io.floe.format.types.Type;

/**
 * A partition transform: maps a source value (in Floe's Java value representation: Integer, Long,
 * Float, Double, Boolean, String, BigDecimal, ByteBuffer, UUID; dates as Integer days, timestamps as
 * Long micros) to a partition value.
 */
public interface Transform {

  /** The transform's name in the spec, e.g. {@code identity}, {@code bucket[16]}, {@code day}. */
  @Override
  String toString();

  /** The partition value for a source value; null stays null. */
  Object apply(Object value);

  /** Whether this transform accepts the given source type. */
  boolean canTransform(Type sourceType);

  /** The partition value's type for a source type. */
  Type resultType(Type sourceType);

  /** The human form used in partition paths, such as {@code 2024-01-01} for a day. */
  default String toHumanString(Type sourceType, Object partitionValue) {
    return partitionValue == null ? "null" : partitionValue.toString();
  }

  /** True for the identity transform. */
  default boolean isIdentity() {
    return false;
  }

  /** True for the void transform (always null). */
  default boolean isVoid() {
    return false;
  }

  /** Whether ordering of partition values follows ordering of source values (not bucket). */
  default boolean preservesOrder() {
    return false;
  }
}
