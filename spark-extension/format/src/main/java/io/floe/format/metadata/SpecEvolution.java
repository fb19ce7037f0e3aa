package io.floe.format.metadata;

import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import java.util.List;

/**
 * Partition field ids for a spec added to a table. v2+: a (source, transform) pair seen in any
 * earlier spec keeps its field id, new pairs get ids after {@code last-partition-id}; v1: field ids
 * are 1000 + position, as v1 writers assign them.
 */
final class SpecEvolution {
  private SpecEvolution() {}

  static PartitionSpec withTableFieldIds(PartitionSpec spec, int newSpecId, Schema schema,
      List<PartitionSpec> existingSpecs, int lastAssignedPartitionId, int formatVersion) {
    PartitionSpec.Builder rebuilt = PartitionSpec.builderFor(schema).withSpecId(newSpecId);
    int nextFieldId = lastAssignedPartitionId;
    int position = 0;
    for (PartitionField field : spec.fields()) {
      int fieldId;
      if (formatVersion == 1) {
        fieldId = PartitionSpec.PARTITION_DATA_ID_START + position;
      } else {
        Integer existing = existingFieldId(field, existingSpecs);
        fieldId = existing != null ? existing : ++nextFieldId;
      }
      rebuilt.add(field.sourceId(), fieldId, field.name(), field.transform());
      position++;
    }
    return rebuilt.build();
  }

  private static Integer existingFieldId(PartitionField field, List<PartitionSpec> specs) {
    for (PartitionSpec spec : specs) {
      for (PartitionField f : spec.fields()) {
        if (f.sourceId() == field.sourceId() && f.transform().toString().equals(field.transform().toString())) {
          return f.fieldId();
        }
      }
    }
    return null;
  }
}
