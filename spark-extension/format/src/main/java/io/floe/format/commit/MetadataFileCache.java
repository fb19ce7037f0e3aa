package io.floe.format.commit;

import io.floe.format.io.FileIO;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableMetadataParser;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The newest metadata file read or written for each table, kept with its bytes and its parsed
 * {@link TableMetadata}, so that loading a table whose current version did not change skips the
 * JSON parse (milliseconds for a table with thousands of snapshots).
 *
 * <p>Never stale: the caller decides which file is current (hint, then probing) before asking, and
 * the file is read on every lookup; the parse is reused only when the location and every byte are
 * the same. A version file replaced in place (a damaged or restored file, a table dropped and
 * created again) is therefore parsed afresh. Least recently used tables are dropped beyond
 * {@code maxTables} tables or {@code maxBytes} bytes of JSON; a file larger than {@code maxBytes}
 * is never kept. Thread-safe.
 */
public final class MetadataFileCache {
  static final int DEFAULT_MAX_TABLES = 16;
  static final long DEFAULT_MAX_BYTES = 32L << 20;

  private final int maxTables;
  private final long maxBytes;
  private final Map<String, Entry> byTable = new LinkedHashMap<>(16, 0.75f, true);
  private long bytes = 0;
  private long parses = 0;

  private record Entry(String location, byte[] json, TableMetadata metadata) {}

  public MetadataFileCache() {
    this(DEFAULT_MAX_TABLES, DEFAULT_MAX_BYTES);
  }

  public MetadataFileCache(int maxTables, long maxBytes) {
    if (maxTables < 1 || maxBytes < 1) {
      throw new IllegalArgumentException("Invalid metadata cache size: " + maxTables + " tables, " + maxBytes + " bytes");
    }
    this.maxTables = maxTables;
    this.maxBytes = maxBytes;
  }

  /**
   * The metadata in {@code location}, the current version file of the table at {@code tableRoot}:
   * the kept parse when the file holds exactly the bytes parsed before, otherwise a new parse.
   */
  public TableMetadata read(FileIO io, String tableRoot, String location) {
    byte[] json = TableMetadataParser.readJsonBytes(io, location);
    Entry kept;
    synchronized (this) {
      kept = byTable.get(tableRoot);
    }
    if (kept != null && kept.location().equals(location) && Arrays.equals(kept.json(), json)) {
      return kept.metadata();
    }
    TableMetadata parsed = TableMetadataParser.fromJson(location, json);
    synchronized (this) {
      parses += 1;
    }
    put(tableRoot, json, parsed);
    return parsed;
  }

  /** Keeps {@code metadata}, whose file {@link TableMetadata#metadataFileLocation()} holds {@code json}. */
  public synchronized void put(String tableRoot, byte[] json, TableMetadata metadata) {
    Entry old = byTable.remove(tableRoot);
    if (old != null) {
      bytes -= old.json().length;
    }
    if (json.length > maxBytes) {
      return;
    }
    byTable.put(tableRoot, new Entry(metadata.metadataFileLocation(), json, metadata));
    bytes += json.length;
    Iterator<Entry> eldest = byTable.values().iterator();
    while (byTable.size() > maxTables || bytes > maxBytes) {
      bytes -= eldest.next().json().length;
      eldest.remove();
    }
  }

  /** Forgets the table at {@code tableRoot} (dropped or renamed). */
  public synchronized void invalidate(String tableRoot) {
    Entry old = byTable.remove(tableRoot);
    if (old != null) {
      bytes -= old.json().length;
    }
  }

  /** How many files this cache parsed (misses); for tests. */
  public synchronized long parses() {
    return parses;
  }
}
