package io.floe.format.metadata;

import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import io.floe.format.types.TypeUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The first metadata of a new table: fresh field ids, with the spec and sort order moved onto them
 * by source column name (the caller's ids are not kept), a random table uuid, and no snapshot.
 */
final class FreshTable {
  private FreshTable() {}

  static TableMetadataBuilder builder(Schema schema, PartitionSpec spec, SortOrder order, String location,
      Map<String, String> properties, int formatVersion) {
    AtomicInteger lastId = new AtomicInteger(0);
    Schema fresh = TypeUtil.assignFreshIds(0, schema, lastId::incrementAndGet);
    PartitionSpec freshSpec = freshSpec(schema, fresh, spec);
    SortOrder freshOrder = freshOrder(schema, fresh, order);
    TableMetadataBuilder b = new TableMetadataBuilder();
    b.formatVersion = formatVersion;
    b.uuid = UUID.randomUUID().toString();
    b.location = TableMetadataBuilder.stripTrailingSlash(Objects.requireNonNull(location, "Table location is null"));
    b.lastColumnId = lastId.get();
    b.schemas.add(fresh);
    b.currentSchemaId = fresh.schemaId();
    b.specs.add(freshSpec);
    b.defaultSpecId = freshSpec.specId();
    b.lastAssignedPartitionId = freshSpec.lastAssignedFieldId();
    b.sortOrders.add(freshOrder);
    b.defaultSortOrderId = freshOrder.orderId();
    if (properties != null) {
      b.properties.putAll(properties);
      b.properties.remove(TableProperties.FORMAT_VERSION);
    }
    return b;
  }

  private static PartitionSpec freshSpec(Schema original, Schema fresh, PartitionSpec spec) {
    PartitionSpec.Builder builder = PartitionSpec.builderFor(fresh).withSpecId(0);
    if (spec == null) {
      return builder.build();
    }
    int fieldId = PartitionSpec.PARTITION_DATA_ID_START;
    for (PartitionField field : spec.fields()) {
      int sourceId = freshId(original, fresh, field.sourceId(), "partition field " + field.name());
      builder.add(sourceId, fieldId++, field.name(), field.transform());
    }
    return builder.build();
  }

  private static SortOrder freshOrder(Schema original, Schema fresh, SortOrder order) {
    if (order == null || order.isUnsorted()) {
      return SortOrder.unsorted();
    }
    List<SortField> fields = new ArrayList<>();
    for (SortField field : order.fields()) {
      fields.add(field.withSourceId(freshId(original, fresh, field.sourceId(), "sort field " + field)));
    }
    return new SortOrder(SortOrder.INITIAL_SORT_ORDER_ID, fields);
  }

  private static int freshId(Schema original, Schema fresh, int sourceId, String what) {
    String name = original.findColumnName(sourceId);
    Integer id = name == null ? null : fresh.idFor(name);
    if (id == null) {
      throw new IllegalArgumentException("Cannot find source column " + sourceId + " of " + what
          + " in the table schema");
    }
    return id;
  }
}
