package io.floe.format.manifest;

import static io.floe.format.manifest.ManifestSchemas.*;

import io.floe.format.io.InputFile;
import io.floe.format.io.OutputFile;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.Deflater;
import org.apache.avro.Schema;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;

/**
 * Manifest lists (Avro record {@code manifest_file}): a snapshot's manifests. Writing assigns the
 * commit's sequence number to manifests written for it and, in v3, first row ids to data manifests
 * that lack one (docs/format.md, 'Row lineage (v3)').
 */
public final class ManifestLists {
  private ManifestLists() {}

  /**
   * Writes the list to {@code out} (which must not exist) and returns the manifests as recorded:
   * unassigned sequence numbers become {@code sequenceNumber}, a missing added snapshot id becomes
   * {@code snapshotId}, and in v3 each data manifest without a first row id gets the next one,
   * starting at {@code firstRowId} and advancing by its added and existing rows.
   */
  public static List<ManifestFile> write(int formatVersion, OutputFile out, long snapshotId, Long parentSnapshotId,
      long sequenceNumber, Long firstRowId, List<ManifestFile> manifests) {
    Schema schema = ManifestSchemas.manifestFile(formatVersion);
    if (formatVersion >= 3 && firstRowId == null) {
      throw new IllegalArgumentException("Cannot write v3 manifest list " + out.location() + " without a first row id");
    }
    List<ManifestFile> assigned = assign(formatVersion, snapshotId, sequenceNumber, firstRowId, manifests);
    try (OutputStream stream = out.create();
        DataFileWriter<GenericRecord> writer = new DataFileWriter<>(new GenericDatumWriter<GenericRecord>(schema))) {
      writer.setCodec(CodecFactory.deflateCodec(Deflater.DEFAULT_COMPRESSION));
      writer.setMeta("snapshot-id", Long.toString(snapshotId));
      writer.setMeta("parent-snapshot-id", String.valueOf(parentSnapshotId));
      writer.setMeta("sequence-number", Long.toString(sequenceNumber));
      writer.setMeta("format-version", Integer.toString(formatVersion));
      if (formatVersion >= 3) {
        writer.setMeta("first-row-id", Long.toString(firstRowId));
      }
      writer.create(schema, stream);
      for (ManifestFile m : assigned) {
        writer.append(toRecord(schema, formatVersion, m));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write manifest list " + out.location(), e);
    }
    return assigned;
  }

  private static List<ManifestFile> assign(int formatVersion, long snapshotId, long sequenceNumber, Long firstRowId,
      List<ManifestFile> manifests) {
    List<ManifestFile> out = new ArrayList<>(manifests.size());
    Long nextRowId = firstRowId;
    for (ManifestFile m : manifests) {
      ManifestFile.Builder b = m.toBuilder();
      if (m.snapshotId() == null) {
        b.withSnapshotId(snapshotId);
      }
      if (m.sequenceNumber() == ManifestFile.UNASSIGNED_SEQ) {
        b.withSequenceNumber(sequenceNumber);
      }
      if (m.minSequenceNumber() == ManifestFile.UNASSIGNED_SEQ) {
        b.withMinSequenceNumber(sequenceNumber);
      }
      if (formatVersion >= 3 && m.content() == ManifestContent.DATA && m.firstRowId() == null) {
        if (m.addedRowsCount() == null || m.existingRowsCount() == null) {
          throw new IllegalArgumentException("Cannot assign row ids to manifest " + m.path()
              + ": its added/existing row counts are unknown");
        }
        b.withFirstRowId(nextRowId);
        nextRowId += m.addedRowsCount() + m.existingRowsCount();
      }
      out.add(b.build());
    }
    return out;
  }

  private static GenericRecord toRecord(Schema schema, int formatVersion, ManifestFile m) {
    GenericData.Record r = new GenericData.Record(schema);
    r.put("manifest_path", m.path());
    r.put("manifest_length", m.length());
    r.put("partition_spec_id", m.partitionSpecId());
    r.put("content", m.content().id());
    r.put("sequence_number", m.sequenceNumber());
    r.put("min_sequence_number", m.minSequenceNumber());
    r.put("added_snapshot_id", m.snapshotId());
    r.put("added_files_count", orZero(m.addedFilesCount()));
    r.put("existing_files_count", orZero(m.existingFilesCount()));
    r.put("deleted_files_count", orZero(m.deletedFilesCount()));
    r.put("added_rows_count", orZero(m.addedRowsCount()));
    r.put("existing_rows_count", orZero(m.existingRowsCount()));
    r.put("deleted_rows_count", orZero(m.deletedRowsCount()));
    r.put("key_metadata", m.keyMetadata());
    if (m.partitions() != null) {
      Schema summarySchema = AvroRecords.nonNull(schema.getField("partitions").schema()).getElementType();
      List<GenericRecord> summaries = new ArrayList<>();
      for (PartitionFieldSummary s : m.partitions()) {
        GenericData.Record sr = new GenericData.Record(summarySchema);
        sr.put("contains_null", s.containsNull());
        sr.put("contains_nan", s.containsNaN());
        sr.put("lower_bound", s.lowerBound());
        sr.put("upper_bound", s.upperBound());
        summaries.add(sr);
      }
      r.put("partitions", summaries);
    }
    if (formatVersion >= 3) {
      r.put("first_row_id", m.content() == ManifestContent.DATA ? m.firstRowId() : null);
    }
    return r;
  }

  private static int orZero(Integer v) {
    return v == null ? 0 : v;
  }

  private static long orZero(Long v) {
    return v == null ? 0L : v;
  }

  /** Reads a manifest list written by any v1-v3 writer; fields missing in v1 read as 0 / DATA / null. */
  public static List<ManifestFile> read(InputFile in) {
    AvroRecords avro = AvroRecords.read(in, "manifest list");
    if (avro.schema().getType() != Schema.Type.RECORD || !avro.has(avro.schema(), MANIFEST_PATH)) {
      throw avro.error("not a manifest list (no manifest_path field with id 500)");
    }
    List<ManifestFile> out = new ArrayList<>();
    for (GenericRecord r : avro.records()) {
      out.add(decode(avro, r));
    }
    return out;
  }

  private static ManifestFile decode(AvroRecords avro, GenericRecord r) {
    String path = AvroRecords.toStr(avro.getRequired(r, MANIFEST_PATH, "manifest_path"));
    Integer content = avro.toInt(avro.get(r, MANIFEST_CONTENT), "content");
    Long seq = avro.toLong(avro.get(r, MANIFEST_SEQ), "sequence_number");
    Long minSeq = avro.toLong(avro.get(r, MIN_SEQ), "min_sequence_number");
    ManifestFile.Builder b = ManifestFile.builder(path)
        .withLength(avro.toLong(avro.getRequired(r, MANIFEST_LENGTH, "manifest_length"), "manifest_length"))
        .withPartitionSpecId(avro.toInt(avro.getRequired(r, SPEC_ID, "partition_spec_id"), "partition_spec_id"))
        .withSequenceNumber(seq == null ? 0L : seq)
        .withMinSequenceNumber(minSeq == null ? 0L : minSeq)
        .withSnapshotId(avro.toLong(avro.get(r, ADDED_SNAPSHOT_ID), "added_snapshot_id"))
        .withAddedFiles(avro.toInt(avro.get(r, ADDED_FILES), "added_files_count"),
            avro.toLong(avro.get(r, ADDED_ROWS), "added_rows_count"))
        .withExistingFiles(avro.toInt(avro.get(r, EXISTING_FILES), "existing_files_count"),
            avro.toLong(avro.get(r, EXISTING_ROWS), "existing_rows_count"))
        .withDeletedFiles(avro.toInt(avro.get(r, DELETED_FILES), "deleted_files_count"),
            avro.toLong(avro.get(r, DELETED_ROWS), "deleted_rows_count"))
        .withPartitions(avro.toList(avro.get(r, PARTITIONS), "partitions", (s, n) -> decodeSummary(avro, s)))
        .withKeyMetadata(avro.toBytes(avro.get(r, MANIFEST_KEY_METADATA), "key_metadata"))
        .withFirstRowId(avro.toLong(avro.get(r, MANIFEST_FIRST_ROW_ID), "first_row_id"));
    try {
      b.withContent(content == null ? ManifestContent.DATA : ManifestContent.fromId(content));
    } catch (IllegalArgumentException e) {
      throw avro.error("manifest " + path + ": " + e.getMessage());
    }
    return b.build();
  }

  private static PartitionFieldSummary decodeSummary(AvroRecords avro, Object datum) {
    if (!(datum instanceof GenericRecord)) {
      throw avro.error("partitions is not a list of field summaries");
    }
    GenericRecord s = (GenericRecord) datum;
    Object containsNull = avro.get(s, CONTAINS_NULL);
    Object containsNaN = avro.get(s, CONTAINS_NAN);
    return new PartitionFieldSummary(!Boolean.FALSE.equals(containsNull),
        containsNaN == null ? null : (Boolean) containsNaN,
        avro.toBytes(avro.get(s, LOWER_BOUND), "lower_bound"), avro.toBytes(avro.get(s, UPPER_BOUND), "upper_bound"));
  }
}
