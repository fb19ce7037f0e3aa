package io.floe.format.commit;

import io.floe.format.metadata.SnapshotRef;
import io.floe.format.metadata.SortOrder;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.metadata.TableMetadataBuilder;
import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.TypeUtil;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * REPLACE TABLE: the table keeps its identity, history and location, and gets a new schema (a
 * column keeps its field id when the old schema has one of that name, as Iceberg does; new columns
 * get ids above the last assigned one), a new partition spec,
 * the new properties on top of the old ones, and no current snapshot until the replacement's data
 * is committed.
 */
public final class TableReplacement {
  private TableReplacement() {}

  public static TableMetadata replace(TableMetadata base, TableMetadata fresh) {
    AtomicInteger lastColumnId = new AtomicInteger(base.lastColumnId());
    Schema schema = TypeUtil.assignIds(0, fresh.schema(), base.schema(), lastColumnId::incrementAndGet);
    PartitionSpec.Builder spec = PartitionSpec.builderFor(schema);
    for (PartitionField f : fresh.spec().fields()) {
      spec.add(fresh.schema().findColumnName(f.sourceId()), f.transform(), f.name());
    }
    TableMetadataBuilder builder = TableMetadata.buildFrom(base);
    if (fresh.formatVersion() > base.formatVersion()) {
      builder.upgradeFormatVersion(fresh.formatVersion());
    }
    return builder
        .setCurrentSchema(schema, lastColumnId.get())
        .setDefaultPartitionSpec(spec.build())
        .setDefaultSortOrder(SortOrder.unsorted())
        .setProperties(fresh.properties())
        .removeRef(SnapshotRef.MAIN_BRANCH)
        .build();
  }
}
