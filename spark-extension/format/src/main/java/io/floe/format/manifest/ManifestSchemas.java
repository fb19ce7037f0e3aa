package io.floe.format.manifest;

import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Type;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.JsonProperties;
import org.apache.avro.Schema;

/**
 * The Avro schemas of manifests ({@code manifest_entry}) and manifest lists ({@code manifest_file})
 * for format v2 and v3, annotated as the spec requires: {@code field-id} on every field,
 * {@code element-id} on lists, int-keyed maps as {@code logicalType: map} arrays of
 * {@code k<key>_v<value>} records, optional fields as {@code ["null", T]} with default null.
 */
final class ManifestSchemas {
  private ManifestSchemas() {}

  // manifest_entry
  static final int STATUS = 0;
  static final int SNAPSHOT_ID = 1;
  static final int DATA_FILE = 2;
  static final int SEQUENCE_NUMBER = 3;
  static final int FILE_SEQUENCE_NUMBER = 4;

  // data_file (r2)
  static final int FILE_PATH = 100;
  static final int FILE_FORMAT = 101;
  static final int PARTITION = 102;
  static final int RECORD_COUNT = 103;
  static final int FILE_SIZE = 104;
  static final int COLUMN_SIZES = 108;
  static final int VALUE_COUNTS = 109;
  static final int NULL_VALUE_COUNTS = 110;
  static final int LOWER_BOUNDS = 125;
  static final int UPPER_BOUNDS = 128;
  static final int KEY_METADATA = 131;
  static final int SPLIT_OFFSETS = 132;
  static final int CONTENT = 134;
  static final int EQUALITY_IDS = 135;
  static final int NAN_VALUE_COUNTS = 137;
  static final int SORT_ORDER_ID = 140;
  static final int FIRST_ROW_ID = 142;
  static final int REFERENCED_DATA_FILE = 143;
  static final int CONTENT_OFFSET = 144;
  static final int CONTENT_SIZE = 145;

  // manifest_file
  static final int MANIFEST_PATH = 500;
  static final int MANIFEST_LENGTH = 501;
  static final int SPEC_ID = 502;
  static final int ADDED_SNAPSHOT_ID = 503;
  static final int ADDED_FILES = 504;
  static final int EXISTING_FILES = 505;
  static final int DELETED_FILES = 506;
  static final int PARTITIONS = 507;
  static final int CONTAINS_NULL = 509;
  static final int LOWER_BOUND = 510;
  static final int UPPER_BOUND = 511;
  static final int ADDED_ROWS = 512;
  static final int EXISTING_ROWS = 513;
  static final int DELETED_ROWS = 514;
  static final int MANIFEST_SEQ = 515;
  static final int MIN_SEQ = 516;
  static final int MANIFEST_CONTENT = 517;
  static final int CONTAINS_NAN = 518;
  static final int MANIFEST_KEY_METADATA = 519;
  static final int MANIFEST_FIRST_ROW_ID = 520;

  private static final Map<String, Integer> ENTRY_IDS_BY_NAME = byName(
      "status", STATUS, "snapshot_id", SNAPSHOT_ID, "data_file", DATA_FILE, "sequence_number", SEQUENCE_NUMBER,
      "file_sequence_number", FILE_SEQUENCE_NUMBER, "content", CONTENT, "file_path", FILE_PATH,
      "file_format", FILE_FORMAT, "partition", PARTITION, "record_count", RECORD_COUNT,
      "file_size_in_bytes", FILE_SIZE, "column_sizes", COLUMN_SIZES, "value_counts", VALUE_COUNTS,
      "null_value_counts", NULL_VALUE_COUNTS, "nan_value_counts", NAN_VALUE_COUNTS,
      "lower_bounds", LOWER_BOUNDS, "upper_bounds", UPPER_BOUNDS, "key_metadata", KEY_METADATA,
      "split_offsets", SPLIT_OFFSETS, "equality_ids", EQUALITY_IDS, "sort_order_id", SORT_ORDER_ID,
      "first_row_id", FIRST_ROW_ID, "referenced_data_file", REFERENCED_DATA_FILE,
      "content_offset", CONTENT_OFFSET, "content_size_in_bytes", CONTENT_SIZE);

  private static final Map<String, Integer> LIST_IDS_BY_NAME = byName(
      "manifest_path", MANIFEST_PATH, "manifest_length", MANIFEST_LENGTH, "partition_spec_id", SPEC_ID,
      "content", MANIFEST_CONTENT, "sequence_number", MANIFEST_SEQ, "min_sequence_number", MIN_SEQ,
      "added_snapshot_id", ADDED_SNAPSHOT_ID, "added_files_count", ADDED_FILES,
      "existing_files_count", EXISTING_FILES, "deleted_files_count", DELETED_FILES,
      "added_data_files_count", ADDED_FILES, "existing_data_files_count", EXISTING_FILES,
      "deleted_data_files_count", DELETED_FILES, "added_rows_count", ADDED_ROWS,
      "existing_rows_count", EXISTING_ROWS, "deleted_rows_count", DELETED_ROWS, "partitions", PARTITIONS,
      "key_metadata", MANIFEST_KEY_METADATA, "first_row_id", MANIFEST_FIRST_ROW_ID,
      "contains_null", CONTAINS_NULL, "contains_nan", CONTAINS_NAN, "lower_bound", LOWER_BOUND,
      "upper_bound", UPPER_BOUND);

  private static Map<String, Integer> byName(Object... pairs) {
    Map<String, Integer> out = new HashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      out.put((String) pairs[i], (Integer) pairs[i + 1]);
    }
    return out;
  }

  /** The field id for a known field name, for files whose fields lack {@code field-id}. */
  static Integer idForName(String recordName, String fieldName) {
    if ("r102".equals(recordName)) {
      return null;
    }
    boolean list = "manifest_file".equals(recordName) || "r508".equals(recordName);
    return (list ? LIST_IDS_BY_NAME : ENTRY_IDS_BY_NAME).get(fieldName);
  }

  static Schema manifestEntry(int formatVersion, PartitionSpec spec) {
    checkVersion(formatVersion);
    return new Fields()
        .required(STATUS, "status", Schema.Type.INT)
        .optional(SNAPSHOT_ID, "snapshot_id", Schema.Type.LONG)
        .optional(SEQUENCE_NUMBER, "sequence_number", Schema.Type.LONG)
        .optional(FILE_SEQUENCE_NUMBER, "file_sequence_number", Schema.Type.LONG)
        .required(DATA_FILE, "data_file", dataFile(formatVersion, spec))
        .record("manifest_entry");
  }

  private static Schema dataFile(int formatVersion, PartitionSpec spec) {
    Fields f = new Fields()
        .required(CONTENT, "content", Schema.Type.INT)
        .required(FILE_PATH, "file_path", Schema.Type.STRING)
        .required(FILE_FORMAT, "file_format", Schema.Type.STRING)
        .required(PARTITION, "partition", partition(spec))
        .required(RECORD_COUNT, "record_count", Schema.Type.LONG)
        .required(FILE_SIZE, "file_size_in_bytes", Schema.Type.LONG)
        .optional(COLUMN_SIZES, "column_sizes", intMap(117, 118, Schema.Type.LONG))
        .optional(VALUE_COUNTS, "value_counts", intMap(119, 120, Schema.Type.LONG))
        .optional(NULL_VALUE_COUNTS, "null_value_counts", intMap(121, 122, Schema.Type.LONG))
        .optional(NAN_VALUE_COUNTS, "nan_value_counts", intMap(138, 139, Schema.Type.LONG))
        .optional(LOWER_BOUNDS, "lower_bounds", intMap(126, 127, Schema.Type.BYTES))
        .optional(UPPER_BOUNDS, "upper_bounds", intMap(129, 130, Schema.Type.BYTES))
        .optional(KEY_METADATA, "key_metadata", Schema.Type.BYTES)
        .optional(SPLIT_OFFSETS, "split_offsets", list(133, Schema.Type.LONG))
        .optional(EQUALITY_IDS, "equality_ids", list(136, Schema.Type.INT))
        .optional(SORT_ORDER_ID, "sort_order_id", Schema.Type.INT);
    if (formatVersion >= 3) {
      f.optional(FIRST_ROW_ID, "first_row_id", Schema.Type.LONG);
    }
    f.optional(REFERENCED_DATA_FILE, "referenced_data_file", Schema.Type.STRING);
    if (formatVersion >= 3) {
      f.optional(CONTENT_OFFSET, "content_offset", Schema.Type.LONG)
          .optional(CONTENT_SIZE, "content_size_in_bytes", Schema.Type.LONG);
    }
    return f.record("r2");
  }

  /** Record r102: one optional field per partition field, id = partition field id. */
  static Schema partition(PartitionSpec spec) {
    Map<String, Schema> named = new HashMap<>();
    List<Type> types = PartitionValues.types(spec);
    Fields f = new Fields();
    for (int i = 0; i < spec.fields().size(); i++) {
      PartitionField field = spec.fields().get(i);
      f.optional(field.fieldId(), PartitionValues.avroName(field.name()), PartitionValues.avroType(types.get(i), named));
    }
    return f.record("r102");
  }

  static Schema manifestFile(int formatVersion) {
    checkVersion(formatVersion);
    Schema summary = new Fields()
        .required(CONTAINS_NULL, "contains_null", Schema.Type.BOOLEAN)
        .optional(CONTAINS_NAN, "contains_nan", Schema.Type.BOOLEAN)
        .optional(LOWER_BOUND, "lower_bound", Schema.Type.BYTES)
        .optional(UPPER_BOUND, "upper_bound", Schema.Type.BYTES)
        .record("r508");
    Fields f = new Fields()
        .required(MANIFEST_PATH, "manifest_path", Schema.Type.STRING)
        .required(MANIFEST_LENGTH, "manifest_length", Schema.Type.LONG)
        .required(SPEC_ID, "partition_spec_id", Schema.Type.INT)
        .required(MANIFEST_CONTENT, "content", Schema.Type.INT)
        .required(MANIFEST_SEQ, "sequence_number", Schema.Type.LONG)
        .required(MIN_SEQ, "min_sequence_number", Schema.Type.LONG)
        .required(ADDED_SNAPSHOT_ID, "added_snapshot_id", Schema.Type.LONG)
        .required(ADDED_FILES, "added_files_count", Schema.Type.INT)
        .required(EXISTING_FILES, "existing_files_count", Schema.Type.INT)
        .required(DELETED_FILES, "deleted_files_count", Schema.Type.INT)
        .required(ADDED_ROWS, "added_rows_count", Schema.Type.LONG)
        .required(EXISTING_ROWS, "existing_rows_count", Schema.Type.LONG)
        .required(DELETED_ROWS, "deleted_rows_count", Schema.Type.LONG)
        .optional(PARTITIONS, "partitions", list(508, summary))
        .optional(MANIFEST_KEY_METADATA, "key_metadata", Schema.Type.BYTES);
    if (formatVersion >= 3) {
      f.optional(MANIFEST_FIRST_ROW_ID, "first_row_id", Schema.Type.LONG);
    }
    return f.record("manifest_file");
  }

  private static void checkVersion(int formatVersion) {
    if (formatVersion < 2 || formatVersion > 3) {
      throw new IllegalArgumentException("Unsupported format version for writing manifests: " + formatVersion
          + " (Floe writes 2 or 3)");
    }
  }

  private static Schema list(int elementId, Schema.Type element) {
    return list(elementId, Schema.create(element));
  }

  private static Schema list(int elementId, Schema element) {
    Schema array = Schema.createArray(element);
    array.addProp("element-id", elementId);
    return array;
  }

  private static Schema intMap(int keyId, int valueId, Schema.Type value) {
    Schema kv = new Fields()
        .required(keyId, "key", Schema.Type.INT)
        .required(valueId, "value", value)
        .record("k" + keyId + "_v" + valueId);
    Schema array = Schema.createArray(kv);
    array.addProp("logicalType", "map");
    return array;
  }

  /** Collects annotated fields for one record. */
  private static final class Fields {
    private final List<Schema.Field> fields = new ArrayList<>();

    Fields required(int id, String name, Schema.Type type) {
      return required(id, name, Schema.create(type));
    }

    Fields required(int id, String name, Schema type) {
      Schema.Field field = new Schema.Field(name, type);
      field.addProp(AvroRecords.FIELD_ID, id);
      fields.add(field);
      return this;
    }

    Fields optional(int id, String name, Schema.Type type) {
      return optional(id, name, Schema.create(type));
    }

    Fields optional(int id, String name, Schema type) {
      Schema union = Schema.createUnion(Schema.create(Schema.Type.NULL), type);
      Schema.Field field = new Schema.Field(name, union, null, JsonProperties.NULL_VALUE);
      field.addProp(AvroRecords.FIELD_ID, id);
      fields.add(field);
      return this;
    }

    Schema record(String name) {
      return Schema.createRecord(name, null, null, false, fields);
    }
  }
}
