package io.floe.format.table;

import io.floe.format.commit.Cherrypick;
import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.commit.SnapshotProducer;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a scan, a write or a row-level operation needs of a table, and nothing of the engine that
 * asked for it: the table's name for messages, its operations (file IO, commits), the metadata it
 * was loaded at, and the snapshot and schema a read sees (a pinned snapshot when time travelling).
 * Immutable; the metadata is the one current when the view was made.
 */
public final class TableView {
  private final String name;
  private final FileSystemTableOperations ops;
  private final TableMetadata metadata;
  private final Snapshot pinned;
  private final Schema projectedSchema;
  private final String branch;
  private final String wapId;

  private TableView(String name, FileSystemTableOperations ops, TableMetadata metadata, Snapshot pinned,
      Schema projectedSchema, String branch, String wapId) {
    this.name = name;
    this.ops = ops;
    this.metadata = metadata;
    this.pinned = pinned;
    this.projectedSchema = projectedSchema;
    this.branch = branch;
    this.wapId = wapId;
  }

  /** The table at its current metadata and snapshot. */
  public static TableView current(String name, FileSystemTableOperations ops) {
    return new TableView(name, ops, ops.current(), null, null, null, null);
  }

  /**
   * This view read at {@code snapshot} (time travel), through {@code projectedSchema}, or through the
   * snapshot's own schema when that is null.
   */
  public TableView pinnedTo(Snapshot snapshot, Schema projected) {
    return new TableView(name, ops, metadata, snapshot, projected, branch, wapId);
  }

  /**
   * This view on branch {@code branchName}: reads see its head (main's current snapshot while the
   * branch does not exist yet) and writes commit to it, creating it. Null or main: the main branch.
   */
  public TableView onBranch(String branchName) {
    String b = branchName == null || SnapshotRef.MAIN_BRANCH.equals(branchName) ? null : branchName;
    return new TableView(name, ops, metadata, pinned, projectedSchema, b, wapId);
  }

  /**
   * This view with writes staged (write-audit-publish {@code wap.id}): they add a snapshot whose
   * summary has {@code wap.id} and move no branch.
   */
  public TableView stagedWithWapId(String id) {
    return new TableView(name, ops, metadata, pinned, projectedSchema, branch, id);
  }

  /** The branch reads see and writes commit to, or null for main. */
  public String branch() {
    return branch;
  }

  /** The write-audit-publish id writes are staged with, or null when they commit to a branch. */
  public String wapId() {
    return wapId;
  }

  /** Points {@code producer} at this view's branch, or stages it with the wap id, before it commits. */
  public <T extends SnapshotProducer> T target(T producer) {
    if (wapId != null) {
      producer.stageOnly().set(Cherrypick.WAP_ID, wapId);
    } else if (branch != null) {
      producer.toBranch(branch);
    }
    return producer;
  }

  /** The table's full name, as messages show it ({@code catalog.namespace.table}). */
  public String name() {
    return name;
  }

  public FileSystemTableOperations ops() {
    return ops;
  }

  public TableMetadata metadata() {
    return metadata;
  }

  /** The snapshot reads see: the pinned one, or the current one (null for an empty table). */
  public Snapshot snapshot() {
    if (pinned != null) {
      return pinned;
    }
    if (branch != null) {
      SnapshotRef ref = metadata.ref(branch);
      if (ref != null) {
        return metadata.snapshot(ref.snapshotId());
      }
    }
    return metadata.currentSnapshot();
  }

  /** The snapshot a time-travel read is pinned to, or null. */
  public Snapshot pinnedSnapshot() {
    return pinned;
  }

  public boolean isTimeTravel() {
    return pinned != null;
  }

  /** The schema of the snapshot being read (the current schema unless time travelling). */
  public Schema readSchema() {
    if (projectedSchema != null) {
      return projectedSchema;
    }
    if (pinned != null && pinned.schemaId() != null && metadata.schemasById().containsKey(pinned.schemaId())) {
      return metadata.schemasById().get(pinned.schemaId());
    }
    return metadata.schema();
  }

  /**
   * The partition fields of every spec, in spec order then field order, each once (by field id), all
   * optional: the type of the {@code _partition} metadata column.
   */
  public Types.StructType partitionUnionType() {
    Map<Integer, Types.NestedField> fields = new LinkedHashMap<>();
    List<PartitionSpec> specs = new ArrayList<>(metadata.specs());
    specs.sort((a, b) -> Integer.compare(a.specId(), b.specId()));
    for (PartitionSpec spec : specs) {
      for (Types.NestedField f : spec.withSchema(readSchema()).partitionType().fields()) {
        fields.putIfAbsent(f.fieldId(), Types.NestedField.optional(f.fieldId(), f.name(), f.type()));
      }
    }
    return Types.StructType.of(new ArrayList<>(fields.values()));
  }

  @Override
  public String toString() {
    return name;
  }
}
