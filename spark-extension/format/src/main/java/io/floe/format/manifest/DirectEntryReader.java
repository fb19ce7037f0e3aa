package io.floe.format.manifest;

import static io.floe.format.manifest.ManifestSchemas.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.FastReaderBuilder;

/**
 * Decodes manifest entries straight from a block's bytes into a {@link RawEntry}, with a plan of
 * field readers compiled once per writer schema: no generic record per entry, none per key/value
 * pair of the six metric maps, no boxing through Avro's datum readers and no second copy of every
 * bound. Planning a table of 100K entries decodes 100K entries in a JVM that has not compiled this
 * code yet, so the path is also kept short (cold planning time, docs/benchmarks.md, W3).
 *
 * <p>Fields are matched by field id, as {@link AvroRecords} does (the first field with an id wins;
 * fields without one by their spec name). Only the shapes the spec writes are compiled: each known
 * field with its spec type, optional as a union with null; maps as arrays of key/value records
 * with int keys. {@link #compile} returns null for any other shape, and the reader then takes the
 * generic path, which accepts more (Avro maps with string keys, longs for ints) and reports the
 * errors. The partition tuple is decoded by Avro's reader for its record schema. Unknown fields are
 * skipped by their schema. Stateless: shared by threads.
 */
final class DirectEntryReader {
  /** Reads one writer field into the entry. */
  private interface FieldReader {
    void read(BlockDecoder in, RawEntry e) throws IOException;
  }

  /** Reads one value, null for the null branch of an optional field. */
  private interface ValueReader {
    Object read(BlockDecoder in) throws IOException;
  }

  /** Compiles the reader of a field with a known id (a skipper for an id it does not read). */
  private interface FieldCompiler {
    FieldReader compile(int id, Schema s) throws Unsupported;
  }

  private final FieldReader[] entryFields;

  private DirectEntryReader(FieldReader[] entryFields) {
    this.entryFields = entryFields;
  }

  /** The reader for manifest entries written with {@code entrySchema}, or null when it has another shape. */
  static DirectEntryReader compile(Schema entrySchema) {
    try {
      return entrySchema.getType() == Schema.Type.RECORD
          ? new DirectEntryReader(plan(entrySchema, DirectEntryReader::entryField)) : null;
    } catch (Unsupported e) {
      return null;
    }
  }

  /** Decodes the next entry of the block. */
  RawEntry read(BlockDecoder in) throws IOException {
    RawEntry e = new RawEntry();
    for (FieldReader f : entryFields) {
      f.read(in, e);
    }
    return e;
  }

  /** A value the spec does not allow, reported as the generic path reports it ({@link AvroRecords#error}). */
  static final class InvalidValue extends RuntimeException {
    InvalidValue(String problem) {
      super(problem, null, false, false);
    }
  }

  /** A shape this reader does not compile (the generic path reads it). */
  private static final class Unsupported extends Exception {
    Unsupported() {
      super(null, null, false, false);
    }
  }

  /**
   * The readers of a record's fields in writer order: {@code known} compiles the first field with
   * each id; fields without an id, and later ones with a repeated id, are skipped.
   */
  private static FieldReader[] plan(Schema record, FieldCompiler known) throws Unsupported {
    List<FieldReader> plan = new ArrayList<>();
    Set<Integer> seen = new HashSet<>();
    for (Schema.Field f : record.getFields()) {
      Integer id = id(record, f);
      Schema s = f.schema();
      plan.add(id == null || !seen.add(id) ? skipper(s) : known.compile(id, s));
    }
    return plan.toArray(new FieldReader[0]);
  }

  private static FieldReader entryField(int id, Schema s) throws Unsupported {
    return switch (id) {
      case STATUS -> {
        ValueReader v = value(s, Schema.Type.INT);
        yield (in, e) -> e.status = (Integer) v.read(in);
      }
      case SNAPSHOT_ID -> {
        ValueReader v = value(s, Schema.Type.LONG);
        yield (in, e) -> e.snapshotId = (Long) v.read(in);
      }
      case SEQUENCE_NUMBER -> {
        ValueReader v = value(s, Schema.Type.LONG);
        yield (in, e) -> e.sequenceNumber = (Long) v.read(in);
      }
      case FILE_SEQUENCE_NUMBER -> {
        ValueReader v = value(s, Schema.Type.LONG);
        yield (in, e) -> e.fileSequenceNumber = (Long) v.read(in);
      }
      case DATA_FILE -> {
        if (s.getType() != Schema.Type.RECORD) {
          throw new Unsupported();
        }
        FieldReader[] file = plan(s, DirectEntryReader::fileField);
        yield (in, e) -> {
          e.hasFile = true;
          for (FieldReader r : file) {
            r.read(in, e);
          }
        };
      }
      default -> skipper(s);
    };
  }

  private static FieldReader fileField(int id, Schema s) throws Unsupported {
    switch (id) {
      case FILE_PATH: {
        ValueReader v = value(s, Schema.Type.STRING);
        return (in, e) -> e.path = (String) v.read(in);
      }
      case FILE_FORMAT: {
        ValueReader v = value(s, Schema.Type.STRING);
        return (in, e) -> e.format = (String) v.read(in);
      }
      case PARTITION: {
        ValueReader v = partition(s);
        return (in, e) -> e.partition = (GenericRecord) v.read(in);
      }
      case RECORD_COUNT: {
        ValueReader v = value(s, Schema.Type.LONG);
        return (in, e) -> e.recordCount = (Long) v.read(in);
      }
      case FILE_SIZE: {
        ValueReader v = value(s, Schema.Type.LONG);
        return (in, e) -> e.fileSizeInBytes = (Long) v.read(in);
      }
      case CONTENT: {
        ValueReader v = value(s, Schema.Type.INT);
        return (in, e) -> e.content = (Integer) v.read(in);
      }
      case COLUMN_SIZES: {
        ValueReader v = intMap(s, Schema.Type.LONG);
        return (in, e) -> e.columnSizes = cast(v.read(in));
      }
      case VALUE_COUNTS: {
        ValueReader v = intMap(s, Schema.Type.LONG);
        return (in, e) -> e.valueCounts = cast(v.read(in));
      }
      case NULL_VALUE_COUNTS: {
        ValueReader v = intMap(s, Schema.Type.LONG);
        return (in, e) -> e.nullValueCounts = cast(v.read(in));
      }
      case NAN_VALUE_COUNTS: {
        ValueReader v = intMap(s, Schema.Type.LONG);
        return (in, e) -> e.nanValueCounts = cast(v.read(in));
      }
      case LOWER_BOUNDS: {
        ValueReader v = intMap(s, Schema.Type.BYTES);
        return (in, e) -> e.lowerBounds = cast(v.read(in));
      }
      case UPPER_BOUNDS: {
        ValueReader v = intMap(s, Schema.Type.BYTES);
        return (in, e) -> e.upperBounds = cast(v.read(in));
      }
      case KEY_METADATA: {
        ValueReader v = value(s, Schema.Type.BYTES);
        return (in, e) -> e.keyMetadata = (ByteBuffer) v.read(in);
      }
      case SPLIT_OFFSETS: {
        ValueReader v = list(s, Schema.Type.LONG, "split_offsets");
        return (in, e) -> e.splitOffsets = cast(v.read(in));
      }
      case EQUALITY_IDS: {
        ValueReader v = list(s, Schema.Type.INT, "equality_ids");
        return (in, e) -> e.equalityIds = cast(v.read(in));
      }
      case SORT_ORDER_ID: {
        ValueReader v = value(s, Schema.Type.INT);
        return (in, e) -> e.sortOrderId = (Integer) v.read(in);
      }
      case FIRST_ROW_ID: {
        ValueReader v = value(s, Schema.Type.LONG);
        return (in, e) -> e.firstRowId = (Long) v.read(in);
      }
      case REFERENCED_DATA_FILE: {
        ValueReader v = value(s, Schema.Type.STRING);
        return (in, e) -> e.referencedDataFile = (String) v.read(in);
      }
      case CONTENT_OFFSET: {
        ValueReader v = value(s, Schema.Type.LONG);
        return (in, e) -> e.contentOffset = (Long) v.read(in);
      }
      case CONTENT_SIZE: {
        ValueReader v = value(s, Schema.Type.LONG);
        return (in, e) -> e.contentSizeInBytes = (Long) v.read(in);
      }
      default:
        return skipper(s);
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> T cast(Object value) {
    return (T) value;
  }

  private static Integer id(Schema record, Schema.Field f) {
    Integer id = AvroRecords.fieldId(f);
    return id != null ? id : ManifestSchemas.idForName(record.getName(), f.name());
  }

  /** A value of {@code type}, or an optional one: a union of null and {@code type}. */
  private static ValueReader value(Schema s, Schema.Type type) throws Unsupported {
    return optional(s, type, primitive(type));
  }

  private static ValueReader primitive(Schema.Type type) throws Unsupported {
    return switch (type) {
      case INT -> BlockDecoder::readInt;
      case LONG -> BlockDecoder::readLong;
      case STRING -> BlockDecoder::readString;
      case BYTES -> in -> in.readBytes(null);
      default -> throw new Unsupported();
    };
  }

  /** {@code base} for a schema of {@code type}, or for a union of null and a schema of {@code type}. */
  private static ValueReader optional(Schema s, Schema.Type type, ValueReader base) throws Unsupported {
    if (s.getType() == type) {
      return base;
    }
    if (s.getType() != Schema.Type.UNION || s.getTypes().size() != 2) {
      throw new Unsupported();
    }
    int nullIndex = s.getTypes().get(0).getType() == Schema.Type.NULL ? 0 : 1;
    if (s.getTypes().get(nullIndex).getType() != Schema.Type.NULL
        || s.getTypes().get(1 - nullIndex).getType() != type) {
      throw new Unsupported();
    }
    return in -> {
      int index = in.readIndex();
      if (index == nullIndex) {
        return null;
      }
      if (index != 1 - nullIndex) {
        throw new IOException("invalid union index " + index);
      }
      return base.read(in);
    };
  }

  /** An int-keyed map written as the spec says: an array of key/value records; values of {@code valueType}. */
  private static ValueReader intMap(Schema s, Schema.Type valueType) throws Unsupported {
    Schema array = s.getType() == Schema.Type.UNION ? AvroRecords.nonNull(s) : s;
    if (array.getType() != Schema.Type.ARRAY || array.getElementType().getType() != Schema.Type.RECORD) {
      throw new Unsupported();
    }
    Schema kv = array.getElementType();
    Schema.Field key = kv.getField("key");
    Schema.Field value = kv.getField("value");
    if (kv.getFields().size() != 2 || key == null || value == null || key.pos() != 0
        || key.schema().getType() != Schema.Type.INT) {
      throw new Unsupported();
    }
    ValueReader unboxed = switch (valueType) {
      case LONG -> DirectEntryReader::longs;
      case BYTES -> DirectEntryReader::bounds;
      default -> null;
    };
    if (unboxed != null && value.schema().getType() == valueType) { // required values, as the spec writes them
      return optional(s, Schema.Type.ARRAY, unboxed);
    }
    ValueReader values = value(value.schema(), valueType);
    ValueReader map = in -> {
      Map<Integer, Object> out = new LinkedHashMap<>();
      for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
        for (long i = 0; i < n; i++) {
          int k = in.readInt();
          out.put(k, values.read(in));
        }
      }
      return out;
    };
    return optional(s, Schema.Type.ARRAY, map);
  }

  /** An array of key/value records of an int and a long, as a {@link ColumnMap}. */
  private static Map<Integer, Long> longs(BlockDecoder in) throws IOException {
    int[] ids = new int[0];
    long[] values = new long[0];
    int size = 0;
    for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
      ids = Arrays.copyOf(ids, size + (int) n); // n is at most the bytes left in the block
      values = Arrays.copyOf(values, ids.length);
      for (long i = 0; i < n; i++) {
        ids[size] = in.readInt();
        values[size] = in.readLong();
        size++;
      }
    }
    return ColumnMap.longs(ids, values, size);
  }

  /** An array of key/value records of an int and bytes, as a {@link ColumnMap}. */
  private static Map<Integer, ByteBuffer> bounds(BlockDecoder in) throws IOException {
    int[] ids = new int[0];
    byte[][] values = new byte[0][];
    int size = 0;
    for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
      ids = Arrays.copyOf(ids, size + (int) n);
      values = Arrays.copyOf(values, ids.length);
      for (long i = 0; i < n; i++) {
        ids[size] = in.readInt();
        values[size] = in.readByteArray();
        size++;
      }
    }
    return ColumnMap.bytes(ids, values, size);
  }

  /**
   * A list written as an Avro array of {@code elementType}; an int list also as an array of longs
   * (pyiceberg writes equality_ids so), each checked to fit an int as the generic path does.
   */
  private static ValueReader list(Schema s, Schema.Type elementType, String name) throws Unsupported {
    Schema array = s.getType() == Schema.Type.UNION ? AvroRecords.nonNull(s) : s;
    if (array.getType() != Schema.Type.ARRAY) {
      throw new Unsupported();
    }
    Schema.Type written = array.getElementType().getType();
    ValueReader element;
    if (written == elementType) {
      element = primitive(elementType);
    } else if (elementType == Schema.Type.INT && written == Schema.Type.LONG) {
      element = in -> {
        long v = in.readLong();
        if (v != (int) v) {
          throw new InvalidValue("field " + name + " is out of int range: " + v);
        }
        return (int) v;
      };
    } else {
      throw new Unsupported();
    }
    ValueReader items = in -> {
      List<Object> out = new ArrayList<>();
      for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
        for (long i = 0; i < n; i++) {
          out.add(element.read(in));
        }
      }
      return out;
    };
    return optional(s, Schema.Type.ARRAY, items);
  }

  /** The partition tuple, decoded by Avro's reader for its record schema (values vary by spec). */
  private static ValueReader partition(Schema s) throws Unsupported {
    Schema record = s.getType() == Schema.Type.UNION ? AvroRecords.nonNull(s) : s;
    if (record.getType() != Schema.Type.RECORD) {
      throw new Unsupported();
    }
    DatumReader<GenericRecord> reader;
    try {
      reader = new FastReaderBuilder(GenericData.get()).createDatumReader(record);
    } catch (IOException | RuntimeException e) {
      throw new Unsupported();
    }
    if (record.getFields().isEmpty()) {
      GenericRecord empty = new GenericData.Record(record);
      return optional(s, Schema.Type.RECORD, in -> empty);
    }
    return optional(s, Schema.Type.RECORD, in -> reader.read(null, in));
  }

  /** Skips a value of any schema. */
  private static FieldReader skipper(Schema s) {
    return (in, e) -> skip(s, in);
  }

  private static void skip(Schema s, BlockDecoder in) throws IOException {
    switch (s.getType()) {
      case NULL -> { }
      case BOOLEAN -> in.readBoolean();
      case INT, LONG, ENUM -> in.readLong();
      case FLOAT -> in.readFloat();
      case DOUBLE -> in.readDouble();
      case STRING -> in.skipString();
      case BYTES -> in.skipBytes();
      case FIXED -> in.skipFixed(s.getFixedSize());
      case RECORD -> {
        for (Schema.Field f : s.getFields()) {
          skip(f.schema(), in);
        }
      }
      case ARRAY -> {
        for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
          for (long i = 0; i < n; i++) {
            skip(s.getElementType(), in);
          }
        }
      }
      case MAP -> {
        for (long n = in.readMapStart(); n != 0; n = in.mapNext()) {
          for (long i = 0; i < n; i++) {
            in.skipString();
            skip(s.getValueType(), in);
          }
        }
      }
      case UNION -> {
        int index = in.readIndex();
        if (index < 0 || index >= s.getTypes().size()) {
          throw new IOException("invalid union index " + index);
        }
        skip(s.getTypes().get(index), in);
      }
      default -> throw new IOException("cannot skip a value of type " + s.getType());
    }
  }
}
