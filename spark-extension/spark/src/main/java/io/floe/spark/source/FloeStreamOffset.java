package io.floe.spark.source;

import io.floe.format.FloeException;
import io.floe.format.stream.StreamingOffset;
import io.floe.spark.util.SparkExceptions;
import org.apache.spark.sql.connector.read.streaming.Offset;

/**
 * A {@link StreamingOffset} as Spark keeps it: in the checkpoint's offset log and in
 * {@code StreamingQueryProgress} as its JSON, e.g.
 * {@code {"version":1,"snapshot_id":87447366,"position":3,"scan_all_files":false,"snapshot_complete":true}}.
 * Spark compares offsets by their JSON.
 */
final class FloeStreamOffset extends Offset {
  private final StreamingOffset offset;

  FloeStreamOffset(StreamingOffset offset) {
    this.offset = offset;
  }

  StreamingOffset offset() {
    return offset;
  }

  @Override
  public String json() {
    return offset.toJson();
  }

  /** {@code offset} as Floe's offset: ours, or one Spark restored from the checkpoint as JSON. */
  static StreamingOffset of(Offset offset) {
    if (offset instanceof FloeStreamOffset floe) {
      return floe.offset;
    }
    return parse(offset.json());
  }

  static StreamingOffset parse(String json) {
    try {
      return StreamingOffset.fromJson(json);
    } catch (FloeException e) {
      throw SparkExceptions.atRuntime(e);
    }
  }
}
