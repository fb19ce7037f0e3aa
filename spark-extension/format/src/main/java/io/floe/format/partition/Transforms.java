package io.floe.format.partition;

import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Factory and parser for partition transforms. */
public final class Transforms {
  private Transforms() {}

  private static final Pattern HAS_WIDTH = Pattern.compile("(\\w+)\\[(\\d+)\\]");

  /** Parses a spec transform string; an unknown name is an error that names it. */
  public static Transform fromString(String transform) {
    String lower = transform.trim().toLowerCase(Locale.ROOT);
    Matcher m = HAS_WIDTH.matcher(lower);
    if (m.matches()) {
      int width = Integer.parseInt(m.group(2));
      switch (m.group(1)) {
        case "bucket":
          return bucket(width);
        case "truncate":
          return truncate(width);
        default:
          break;
      }
    } else {
      switch (lower) {
        case "identity":
          return identity();
        case "void":
          return alwaysNull();
        case "year":
          return TimeTransforms.year();
        case "month":
          return TimeTransforms.month();
        case "day":
          return TimeTransforms.day();
        case "hour":
          return TimeTransforms.hour();
        default:
          break;
      }
    }
    throw new IllegalArgumentException("Unsupported partition transform: " + transform);
  }

  public static Transform identity() {
    return Identity.INSTANCE;
  }

  public static Transform alwaysNull() {
    return VoidTransform.INSTANCE;
  }

  public static Transform bucket(int numBuckets) {
    return new Bucket(numBuckets);
  }

  public static Transform truncate(int width) {
    return new Truncate(width);
  }

  private static final class Identity implements Transform {
    static final Identity INSTANCE = new Identity();

    @Override
    public Object apply(Object value) {
      return value;
    }

    @Override
    public boolean canTransform(Type sourceType) {
      return sourceType.isPrimitiveType();
    }

    @Override
    public Type resultType(Type sourceType) {
      return sourceType;
    }

    @Override
    public String toHumanString(Type sourceType, Object value) {
      return HumanStrings.of(sourceType, value);
    }

    @Override
    public boolean isIdentity() {
      return true;
    }

    @Override
    public boolean preservesOrder() {
      return true;
    }

    @Override
    public String toString() {
      return "identity";
    }
  }

  private static final class VoidTransform implements Transform {
    static final VoidTransform INSTANCE = new VoidTransform();

    @Override
    public Object apply(Object value) {
      return null;
    }

    @Override
    public boolean canTransform(Type sourceType) {
      return true;
    }

    @Override
    public Type resultType(Type sourceType) {
      return sourceType;
    }

    @Override
    public boolean isVoid() {
      return true;
    }

    @Override
    public String toString() {
      return "void";
    }
  }

  static boolean isTimeType(Type t) {
    return t.typeId() == Type.TypeID.DATE || t.typeId() == Type.TypeID.TIMESTAMP;
  }

  static Type intType() {
    return Types.IntegerType.get();
  }
}
