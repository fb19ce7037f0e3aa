package io.floe.format.partition;

import io.floe.format.types.Schema;
import io.floe.format.types.Type;
import io.floe.format.types.Types;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** How a table's rows map to partition tuples. Immutable; build with {@link #builderFor(Schema)}. */
public final class PartitionSpec {
  /** Partition field ids start above this value; an unpartitioned table records it as last-partition-id. */
  public static final int PARTITION_DATA_ID_START = 1000;

  private final Schema schema;
  private final int specId;
  private final List<PartitionField> fields;

  private PartitionSpec(Schema schema, int specId, List<PartitionField> fields) {
    this.schema = schema;
    this.specId = specId;
    this.fields = Collections.unmodifiableList(new ArrayList<>(fields));
  }

  public static PartitionSpec unpartitioned() {
    return new PartitionSpec(new Schema(), 0, List.of());
  }

  public static Builder builderFor(Schema schema) {
    return new Builder(schema);
  }

  public Schema schema() {
    return schema;
  }

  public int specId() {
    return specId;
  }

  public List<PartitionField> fields() {
    return fields;
  }

  public boolean isUnpartitioned() {
    return fields.stream().allMatch(f -> f.transform().isVoid());
  }

  public boolean isPartitioned() {
    return !isUnpartitioned();
  }

  public int lastAssignedFieldId() {
    return fields.stream().mapToInt(PartitionField::fieldId).max().orElse(PARTITION_DATA_ID_START - 1);
  }

  /** The partition tuple's type: one optional field per spec field, with the partition field id. */
  public Types.StructType partitionType() {
    List<Types.NestedField> out = new ArrayList<>();
    for (PartitionField f : fields) {
      Type source = schema.findType(f.sourceId());
      Type result = source == null ? Types.IntegerType.get() : f.transform().resultType(source);
      out.add(Types.NestedField.optional(f.fieldId(), f.name(), result));
    }
    return Types.StructType.of(out);
  }

  /**
   * A Hive-style path for a partition tuple, {@code a=1/b=x}, values URL-escaped. A folder name
   * longer than {@link #MAX_SEGMENT_LENGTH} characters (file systems refuse names past 255 bytes)
   * keeps its first characters and ends with {@code -} and 16 hex digits of the SHA-256 of the
   * whole name, so different values stay in different folders. Readers never parse these folders:
   * the partition tuple is in the manifests.
   */
  public String partitionToPath(Object[] partition) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < fields.size(); i++) {
      PartitionField f = fields.get(i);
      if (i > 0) {
        sb.append('/');
      }
      Type source = schema.findType(f.sourceId());
      String human = f.transform().toHumanString(source, partition[i]);
      sb.append(shortened(escape(f.name()) + "=" + escape(human)));
    }
    return sb.toString();
  }

  /** The longest partition folder name written as is: well under the usual 255-byte name limit. */
  public static final int MAX_SEGMENT_LENGTH = 128;
  private static final int HASH_HEX_DIGITS = 16;

  private static String shortened(String segment) {
    if (segment.length() <= MAX_SEGMENT_LENGTH) {
      return segment;
    }
    int keep = MAX_SEGMENT_LENGTH - HASH_HEX_DIGITS - 1;
    // never cut through a %XX escape
    int percent = segment.lastIndexOf('%', keep - 1);
    if (percent >= 0 && percent > keep - 3) {
      keep = percent;
    }
    byte[] digest;
    try {
      digest = java.security.MessageDigest.getInstance("SHA-256")
          .digest(segment.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
    return segment.substring(0, keep) + "-" + java.util.HexFormat.of().formatHex(digest, 0, HASH_HEX_DIGITS / 2);
  }

  private static String escape(String s) {
    return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8);
  }

  /** True when both specs partition the same way (same fields), whatever their ids. */
  public boolean compatibleWith(PartitionSpec other) {
    return fields.equals(other.fields);
  }

  public PartitionSpec withSchema(Schema newSchema) {
    return new PartitionSpec(newSchema, specId, fields);
  }

  public PartitionSpec withSpecId(int newSpecId) {
    return new PartitionSpec(schema, newSpecId, fields);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PartitionSpec && specId == ((PartitionSpec) o).specId
        && fields.equals(((PartitionSpec) o).fields);
  }

  @Override
  public int hashCode() {
    return fields.hashCode() * 31 + specId;
  }

  @Override
  public String toString() {
    return "[" + String.join(", ", fields.stream().map(Object::toString).toList()) + "]";
  }

  /** Builds a spec, checking source columns, transform types and unique names. */
  public static final class Builder {
    private final Schema schema;
    private final List<PartitionField> fields = new ArrayList<>();
    private final Set<String> names = new HashSet<>();
    private int specId = 0;
    private int lastAssignedFieldId = PARTITION_DATA_ID_START - 1;

    private Builder(Schema schema) {
      this.schema = schema;
    }

    public Builder withSpecId(int id) {
      this.specId = id;
      return this;
    }

    public Builder identity(String sourceName) {
      return add(sourceName, Transforms.identity(), null);
    }

    public Builder bucket(String sourceName, int numBuckets) {
      return add(sourceName, Transforms.bucket(numBuckets), null);
    }

    public Builder truncate(String sourceName, int width) {
      return add(sourceName, Transforms.truncate(width), null);
    }

    /** Adds a field by source column name; the default name follows the reference conventions. */
    public Builder add(String sourceName, Transform transform, String name) {
      Types.NestedField source = schema.findField(sourceName);
      if (source == null) {
        throw new IllegalArgumentException("Cannot find source column for partition field: " + sourceName);
      }
      String fieldName = name != null ? name : defaultName(sourceName, transform);
      return add(source.fieldId(), ++lastAssignedFieldId, fieldName, transform);
    }

    /** Adds a field with explicit ids (used when parsing metadata). */
    public Builder add(int sourceId, int fieldId, String name, Transform transform) {
      Types.NestedField source = schema.findField(sourceId);
      if (source != null && !transform.canTransform(source.type())) {
        throw new IllegalArgumentException("Invalid partition field " + name + ": transform " + transform
            + " cannot be applied to column " + schema.findColumnName(sourceId) + " of type " + source.type());
      }
      if (!names.add(name)) {
        throw new IllegalArgumentException("Invalid partition spec: duplicate partition field name: " + name);
      }
      fields.add(new PartitionField(sourceId, fieldId, name, transform));
      lastAssignedFieldId = Math.max(lastAssignedFieldId, fieldId);
      return this;
    }

    public PartitionSpec build() {
      return new PartitionSpec(schema, specId, fields);
    }

    static String defaultName(String sourceName, Transform transform) {
      String t = transform.toString();
      if (transform.isIdentity()) {
        return sourceName;
      }
      if (t.startsWith("bucket")) {
        return sourceName + "_bucket";
      }
      if (t.startsWith("truncate")) {
        return sourceName + "_trunc";
      }
      if (transform.isVoid()) {
        return sourceName + "_null";
      }
      return sourceName + "_" + t;
    }
  }
}
