package io.floe.format.manifest;

import io.floe.format.FloeFormatException;
import io.floe.format.io.InputFile;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;

/**
 * Reads the records of one Avro metadata file (manifest or manifest list) and looks their fields up
 * by field id, so files from any writer (fields in any order, optional fields missing) read the
 * same. Every failure names the file.
 */
final class AvroRecords {
  static final String FIELD_ID = "field-id";

  private final String location;
  private final String what;
  private final Schema schema;
  private final Map<String, String> metadata;
  private final AvroContainer container;
  private List<GenericRecord> records;
  private final Map<Schema, Map<Integer, Integer>> positions = new IdentityHashMap<>();

  private AvroRecords(String location, String what, AvroContainer container) {
    this.location = location;
    this.what = what;
    this.schema = container.schema;
    this.metadata = container.metadata;
    this.container = container;
  }

  /** Reads every record of {@code in}; {@code what} ("manifest", "manifest list") goes into error messages. */
  static AvroRecords read(InputFile in, String what) {
    AvroRecords avro = readBlocks(in, what);
    avro.records();
    return avro;
  }

  /**
   * Reads the blocks of {@code in} and decodes no record yet: {@link #directEntries()} or
   * {@link #records()} decode them (and report a corrupt block).
   */
  static AvroRecords readBlocks(InputFile in, String what) {
    String location = in.location();
    byte[] bytes;
    try {
      bytes = in.readAllBytes();
    } catch (NoSuchFileException | FileNotFoundException e) {
      throw new FloeFormatException("Cannot read " + what + " " + location + ": file not found", e);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + what + " " + location, e);
    }
    try {
      AvroContainer container = AvroContainer.decode(bytes);
      checkComplete(location, what, container.lastSync, bytes.length);
      return new AvroRecords(location, what, container);
    } catch (IOException | RuntimeException e) {
      throw invalid(location, what, e);
    }
  }

  /**
   * The entries of this manifest decoded straight from its blocks (see {@link DirectEntryReader}), or
   * null when its schema needs the generic {@link #records()}.
   */
  List<RawEntry> directEntries() {
    DirectEntryReader direct = container.direct();
    if (direct == null) {
      return null;
    }
    try {
      List<RawEntry> entries = new ArrayList<>();
      container.forEachBlock((count, decoder) -> {
        for (long i = 0; i < count; i++) {
          entries.add(direct.read(decoder));
        }
      });
      return entries;
    } catch (DirectEntryReader.InvalidValue e) {
      throw error(e.getMessage());
    } catch (IOException | RuntimeException e) {
      throw invalid(location, what, e);
    }
  }

  /** Decoding stops quietly at a truncated block; a complete file ends right after a sync marker. */
  private static void checkComplete(String location, String what, long lastSync, int length) {
    if (lastSync != length) {
      throw new FloeFormatException("Cannot read " + what + " " + location + ": truncated or corrupt, the last "
          + "complete block ends at byte " + lastSync + " of " + length);
    }
  }

  private static FloeFormatException invalid(String location, String what, Exception e) {
    if (e instanceof FloeFormatException) {
      return (FloeFormatException) e;
    }
    return new FloeFormatException("Cannot read " + what + " " + location + ": not a valid Avro file ("
        + e.getClass().getSimpleName() + ": " + e.getMessage() + ")", e);
  }

  String location() {
    return location;
  }

  Schema schema() {
    return schema;
  }

  String metadata(String key) {
    return metadata.get(key);
  }

  /** The file's records, decoded on first use. */
  List<GenericRecord> records() {
    if (records == null) {
      try {
        records = container.records();
      } catch (IOException | RuntimeException e) {
        throw invalid(location, what, e);
      }
    }
    return records;
  }

  FloeFormatException error(String problem) {
    return new FloeFormatException("Invalid " + what + " " + location + ": " + problem);
  }

  /** Whether the record schema has a field with this id. */
  boolean has(Schema recordSchema, int fieldId) {
    return positionsOf(recordSchema).containsKey(fieldId);
  }

  /** The field's value, or null when the field is absent from the file or null. */
  Object get(GenericRecord record, int fieldId) {
    Integer pos = positionsOf(record.getSchema()).get(fieldId);
    return pos == null ? null : record.get(pos);
  }

  Object getRequired(GenericRecord record, int fieldId, String name) {
    Object value = get(record, fieldId);
    if (value == null) {
      throw error("missing required field " + name + " (id " + fieldId + ")");
    }
    return value;
  }

  /** Field id to position; fields without a field-id property are matched by their spec name. */
  private Map<Integer, Integer> positionsOf(Schema recordSchema) {
    return positions.computeIfAbsent(recordSchema, s -> {
      Map<Integer, Integer> byId = new HashMap<>();
      for (Schema.Field f : s.getFields()) {
        Integer id = fieldId(f);
        if (id == null) {
          id = ManifestSchemas.idForName(s.getName(), f.name());
        }
        if (id != null) {
          byId.putIfAbsent(id, f.pos());
        }
      }
      return byId;
    });
  }

  static Integer fieldId(Schema.Field field) {
    Object id = field.getObjectProp(FIELD_ID);
    if (id instanceof Number) {
      return ((Number) id).intValue();
    }
    if (id instanceof String) {
      try {
        return Integer.parseInt((String) id);
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }

  static Schema nonNull(Schema s) {
    if (s.getType() != Schema.Type.UNION) {
      return s;
    }
    for (Schema branch : s.getTypes()) {
      if (branch.getType() != Schema.Type.NULL) {
        return branch;
      }
    }
    return s;
  }

  static byte[] bytes(ByteBuffer buffer) {
    ByteBuffer dup = buffer.duplicate();
    byte[] out = new byte[dup.remaining()];
    dup.get(out);
    return out;
  }

  Integer toInt(Object value, String name) {
    if (value == null) {
      return null;
    }
    if (!(value instanceof Number)) {
      throw error("field " + name + " is not a number: " + value);
    }
    long v = ((Number) value).longValue();
    if (v != (int) v) {
      throw error("field " + name + " is out of int range: " + v);
    }
    return (int) v;
  }

  Long toLong(Object value, String name) {
    if (value == null) {
      return null;
    }
    if (!(value instanceof Number)) {
      throw error("field " + name + " is not a number: " + value);
    }
    return ((Number) value).longValue();
  }

  static String toStr(Object value) {
    return value == null ? null : value.toString();
  }

  ByteBuffer toBytes(Object value, String name) {
    if (value == null) {
      return null;
    }
    if (value instanceof ByteBuffer) {
      return ByteBuffer.wrap(bytes((ByteBuffer) value));
    }
    if (value instanceof GenericFixed) {
      return ByteBuffer.wrap(((GenericFixed) value).bytes().clone());
    }
    throw error("field " + name + " is not bytes: " + value.getClass().getSimpleName());
  }

  <T> List<T> toList(Object value, String name, java.util.function.BiFunction<Object, String, T> element) {
    if (value == null) {
      return null;
    }
    if (!(value instanceof Collection)) {
      throw error("field " + name + " is not a list");
    }
    List<T> out = new ArrayList<>();
    for (Object e : (Collection<?>) value) {
      out.add(element.apply(e, name));
    }
    return out;
  }

  /** An int-keyed map: an array of key/value records, or (tolerated) an Avro map with numeric string keys. */
  <V> Map<Integer, V> toIntMap(Object value, String name, java.util.function.BiFunction<Object, String, V> conv) {
    Map<Integer, V> out = new LinkedHashMap<>();
    if (value == null) {
      return out;
    }
    if (value instanceof Map) {
      for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
        try {
          out.put(Integer.parseInt(e.getKey().toString()), conv.apply(e.getValue(), name));
        } catch (NumberFormatException ex) {
          throw error("field " + name + " has a non-integer key: " + e.getKey());
        }
      }
      return out;
    }
    if (!(value instanceof Collection)) {
      throw error("field " + name + " is not a map");
    }
    for (Object item : (Collection<?>) value) {
      if (!(item instanceof GenericRecord)) {
        throw error("field " + name + " is not an array of key/value records");
      }
      GenericRecord kv = (GenericRecord) item;
      if (kv.getSchema().getField("key") == null || kv.getSchema().getField("value") == null) {
        throw error("field " + name + " is not an array of key/value records (its records have fields "
            + kv.getSchema().getFields().stream().map(f -> f.name()).toList() + ")");
      }
      Object key = kv.get("key");
      if (key == null) {
        throw error("field " + name + " has a null key");
      }
      out.put(toInt(key, name), conv.apply(kv.get("value"), name));
    }
    return out;
  }
}
