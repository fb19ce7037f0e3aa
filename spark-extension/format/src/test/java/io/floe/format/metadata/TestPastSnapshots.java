package io.floe.format.metadata;


import static io.floe.format.metadata.MetadataFixtures.commit;
import static io.floe.format.metadata.MetadataFixtures.newTable;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.FloeException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.Test;

/** Which snapshot was current at a past time, after expiration trimmed the snapshot log. */
public class TestPastSnapshots {
  private final Map<String, TableMetadata> files = new HashMap<>();

  /** {@code metadata} as if published as {@code name}, so the next version logs it in its metadata log. */
  private TableMetadata publish(String name, TableMetadata metadata) {
    String location = MetadataFixtures.LOCATION + "/metadata/" + name;
    TableMetadata published = TableMetadataParser.fromJson(location, TableMetadataParser.toJson(metadata));
    files.put(location, published);
    return published;
  }

  private Function<String, TableMetadata> reader() {
    return file -> {
      TableMetadata m = files.get(file);
      if (m == null) {
        throw new IllegalStateException("gone: " + file);
      }
      return m;
    };
  }

  private static void pause() {
    try {
      Thread.sleep(5);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Three snapshots 1, 2, 3 in published files v1..v4, then 1 and 2 expired (log trimmed to 3). */
  private TableMetadata expiredHistory() {
    TableMetadata v1 = publish("v1.metadata.json", newTable(2));
    pause();
    TableMetadata v2 = publish("v2.metadata.json", commit(v1, 1L));
    pause();
    TableMetadata v3 = publish("v3.metadata.json", commit(v2, 2L));
    pause();
    TableMetadata v4 = publish("v4.metadata.json", commit(v3, 3L));
    TableMetadata expired = TableMetadata.buildFrom(v4).removeSnapshots(List.of(1L, 2L)).build();
    assertEquals(1, expired.snapshotLog().size());
    return expired;
  }

  private static long committed(TableMetadata m, long id) {
    return m.snapshotLog().stream().filter(e -> e.snapshotId() == id).findFirst().orElseThrow().timestampMillis();
  }

  @Test
  public void anExpiredSnapshotIsFoundInOlderMetadataFiles() {
    TableMetadata expired = expiredHistory();
    long second = committed(files.get(MetadataFixtures.LOCATION + "/metadata/v3.metadata.json"), 2L);
    PastSnapshots.At at = PastSnapshots.currentAt(expired, second, reader());
    assertEquals(PastSnapshots.Kind.SNAPSHOT, at.kind());
    assertEquals(Long.valueOf(2L), at.snapshotId());
    FloeException e = assertThrows(FloeException.class,
        () -> PastSnapshots.snapshotAt(expired, second, reader(), "Cannot time travel table db.t to X"));
    assertTrue(e.getMessage(), e.getMessage().startsWith("Cannot time travel table db.t to X: snapshot 2, current "
        + "then, has expired"));
  }

  @Test
  public void aLiveSnapshotIsReturned() {
    TableMetadata expired = expiredHistory();
    long third = committed(expired, 3L);
    assertEquals(3L, PastSnapshots.snapshotAt(expired, third, reader(), "x").snapshotId());
  }

  @Test
  public void betweenCreateAndFirstSnapshotTheTableHadNoSnapshot() {
    TableMetadata expired = expiredHistory();
    long created = expired.previousFiles().get(0).timestampMillis();
    assertEquals(PastSnapshots.Kind.NO_SNAPSHOT_YET, PastSnapshots.currentAt(expired, created, reader()).kind());
  }

  @Test
  public void unreadableHistoryStillSaysTheSnapshotExpired() {
    TableMetadata expired = expiredHistory();
    long second = committed(files.get(MetadataFixtures.LOCATION + "/metadata/v3.metadata.json"), 2L);
    files.clear();
    assertEquals(PastSnapshots.Kind.EXPIRED_UNKNOWN, PastSnapshots.currentAt(expired, second, reader()).kind());
    FloeException e = assertThrows(FloeException.class,
        () -> PastSnapshots.snapshotAt(expired, second, reader(), "Cannot time travel"));
    assertTrue(e.getMessage(), e.getMessage().contains("the snapshot current then, if any, has expired"));
    assertTrue(e.getMessage(), e.getMessage().contains("oldest remaining snapshot 3"));
  }

  @Test
  public void beforeTheTableItIsBeforeTheFirstSnapshot() {
    TableMetadata expired = expiredHistory();
    assertEquals(PastSnapshots.Kind.BEFORE_HISTORY, PastSnapshots.currentAt(commit(newTable(2), 7L), 0L, reader())
        .kind());
    FloeException e = assertThrows(FloeException.class,
        () -> PastSnapshots.snapshotAt(commit(newTable(2), 7L), 0L, reader(), "Cannot"));
    assertTrue(e.getMessage(), e.getMessage().contains("it is before the table's first snapshot 7"));
    assertEquals(PastSnapshots.Kind.BEFORE_HISTORY, PastSnapshots.currentAt(expired, 0L, reader()).kind());
  }
}
