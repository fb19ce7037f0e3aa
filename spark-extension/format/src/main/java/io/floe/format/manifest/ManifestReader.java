package io.floe.format.manifest;

import static io.floe.format.manifest.ManifestSchemas.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.floe.format.io.InputFile;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionField;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.partition.PartitionSpecParser;
import io.floe.format.types.SchemaParser;
import io.floe.format.types.Type;
import io.floe.format.util.JsonUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

/**
 * Reads a manifest written by Floe, Java Iceberg or pyiceberg (v1 to v3) and applies inheritance
 * from its manifest-list entry: a null snapshot id becomes the manifest's {@code added_snapshot_id},
 * null sequence numbers on ADDED entries become the manifest's sequence number (0 for v1), and v3
 * data files without a first row id get the manifest's first row id plus the rows before them.
 */
public final class ManifestReader {
  private ManifestReader() {}

  /**
   * Every entry of the manifest, DELETED ones included, in file order: {@link DataFile}s for a data
   * manifest, {@link DeleteFile}s for a delete manifest (see {@link #readData} and {@link #readDeletes}).
   */
  public static List<ManifestEntry<?>> read(InputFile in, ManifestFile manifest,
      Map<Integer, PartitionSpec> specsById) {
    return read(in, manifest, specsById, Decoding.DIRECT_WHEN_POSSIBLE);
  }

  /** How entries are decoded: straight from the blocks when the schema allows, or always through generic records. */
  enum Decoding { DIRECT_WHEN_POSSIBLE, GENERIC }

  static List<ManifestEntry<?>> read(InputFile in, ManifestFile manifest, Map<Integer, PartitionSpec> specsById,
      Decoding decoding) {
    AvroRecords avro = AvroRecords.readBlocks(in, "manifest");
    Schema entrySchema = avro.schema();
    if (entrySchema.getType() != Schema.Type.RECORD || !avro.has(entrySchema, DATA_FILE)) {
      throw avro.error("not a manifest (no data_file field with id 2)");
    }
    PartitionSpec spec = spec(avro, manifest, specsById);
    boolean v1 = !avro.has(entrySchema, SEQUENCE_NUMBER) || "1".equals(avro.metadata("format-version"));
    EntryDecoder decoder = new EntryDecoder(avro, spec);
    List<ManifestEntry<?>> entries = new ArrayList<>();
    Long nextRowId = manifest.content() == ManifestContent.DATA ? manifest.firstRowId() : null;
    List<RawEntry> raw = decoding == Decoding.DIRECT_WHEN_POSSIBLE ? avro.directEntries() : null;
    if (raw == null) {
      raw = new ArrayList<>();
      for (GenericRecord record : avro.records()) {
        raw.add(decoder.fromRecord(record));
      }
    }
    for (RawEntry r : raw) {
      ManifestEntry<?> entry = inherit(avro, manifest, v1, decoder.decode(r));
      if (!manifest.content().accepts(entry.file().content())) {
        throw avro.error("entry for " + entry.file().path() + " is a " + entry.file().content() + " file, but the"
            + " manifest list says the manifest holds " + manifest.content());
      }
      if (nextRowId != null && entry.isLive() && entry.file() instanceof DataFile file && file.firstRowId() == null) {
        file = DataFile.builder(spec).copy(file).withFirstRowId(nextRowId).build();
        nextRowId += file.recordCount();
        entry = new ManifestEntry<>(entry.status(), entry.snapshotId(), entry.dataSequenceNumber(),
            entry.fileSequenceNumber(), file);
      }
      entries.add(entry);
    }
    return entries;
  }

  /** Every entry of a data manifest, DELETED ones included, in file order. */
  @SuppressWarnings("unchecked")
  public static List<ManifestEntry<DataFile>> readData(InputFile in, ManifestFile manifest,
      Map<Integer, PartitionSpec> specsById) {
    requireContent(manifest, ManifestContent.DATA);
    return (List<ManifestEntry<DataFile>>) (List<?>) read(in, manifest, specsById);
  }

  /** Every entry of a delete manifest, DELETED ones included, in file order. */
  @SuppressWarnings("unchecked")
  public static List<ManifestEntry<DeleteFile>> readDeletes(InputFile in, ManifestFile manifest,
      Map<Integer, PartitionSpec> specsById) {
    requireContent(manifest, ManifestContent.DELETES);
    return (List<ManifestEntry<DeleteFile>>) (List<?>) read(in, manifest, specsById);
  }

  /** The ADDED and EXISTING entries of the manifest. */
  public static List<ManifestEntry<?>> liveEntries(InputFile in, ManifestFile manifest,
      Map<Integer, PartitionSpec> specsById) {
    List<ManifestEntry<?>> live = new ArrayList<>();
    for (ManifestEntry<?> e : read(in, manifest, specsById)) {
      if (e.isLive()) {
        live.add(e);
      }
    }
    return live;
  }

  private static void requireContent(ManifestFile manifest, ManifestContent expected) {
    if (manifest.content() != expected) {
      throw new IllegalArgumentException("Cannot read " + manifest.content() + " manifest " + manifest.path()
          + " as a " + expected + " manifest");
    }
  }

  private static <F extends ContentFile> ManifestEntry<F> inherit(AvroRecords avro, ManifestFile manifest, boolean v1,
      ManifestEntry<F> e) {
    Long snapshotId = e.snapshotId() != null ? e.snapshotId() : manifest.snapshotId();
    Long dataSeq = inheritSeq(avro, manifest, v1, e, e.dataSequenceNumber(), "data");
    Long fileSeq = e.fileSequenceNumber();
    if (fileSeq == null && (v1 || e.status() == ManifestEntry.Status.ADDED)) {
      fileSeq = v1 ? Long.valueOf(0L) : assigned(manifest);
    }
    return new ManifestEntry<>(e.status(), snapshotId, dataSeq, fileSeq, e.file());
  }

  private static Long inheritSeq(AvroRecords avro, ManifestFile manifest, boolean v1, ManifestEntry<?> e, Long seq,
      String kind) {
    if (seq != null) {
      return seq;
    }
    if (v1) {
      return 0L;
    }
    if (e.status() == ManifestEntry.Status.ADDED) {
      return assigned(manifest);
    }
    if (manifest.sequenceNumber() == 0) {
      return 0L;
    }
    throw avro.error(e.status() + " entry for " + e.file().path() + " has no " + kind
        + " sequence number (only ADDED entries may inherit one)");
  }

  private static Long assigned(ManifestFile manifest) {
    return manifest.sequenceNumber() == ManifestFile.UNASSIGNED_SEQ ? null : manifest.sequenceNumber();
  }

  /** The table's spec for the manifest, or (deprecated fallback) the spec stored in the file. */
  private static PartitionSpec spec(AvroRecords avro, ManifestFile manifest, Map<Integer, PartitionSpec> specsById) {
    PartitionSpec spec = specsById == null ? null : specsById.get(manifest.partitionSpecId());
    if (spec != null) {
      return spec;
    }
    String schemaJson = avro.metadata("schema");
    String fieldsJson = avro.metadata("partition-spec");
    if (schemaJson == null || fieldsJson == null) {
      throw avro.error("unknown partition spec id " + manifest.partitionSpecId()
          + " and the file carries no schema/partition-spec metadata");
    }
    try {
      ObjectNode node = (ObjectNode) JsonUtil.parse("{}");
      node.put("spec-id", manifest.partitionSpecId());
      JsonNode fields = JsonUtil.parse(fieldsJson);
      node.set("fields", fields);
      return PartitionSpecParser.fromJson(SchemaParser.fromJson(schemaJson), node);
    } catch (RuntimeException e) {
      throw avro.error("cannot parse its partition spec metadata: " + e.getMessage());
    }
  }

  /** Decodes entry records against one spec; partition fields matched by field id, then by name. */
  private static final class EntryDecoder {
    private final AvroRecords avro;
    private final PartitionSpec spec;
    private final List<Type> partitionTypes;
    private Schema partitionSchema;
    private int[] partitionPositions;

    EntryDecoder(AvroRecords avro, PartitionSpec spec) {
      this.avro = avro;
      this.spec = spec;
      this.partitionTypes = new ArrayList<>(PartitionValues.types(spec));
    }

    /** The fields of a generic entry record, checked as the spec types them. */
    RawEntry fromRecord(GenericRecord record) {
      RawEntry e = new RawEntry();
      e.status = avro.toInt(avro.get(record, STATUS), "status");
      e.snapshotId = avro.toLong(avro.get(record, SNAPSHOT_ID), "snapshot_id");
      e.sequenceNumber = avro.toLong(avro.get(record, SEQUENCE_NUMBER), "sequence_number");
      e.fileSequenceNumber = avro.toLong(avro.get(record, FILE_SEQUENCE_NUMBER), "file_sequence_number");
      Object fileDatum = avro.get(record, DATA_FILE);
      if (fileDatum == null) {
        return e;
      }
      if (!(fileDatum instanceof GenericRecord)) {
        throw avro.error("data_file is not a record");
      }
      GenericRecord r = (GenericRecord) fileDatum;
      e.hasFile = true;
      e.path = AvroRecords.toStr(avro.get(r, FILE_PATH));
      e.format = AvroRecords.toStr(avro.get(r, FILE_FORMAT));
      Object partition = avro.get(r, PARTITION);
      if (partition != null && !(partition instanceof GenericRecord)) {
        throw avro.error("entry for " + e.path + " has no partition record");
      }
      e.partition = (GenericRecord) partition;
      e.recordCount = avro.toLong(avro.get(r, RECORD_COUNT), "record_count");
      e.fileSizeInBytes = avro.toLong(avro.get(r, FILE_SIZE), "file_size_in_bytes");
      e.content = avro.toInt(avro.get(r, CONTENT), "content");
      e.columnSizes = avro.toIntMap(avro.get(r, COLUMN_SIZES), "column_sizes", avro::toLong);
      e.valueCounts = avro.toIntMap(avro.get(r, VALUE_COUNTS), "value_counts", avro::toLong);
      e.nullValueCounts = avro.toIntMap(avro.get(r, NULL_VALUE_COUNTS), "null_value_counts", avro::toLong);
      e.nanValueCounts = avro.toIntMap(avro.get(r, NAN_VALUE_COUNTS), "nan_value_counts", avro::toLong);
      e.lowerBounds = avro.toIntMap(avro.get(r, LOWER_BOUNDS), "lower_bounds", avro::toBytes);
      e.upperBounds = avro.toIntMap(avro.get(r, UPPER_BOUNDS), "upper_bounds", avro::toBytes);
      e.keyMetadata = avro.toBytes(avro.get(r, KEY_METADATA), "key_metadata");
      e.splitOffsets = avro.toList(avro.get(r, SPLIT_OFFSETS), "split_offsets", avro::toLong);
      e.equalityIds = avro.toList(avro.get(r, EQUALITY_IDS), "equality_ids", avro::toInt);
      e.sortOrderId = avro.toInt(avro.get(r, SORT_ORDER_ID), "sort_order_id");
      e.firstRowId = avro.toLong(avro.get(r, FIRST_ROW_ID), "first_row_id");
      e.referencedDataFile = AvroRecords.toStr(avro.get(r, REFERENCED_DATA_FILE));
      e.contentOffset = avro.toLong(avro.get(r, CONTENT_OFFSET), "content_offset");
      e.contentSizeInBytes = avro.toLong(avro.get(r, CONTENT_SIZE), "content_size_in_bytes");
      return e;
    }

    ManifestEntry<?> decode(RawEntry e) {
      int statusId = required(e.status, STATUS, "status");
      ManifestEntry.Status status;
      try {
        status = ManifestEntry.Status.fromId(statusId);
      } catch (IllegalArgumentException ex) {
        throw avro.error(ex.getMessage());
      }
      if (!e.hasFile) {
        throw missing(DATA_FILE, "data_file");
      }
      return new ManifestEntry<>(status, e.snapshotId, e.sequenceNumber, e.fileSequenceNumber, decodeFile(e));
    }

    private <T> T required(T value, int fieldId, String name) {
      if (value == null) {
        throw missing(fieldId, name);
      }
      return value;
    }

    private RuntimeException missing(int fieldId, String name) {
      return avro.error("missing required field " + name + " (id " + fieldId + ")");
    }

    /** A {@link DataFile} or a {@link DeleteFile}, as the entry's {@code content} (field 134) says. */
    private ContentFile decodeFile(RawEntry e) {
      String path = required(e.path, FILE_PATH, "file_path");
      try {
        FileContent content = e.content == null ? FileContent.DATA : FileContent.fromId(e.content);
        if (content == FileContent.DATA) {
          return shared(DataFile.builder(spec), e, path).withFirstRowId(e.firstRowId).build();
        }
        return shared(DeleteFile.builder(spec).withContent(content), e, path)
            .withEqualityFieldIds(e.equalityIds)
            .withReferencedDataFile(e.referencedDataFile)
            .withContentOffset(e.contentOffset)
            .withContentSizeInBytes(e.contentSizeInBytes)
            .build();
      } catch (IllegalArgumentException ex) {
        throw avro.error("invalid entry for " + path + ": " + ex.getMessage());
      }
    }

    /** Decodes the fields data and delete files share. */
    private <B extends ContentFile.Builder<B>> B shared(B builder, RawEntry e, String path) {
      return builder
          .withPath(path)
          .withFormat(required(e.format, FILE_FORMAT, "file_format"))
          .withPartition(decodePartition(e.partition, path))
          .withRecordCount(required(e.recordCount, RECORD_COUNT, "record_count"))
          .withFileSizeInBytes(required(e.fileSizeInBytes, FILE_SIZE, "file_size_in_bytes"))
          .withMetrics(Metrics.ofOwnedMaps(e.columnSizes, e.valueCounts, e.nullValueCounts, e.nanValueCounts,
              e.lowerBounds, e.upperBounds))
          .withKeyMetadata(e.keyMetadata)
          .withSplitOffsets(e.splitOffsets)
          .withSortOrderId(e.sortOrderId);
    }

    private PartitionData decodePartition(GenericRecord partition, String path) {
      List<PartitionField> fields = spec.fields();
      if (fields.isEmpty()) {
        return PartitionData.empty();
      }
      if (partition == null) {
        throw avro.error("entry for " + path + " has no partition record");
      }
      if (partition.getSchema() != partitionSchema) {
        bindPartition(partition.getSchema());
      }
      Object[] values = new Object[fields.size()];
      for (int i = 0; i < values.length; i++) {
        int pos = partitionPositions[i];
        if (pos >= 0) {
          try {
            values[i] = PartitionValues.fromAvro(partitionTypes.get(i), partition.get(pos));
          } catch (RuntimeException e) {
            throw avro.error("entry for " + path + " has an invalid value for partition field "
                + fields.get(i).name() + ": " + e.getMessage());
          }
        }
      }
      return PartitionData.of(values);
    }

    private void bindPartition(Schema schema) {
      List<PartitionField> fields = spec.fields();
      int[] positions = new int[fields.size()];
      for (int i = 0; i < fields.size(); i++) {
        PartitionField pf = fields.get(i);
        positions[i] = -1;
        for (Schema.Field f : schema.getFields()) {
          Integer id = AvroRecords.fieldId(f);
          boolean match = id != null ? id == pf.fieldId()
              : f.name().equals(pf.name()) || f.name().equals(PartitionValues.avroName(pf.name()));
          if (match) {
            positions[i] = f.pos();
            if (spec.schema().findType(pf.sourceId()) == null) {
              partitionTypes.set(i, PartitionValues.floeType(f.schema()));
            }
            break;
          }
        }
      }
      this.partitionSchema = schema;
      this.partitionPositions = positions;
    }
  }
}
