package io.floe.spark;

import io.floe.format.commit.FileSystemTableOperations;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.SnapshotLogEntry;
import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.types.Schema;
import io.floe.spark.source.FloeScanBuilder;
import io.floe.spark.write.FloeWriteBuilder;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** A Floe table as Spark sees it: at its current snapshot, or pinned to one for time travel. */
public class FloeTable implements SupportsRead, SupportsWrite {
  private static final Set<TableCapability> CAPABILITIES = Set.of(
      TableCapability.BATCH_READ, TableCapability.BATCH_WRITE, TableCapability.TRUNCATE,
      TableCapability.OVERWRITE_BY_FILTER, TableCapability.OVERWRITE_DYNAMIC);

  private final FloeCatalog catalog;
  private final FileSystemTableOperations ops;
  private final TableMetadata metadata;
  private final Snapshot pinned;

  FloeTable(FloeCatalog catalog, FileSystemTableOperations ops, Snapshot pinned) {
    this.catalog = catalog;
    this.ops = ops;
    this.metadata = ops.current();
    this.pinned = pinned;
  }

  public FloeCatalog catalog() {
    return catalog;
  }

  public FileSystemTableOperations ops() {
    return ops;
  }

  public TableMetadata metadata() {
    return metadata;
  }

  /** The snapshot reads see: the pinned one, or the current one (null for an empty table). */
  public Snapshot snapshot() {
    return pinned != null ? pinned : metadata.currentSnapshot();
  }

  public boolean isTimeTravel() {
    return pinned != null;
  }

  /** The schema of the snapshot being read (the current schema unless time travelling). */
  public Schema readSchema() {
    if (pinned != null && pinned.schemaId() != null && metadata.schemasById().containsKey(pinned.schemaId())) {
      return metadata.schemasById().get(pinned.schemaId());
    }
    return metadata.schema();
  }

  @Override
  public String name() {
    return catalog.name() + "." + ops.tableName();
  }

  @Override
  public StructType schema() {
    return SparkSchemas.convert(readSchema());
  }

  @Override
  public Transform[] partitioning() {
    return SparkPartitioning.toSpark(metadata.spec());
  }

  @Override
  public Map<String, String> properties() {
    Map<String, String> props = new HashMap<>(metadata.properties());
    props.put("provider", "floe");
    props.put("format", "iceberg/parquet");
    props.put("format-version", Integer.toString(metadata.formatVersion()));
    props.put("location", metadata.location());
    Snapshot current = snapshot();
    props.put("current-snapshot-id", current == null ? "none" : Long.toString(current.snapshotId()));
    return props;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return CAPABILITIES;
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return new FloeScanBuilder(this, options);
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    if (pinned != null) {
      throw new IllegalArgumentException("Cannot write to table " + name() + " at a past snapshot (time travel)");
    }
    return new FloeWriteBuilder(this, info);
  }

  /** {@code VERSION AS OF}: a snapshot id, or a branch or tag name. */
  FloeTable atVersion(String version) {
    Snapshot snap = null;
    if (version.matches("-?\\d+")) {
      snap = metadata.snapshot(Long.parseLong(version));
    }
    if (snap == null) {
      SnapshotRef ref = metadata.refs().get(version);
      if (ref != null) {
        snap = metadata.snapshot(ref.snapshotId());
      }
    }
    if (snap == null) {
      throw new IllegalArgumentException("Cannot time travel table " + name() + " to version " + version
          + ": no snapshot, branch or tag has that id or name");
    }
    return new FloeTable(catalog, ops, snap);
  }

  /** {@code TIMESTAMP AS OF}: the snapshot that was current at that time. */
  FloeTable asOfTimestamp(long timestampMillis) {
    Long found = null;
    for (SnapshotLogEntry entry : metadata.snapshotLog()) {
      if (entry.timestampMillis() <= timestampMillis) {
        found = entry.snapshotId();
      }
    }
    if (found == null || metadata.snapshot(found) == null) {
      throw new IllegalArgumentException("Cannot time travel table " + name() + " to " 
          + java.time.Instant.ofEpochMilli(timestampMillis) + ": no snapshot was current then");
    }
    return new FloeTable(catalog, ops, metadata.snapshot(found));
  }

  @Override
  public String toString() {
    return name();
  }
}
