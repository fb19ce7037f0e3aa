package io.floe.format.manifest;

import java.util.Objects;

/**
 * One row of a manifest: a file with its status, the snapshot that added or deleted it, and its
 * data and file sequence numbers. Entries returned by {@link ManifestReader} carry inherited values;
 * null means "not known yet" (only for entries that have not been read back from a manifest list).
 * {@code F} is {@link DataFile} for entries of data manifests and {@link DeleteFile} for delete manifests.
 */
public final class ManifestEntry<F extends ContentFile> {

  /** The entry status (field 0). */
  public enum Status {
    EXISTING(0),
    ADDED(1),
    DELETED(2);

    private final int id;

    Status(int id) {
      this.id = id;
    }

    public int id() {
      return id;
    }

    private static final Status[] ALL = values();

    public static Status fromId(int id) {
      for (Status s : ALL) {
        if (s.id == id) {
          return s;
        }
      }
      throw new IllegalArgumentException("Unknown manifest entry status: " + id + " (expected 0, 1 or 2)");
    }
  }

  private final Status status;
  private final Long snapshotId;
  private final Long dataSequenceNumber;
  private final Long fileSequenceNumber;
  private final F file;

  public ManifestEntry(Status status, Long snapshotId, Long dataSequenceNumber, Long fileSequenceNumber,
      F file) {
    this.status = Objects.requireNonNull(status, "Manifest entry status is null");
    this.snapshotId = snapshotId;
    this.dataSequenceNumber = dataSequenceNumber;
    this.fileSequenceNumber = fileSequenceNumber;
    this.file = Objects.requireNonNull(file, "Manifest entry file is null");
  }

  public Status status() {
    return status;
  }

  public boolean isLive() {
    return status != Status.DELETED;
  }

  public Long snapshotId() {
    return snapshotId;
  }

  public Long dataSequenceNumber() {
    return dataSequenceNumber;
  }

  public Long fileSequenceNumber() {
    return fileSequenceNumber;
  }

  public F file() {
    return file;
  }

  @Override
  public String toString() {
    return "ManifestEntry{" + status + ", snapshot=" + snapshotId + ", dataSeq=" + dataSequenceNumber
        + ", fileSeq=" + fileSequenceNumber + ", " + file + "}";
  }
}
