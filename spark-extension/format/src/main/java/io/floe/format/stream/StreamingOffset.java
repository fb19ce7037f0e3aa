package io.floe.format.stream;

import com.fasterxml.jackson.databind.JsonNode;
import io.floe.format.StreamingErrors;
import io.floe.format.util.JsonUtil;

/**
 * A position in a table's stream of appended data files: the next file to read is the
 * {@code position}-th added data file of snapshot {@code snapshotId} (files in manifest-list order,
 * then entry order). {@code scanAllFiles} means the files counted are every live data file of the
 * snapshot, not only those it added: a stream that starts at a snapshot whose history has expired
 * reads the table's whole contents at that snapshot first. {@code complete} says every file of the
 * snapshot has been read ({@code position} is then their count): a stream that stopped there can
 * resume at the snapshot's child even after {@code expire_snapshots} removed the snapshot itself.
 * {@link #START} is the offset of a stream that has read nothing yet.
 *
 * <p>JSON, stable across releases (checkpoints keep it); the first four keys are Iceberg's
 * {@code StreamingOffset} keys, {@code snapshot_complete} is Floe's:
 * <pre>{"version":1,"snapshot_id":123,"position":4,"scan_all_files":false,"snapshot_complete":false}</pre>
 */
public record StreamingOffset(long snapshotId, long position, boolean scanAllFiles, boolean complete) {
  public static final int VERSION = 1;
  /** Nothing read yet; the scan resolves the first snapshot from its options on the next batch. */
  public static final StreamingOffset START = new StreamingOffset(-1L, -1L, false, false);

  static final String VERSION_KEY = "version";
  static final String SNAPSHOT_ID = "snapshot_id";
  static final String POSITION = "position";
  static final String SCAN_ALL_FILES = "scan_all_files";
  static final String SNAPSHOT_COMPLETE = "snapshot_complete";

  public StreamingOffset {
    if (snapshotId != -1L && position < 0) {
      throw new IllegalArgumentException("Invalid streaming offset: negative position " + position);
    }
  }

  public boolean isStart() {
    return snapshotId == START.snapshotId;
  }

  public String toJson() {
    return JsonUtil.generate(gen -> {
      gen.writeStartObject();
      gen.writeNumberField(VERSION_KEY, VERSION);
      gen.writeNumberField(SNAPSHOT_ID, snapshotId);
      gen.writeNumberField(POSITION, position);
      gen.writeBooleanField(SCAN_ALL_FILES, scanAllFiles);
      gen.writeBooleanField(SNAPSHOT_COMPLETE, complete);
      gen.writeEndObject();
    });
  }

  public static StreamingOffset fromJson(String json) {
    try {
      JsonNode node = JsonUtil.parse(json);
      if (node == null || !node.isObject()) {
        throw new IllegalArgumentException("not a JSON object");
      }
      int version = JsonUtil.getInt(VERSION_KEY, node);
      if (version != VERSION) {
        throw new IllegalArgumentException("unsupported version " + version + ", expected " + VERSION);
      }
      return new StreamingOffset(JsonUtil.getLong(SNAPSHOT_ID, node), JsonUtil.getLong(POSITION, node),
          JsonUtil.getBool(SCAN_ALL_FILES, node), JsonUtil.getBool(SNAPSHOT_COMPLETE, node));
    } catch (IllegalArgumentException e) {
      throw StreamingErrors.invalidOffset(json, e.getMessage());
    }
  }

  @Override
  public String toString() {
    return toJson();
  }
}
