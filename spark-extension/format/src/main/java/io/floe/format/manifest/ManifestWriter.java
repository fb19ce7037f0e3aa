package io.floe.format.manifest;

import io.floe.format.io.OutputFile;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.partition.PartitionSpecParser;
import io.floe.format.types.Schema;
import io.floe.format.types.SchemaParser;
import io.floe.format.types.Type;
import java.io.Closeable;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.Deflater;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;

/**
 * Writes one manifest (Avro, deflate) and describes it as a {@link ManifestFile}. New files are
 * written ADDED with null sequence numbers (inherited from the manifest list); files carried over are
 * written EXISTING or DELETED with their sequence numbers kept. Start with {@link #write}.
 */
public final class ManifestWriter implements Closeable {
  private final int formatVersion;
  private final PartitionSpec spec;
  private final OutputFile out;
  private final Long snapshotId;
  private final ManifestContent content;
  private final List<Type> partitionTypes;
  private final org.apache.avro.Schema entrySchema;
  private final org.apache.avro.Schema fileSchema;
  private final org.apache.avro.Schema partitionSchema;
  private final DataFileWriter<GenericRecord> writer;
  private final CountingStream stream;
  private final PartitionSummaries summaries;

  private int addedFiles;
  private int existingFiles;
  private int deletedFiles;
  private long addedRows;
  private long existingRows;
  private long deletedRows;
  private Long minDataSequenceNumber = null;
  private boolean closed = false;

  private ManifestWriter(int formatVersion, PartitionSpec spec, Schema schema, OutputFile out, Long snapshotId,
      ManifestContent content) throws IOException {
    this.formatVersion = formatVersion;
    this.spec = spec;
    this.out = out;
    this.snapshotId = snapshotId;
    this.content = content;
    this.partitionTypes = PartitionValues.types(spec);
    this.entrySchema = ManifestSchemas.manifestEntry(formatVersion, spec);
    this.fileSchema = entrySchema.getField("data_file").schema();
    this.partitionSchema = fileSchema.getField("partition").schema();
    this.summaries = new PartitionSummaries(partitionTypes);
    this.stream = new CountingStream(out.create());
    this.writer = new DataFileWriter<>(new GenericDatumWriter<GenericRecord>(entrySchema));
    writer.setCodec(CodecFactory.deflateCodec(Deflater.DEFAULT_COMPRESSION));
    writer.setMeta("schema", SchemaParser.toJson(schema));
    writer.setMeta("schema-id", Integer.toString(schema.schemaId()));
    writer.setMeta("partition-spec", PartitionSpecParser.fieldsToJson(spec));
    writer.setMeta("partition-spec-id", Integer.toString(spec.specId()));
    writer.setMeta("format-version", Integer.toString(formatVersion));
    writer.setMeta("content", content.metadataName());
    writer.create(entrySchema, stream);
  }

  /**
   * Opens a manifest for {@code spec} at {@code out} (which must not exist). {@code snapshotId} is
   * written on ADDED and DELETED entries; null lets readers inherit the list's {@code added_snapshot_id}.
   */
  public static ManifestWriter write(int formatVersion, PartitionSpec spec, Schema schema, OutputFile out,
      Long snapshotId, ManifestContent content) {
    try {
      return new ManifestWriter(formatVersion, spec, schema, out, snapshotId, content);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create manifest " + out.location(), e);
    }
  }

  /** Adds a new file; its sequence numbers are inherited from the manifest when the list is written. */
  public void add(ContentFile file) {
    append(ManifestEntry.Status.ADDED, snapshotId, null, null, file);
  }

  /** Adds a new file with an explicit (older) data sequence number, as compaction does. */
  public void add(ContentFile file, long dataSequenceNumber) {
    append(ManifestEntry.Status.ADDED, snapshotId, dataSequenceNumber, null, file);
  }

  /** Carries a live file over unchanged: its snapshot id and sequence numbers are kept. */
  public void existing(ManifestEntry<?> entry) {
    requireSequenceNumber(entry);
    append(ManifestEntry.Status.EXISTING, entry.snapshotId(), entry.dataSequenceNumber(),
        entry.fileSequenceNumber(), entry.file());
  }

  /** Marks a file deleted by this writer's snapshot; its sequence numbers are kept. */
  public void delete(ManifestEntry<?> entry) {
    requireSequenceNumber(entry);
    append(ManifestEntry.Status.DELETED, snapshotId, entry.dataSequenceNumber(), entry.fileSequenceNumber(),
        entry.file());
  }

  /**
   * Carries an entry over as it is, status included (ADDED, EXISTING or DELETED), with its snapshot
   * id and sequence numbers: for a manifest rewritten only to change paths.
   */
  public void copy(ManifestEntry<?> entry) {
    requireSequenceNumber(entry);
    append(entry.status(), entry.snapshotId(), entry.dataSequenceNumber(), entry.fileSequenceNumber(), entry.file());
  }

  private void requireSequenceNumber(ManifestEntry<?> entry) {
    if (entry.dataSequenceNumber() == null) {
      throw new IllegalArgumentException("Cannot write " + entry.file().path() + " to manifest " + out.location()
          + " as existing or deleted: its data sequence number is unknown (read entries through ManifestReader)");
    }
  }

  private void append(ManifestEntry.Status status, Long entrySnapshotId, Long dataSeq, Long fileSeq, ContentFile file) {
    if (closed) {
      throw new IllegalStateException("Cannot add to closed manifest " + out.location());
    }
    if (!content.accepts(file.content())) {
      throw new IllegalArgumentException("Cannot add " + file.content() + " file " + file.path() + " to a "
          + content + " manifest " + out.location());
    }
    if (file.specId() != spec.specId()) {
      throw new IllegalArgumentException("Cannot add " + file.path() + " with partition spec " + file.specId()
          + " to manifest " + out.location() + " for spec " + spec.specId());
    }
    GenericData.Record entry = new GenericData.Record(entrySchema);
    entry.put("status", status.id());
    entry.put("snapshot_id", entrySnapshotId);
    entry.put("sequence_number", dataSeq);
    entry.put("file_sequence_number", fileSeq);
    entry.put("data_file", toRecord(file));
    try {
      writer.append(entry);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write manifest " + out.location(), e);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("Cannot write " + file.path() + " to manifest " + out.location()
          + ": " + e.getMessage(), e);
    }
    summaries.update(file.partition());
    if (dataSeq != null && status != ManifestEntry.Status.DELETED
        && (minDataSequenceNumber == null || dataSeq < minDataSequenceNumber)) {
      minDataSequenceNumber = dataSeq;
    }
    switch (status) {
      case ADDED:
        addedFiles += 1;
        addedRows += file.recordCount();
        break;
      case EXISTING:
        existingFiles += 1;
        existingRows += file.recordCount();
        break;
      default:
        deletedFiles += 1;
        deletedRows += file.recordCount();
        break;
    }
  }

  /** The {@code data_file} record; fields a data (or delete) file does not have are written null. */
  private GenericData.Record toRecord(ContentFile file) {
    DataFile data = file instanceof DataFile d ? d : null;
    DeleteFile deletes = file instanceof DeleteFile d ? d : null;
    GenericData.Record r = new GenericData.Record(fileSchema);
    r.put("content", file.content().id());
    r.put("file_path", file.path());
    r.put("file_format", file.format().name());
    r.put("partition", toPartition(file));
    r.put("record_count", file.recordCount());
    r.put("file_size_in_bytes", file.fileSizeInBytes());
    r.put("column_sizes", intMap("column_sizes", file.columnSizes()));
    r.put("value_counts", intMap("value_counts", file.valueCounts()));
    r.put("null_value_counts", intMap("null_value_counts", file.nullValueCounts()));
    r.put("nan_value_counts", intMap("nan_value_counts", file.nanValueCounts()));
    r.put("lower_bounds", intMap("lower_bounds", file.lowerBounds()));
    r.put("upper_bounds", intMap("upper_bounds", file.upperBounds()));
    r.put("key_metadata", file.keyMetadata());
    r.put("split_offsets", file.splitOffsets());
    r.put("equality_ids", deletes == null ? null : deletes.equalityFieldIds());
    r.put("sort_order_id", file.sortOrderId());
    r.put("referenced_data_file", deletes == null ? null : deletes.referencedDataFile());
    if (formatVersion >= 3) {
      r.put("first_row_id", data == null ? null : data.firstRowId());
      r.put("content_offset", deletes == null ? null : deletes.contentOffset());
      r.put("content_size_in_bytes", deletes == null ? null : deletes.contentSizeInBytes());
    }
    return r;
  }

  private GenericData.Record toPartition(ContentFile file) {
    PartitionData partition = file.partition();
    if (partition.size() != partitionTypes.size()) {
      throw new IllegalArgumentException("Cannot write " + file.path() + " to manifest " + out.location()
          + ": partition " + partition + " does not match spec " + spec);
    }
    GenericData.Record r = new GenericData.Record(partitionSchema);
    for (int i = 0; i < partitionTypes.size(); i++) {
      Type type = partitionTypes.get(i);
      Object value = partition.get(i);
      if (!PartitionValues.isValid(type, value)) {
        throw new IllegalArgumentException("Cannot write " + file.path() + " to manifest " + out.location()
            + ": partition value " + value + " (" + value.getClass().getSimpleName() + ") for field "
            + spec.fields().get(i).name() + " is not a " + type);
      }
      r.put(i, PartitionValues.toAvro(type, partitionSchema.getFields().get(i).schema(), value));
    }
    return r;
  }

  private <V> List<GenericData.Record> intMap(String field, Map<Integer, V> map) {
    if (map == null || map.isEmpty()) {
      return null;
    }
    org.apache.avro.Schema kv = AvroRecords.nonNull(fileSchema.getField(field).schema()).getElementType();
    List<GenericData.Record> out = new ArrayList<>(map.size());
    for (Map.Entry<Integer, V> e : map.entrySet()) {
      GenericData.Record pair = new GenericData.Record(kv);
      pair.put("key", e.getKey());
      Object value = e.getValue();
      pair.put("value", value instanceof ByteBuffer ? ((ByteBuffer) value).duplicate() : value);
      out.add(pair);
    }
    return out;
  }

  @Override
  public void close() throws IOException {
    if (!closed) {
      closed = true;
      writer.close();
    }
  }

  /** The written manifest; call after {@link #close()}. Sequence numbers are unassigned until listed. */
  public ManifestFile toManifestFile() {
    if (!closed) {
      throw new IllegalStateException("Cannot describe manifest " + out.location() + " before it is closed");
    }
    // Explicit sequence numbers are never above the commit's, so an explicit minimum stays right when
    // inheriting entries are mixed in; with none, the list assigns the commit's sequence number.
    long minSeq = minDataSequenceNumber == null ? ManifestFile.UNASSIGNED_SEQ : minDataSequenceNumber;
    return ManifestFile.builder(out.location())
        .withLength(stream.count)
        .withPartitionSpecId(spec.specId())
        .withContent(content)
        .withSequenceNumber(ManifestFile.UNASSIGNED_SEQ)
        .withMinSequenceNumber(minSeq)
        .withSnapshotId(snapshotId)
        .withAddedFiles(addedFiles, addedRows)
        .withExistingFiles(existingFiles, existingRows)
        .withDeletedFiles(deletedFiles, deletedRows)
        .withPartitions(summaries.summaries())
        .build();
  }

  /** Counts bytes so the manifest length is known without another file system call. */
  private static final class CountingStream extends FilterOutputStream {
    private long count = 0;

    CountingStream(OutputStream out) {
      super(out);
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      count += 1;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      count += len;
    }
  }
}
