package io.floe.format.manifest;

import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.NameValidator;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.FastReaderBuilder;

/**
 * Decodes an Avro object container file held in memory, as Avro's {@code DataFileReader} does, but
 * parses each distinct writer schema once: metadata files of one table carry a handful of schema
 * texts, and parsing the schema of every manifest read was most of a commit's CPU. Every length it
 * reads is checked against the bytes there before anything is allocated: block sizes against the
 * file, decompressed sizes against a budget per file, and values through {@link BlockDecoder}.
 *
 * <pre>
 * "Obj" 0x01 | metadata: map&lt;bytes&gt; (avro.schema, avro.codec, ...) | sync (16 bytes)
 * block*: record count (long) | byte size (long) | records (compressed) | sync (16 bytes)
 * </pre>
 * Longs are zig-zag varints; a map is blocks of (count, entries), a negative count followed by the
 * block's byte size, ending with count 0.
 */
final class AvroContainer {
  private static final byte[] MAGIC = {'O', 'b', 'j', 1};
  private static final int SYNC_SIZE = 16;
  private static final int CACHED_SCHEMAS = 64;
  /**
   * Decompressed bytes a file may hold: 32 times its own size, at least 64 MiB. Deflate and
   * zstandard can expand a block a thousand times or more, so without a cap a small crafted file
   * exhausts the heap (metadata Avro compresses about 5 to 10 times).
   */
  private static final long MIN_INFLATED_LIMIT = 64L << 20;
  private static final int INFLATION_RATIO_LIMIT = 32;
  private static final Map<String, Parsed> SCHEMAS = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Parsed> eldest) {
      return size() > CACHED_SCHEMAS;
    }
  };

  /**
   * A writer schema and the reader Avro's {@link FastReaderBuilder} compiled for it: a tree of field
   * readers over the plain binary decoder, about twice as fast as {@code GenericDatumReader}'s
   * interpretation of a resolving grammar, and built once per schema text rather than once per
   * file. Its own builder (not {@code GenericData}'s shared one, whose weak cache would keep every
   * schema it saw) goes with the schema when it leaves the cache. Stateless: shared by threads.
   */
  private record Parsed(Schema schema, DatumReader<GenericRecord> reader, DirectEntryReader direct) {}

  /** One block as the file stores it: its record count and where its (compressed) bytes are. */
  private record Block(long count, int offset, int size) {}

  /** Reads every record of one decompressed block. */
  interface BlockReader {
    void read(long count, BlockDecoder decoder) throws IOException;
  }

  final Schema schema;
  final Map<String, String> metadata;
  /** The end of the last complete block: the file length unless the file is truncated. */
  final int lastSync;
  private final Parsed parsed;
  private final byte[] bytes;
  private final AvroBlockCodec codec;
  private final List<Block> blocks;

  private AvroContainer(Parsed parsed, Map<String, String> metadata, byte[] bytes, AvroBlockCodec codec,
      List<Block> blocks, int lastSync) {
    this.parsed = parsed;
    this.schema = parsed.schema();
    this.metadata = metadata;
    this.bytes = bytes;
    this.codec = codec;
    this.blocks = blocks;
    this.lastSync = lastSync;
  }

  /**
   * The reader that decodes manifest entries of this file straight from its blocks, or null when the
   * schema is not a manifest entry's or has a shape only the generic records handle.
   */
  DirectEntryReader direct() {
    return parsed.direct();
  }

  /** The file's records, decoded by Avro's reader compiled for its schema. */
  List<GenericRecord> records() throws IOException {
    List<GenericRecord> records = new ArrayList<>();
    DatumReader<GenericRecord> reader = parsed.reader();
    forEachBlock((count, decoder) -> {
      for (long i = 0; i < count; i++) {
        records.add(reader.read(null, decoder));
      }
    });
    return records;
  }

  /**
   * Decompresses the blocks one at a time, within the file's budget, and hands each to
   * {@code reader}, which must read all its records: a huge manifest holds its file and one
   * decompressed block, not all of them.
   */
  void forEachBlock(BlockReader reader) throws IOException {
    long inflateBudget = Math.max(MIN_INFLATED_LIMIT, (long) INFLATION_RATIO_LIMIT * bytes.length);
    for (Block block : blocks) {
      int end = block.offset() + block.size() + SYNC_SIZE;
      byte[] data = codec.decompress(Arrays.copyOfRange(bytes, block.offset(), block.offset() + block.size()),
          inflateBudget);
      inflateBudget -= data.length;
      // Every metadata record takes at least one byte; this also stops a huge count of empty records.
      if (block.count() > data.length) {
        throw new IOException("invalid block ending at byte " + end + ": " + block.count() + " records in "
            + data.length + " bytes");
      }
      BlockDecoder decoder = new BlockDecoder(data);
      reader.read(block.count(), decoder);
      if (!decoder.isEnd()) {
        throw new IOException("invalid block ending at byte " + end + ": bytes left after its " + block.count()
            + " records");
      }
    }
  }

  /**
   * The file's schema, user metadata (keys not starting with "avro.") and blocks, each checked to
   * lie inside the file and end with its sync marker; {@link #forEachBlock} decompresses them.
   */
  static AvroContainer decode(byte[] bytes) throws IOException {
    Input in = new Input(bytes);
    if (bytes.length < MAGIC.length || !Arrays.equals(Arrays.copyOf(bytes, MAGIC.length), MAGIC)) {
      throw new IOException("not an Avro data file (no magic bytes Obj\\u0001)");
    }
    in.pos = MAGIC.length;
    Map<String, byte[]> header = in.readMetadata();
    String codec = header.containsKey("avro.codec")
        ? new String(header.get("avro.codec"), StandardCharsets.UTF_8) : "null";
    AvroBlockCodec blockCodec = AvroBlockCodec.forName(codec);
    byte[] schemaJson = header.get("avro.schema");
    if (schemaJson == null) {
      throw new IOException("no avro.schema in the file header");
    }
    Parsed parsed = parse(new String(schemaJson, StandardCharsets.UTF_8));
    Map<String, String> metadata = new LinkedHashMap<>();
    header.forEach((k, v) -> {
      if (!k.startsWith("avro.")) {
        metadata.put(k, new String(v, StandardCharsets.UTF_8));
      }
    });
    byte[] sync = in.readFixed(SYNC_SIZE);
    List<Block> blocks = new ArrayList<>();
    int lastSync = in.pos;
    while (in.pos < bytes.length) {
      long count;
      int offset;
      int size;
      try {
        count = in.readLong();
        long length = in.readLong();
        if (count < 0 || length < 0 || length > bytes.length - in.pos) {
          break;
        }
        offset = in.pos;
        size = (int) length;
        in.pos += size;
        if (!Arrays.equals(in.readFixed(SYNC_SIZE), sync)) {
          throw new IOException("invalid sync marker after the block ending at byte " + (in.pos - SYNC_SIZE));
        }
      } catch (EOFException truncated) {
        break;
      }
      blocks.add(new Block(count, offset, size));
      lastSync = in.pos;
    }
    return new AvroContainer(parsed, metadata, bytes, blockCodec, blocks, lastSync);
  }

  /** The parsed schema for this text and its reader, shared by every file that carries the same text. */
  private static Parsed parse(String json) throws IOException {
    synchronized (SCHEMAS) {
      Parsed cached = SCHEMAS.get(json);
      if (cached != null) {
        return cached;
      }
    }
    Schema schema = new Schema.Parser(NameValidator.NO_VALIDATION).setValidateDefaults(false)
        .parse(json);
    Parsed parsed = new Parsed(schema, new FastReaderBuilder(GenericData.get()).createDatumReader(schema),
        DirectEntryReader.compile(schema));
    synchronized (SCHEMAS) {
      SCHEMAS.put(json, parsed);
    }
    return parsed;
  }

  /** A position in the file's bytes; EOFException when a read runs past the end. */
  private static final class Input {
    private final byte[] bytes;
    private int pos = 0;

    Input(byte[] bytes) {
      this.bytes = bytes;
    }

    private Map<String, byte[]> readMetadata() throws IOException {
      Map<String, byte[]> out = new LinkedHashMap<>();
      for (long count = readLong(); count != 0; count = readLong()) {
        if (count < 0) {
          count = -count;
          readLong(); // the block's size in bytes
        }
        for (long i = 0; i < count; i++) {
          String key = new String(readFixed(readLength()), StandardCharsets.UTF_8);
          out.put(key, readFixed(readLength()));
        }
      }
      return out;
    }

    private int readLength() throws IOException {
      long length = readLong();
      if (length < 0 || length > bytes.length - pos) {
        throw new IOException("invalid length " + length + " at byte " + pos + " of " + bytes.length);
      }
      return (int) length;
    }

    private byte[] readFixed(int length) throws EOFException {
      if (length > bytes.length - pos) {
        throw new EOFException();
      }
      byte[] out = Arrays.copyOfRange(bytes, pos, pos + length);
      pos += length;
      return out;
    }

    private long readLong() throws EOFException {
      long raw = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (pos >= bytes.length) {
          throw new EOFException();
        }
        int b = bytes[pos++] & 0xff;
        raw |= (long) (b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
          break;
        }
      }
      return (raw >>> 1) ^ -(raw & 1);
    }
  }
}
