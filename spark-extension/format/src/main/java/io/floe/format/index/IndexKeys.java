package io.floe.format.index;

import io.floe.format.expr.Comparators;
import io.floe.format.types.Conversions;
import io.floe.format.types.Type;
import java.nio.ByteBuffer;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.Set;

/**
 * Index keys: values of one column in Floe's Java value representation, stored with Iceberg's
 * single-value binary serialization ({@link Conversions}) and ordered by {@link Comparators}, the
 * order filters compare with (strings by code point, binary as unsigned bytes, decimals numerically).
 */
final class IndexKeys {
  private IndexKeys() {}

  static final Set<Type.TypeID> SUPPORTED = EnumSet.of(Type.TypeID.BOOLEAN, Type.TypeID.INTEGER, Type.TypeID.LONG,
      Type.TypeID.DATE, Type.TypeID.TIMESTAMP, Type.TypeID.STRING, Type.TypeID.DECIMAL, Type.TypeID.BINARY);

  /** The supported types as SQL names them, for error messages. */
  static final String SUPPORTED_NAMES = "int, bigint, string, date, timestamp, timestamp_ntz, decimal, binary, boolean";

  static final Comparator<Object> ORDER = Comparators::compare;

  static boolean isSupported(Type type) {
    return type.isPrimitiveType() && SUPPORTED.contains(type.typeId());
  }

  static byte[] toBytes(Type type, Object value) {
    ByteBuffer buffer = Conversions.toByteBuffer(type, value);
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return bytes;
  }

  static Object fromBytes(Type type, byte[] bytes) {
    return Conversions.fromByteBuffer(type, ByteBuffer.wrap(bytes));
  }

  /** True when {@code key}, a string, starts with {@code prefix}. */
  static boolean startsWith(Object key, Object prefix) {
    return key instanceof CharSequence && key.toString().startsWith(prefix.toString());
  }
}
