package io.floe.spark.metadata;

import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.metadata.Snapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * {@code files}, {@code data_files} and {@code delete_files}: the live (ADDED or EXISTING) content
 * files of the selected snapshot, one row per manifest entry; {@code all_data_files}: the live data
 * files of every manifest of every snapshot still in the metadata, each manifest read once (a file
 * listed by two manifests shows twice, as in Iceberg). Each row ends with {@code readable_metrics}.
 */
final class FilesTable extends MetadataTable {
  /** Which manifests the table reads. */
  enum Kind {
    ALL, DATA, DELETES
  }

  private final Kind kind;
  private final boolean allSnapshots;
  private final ContentFileRows files;
  private final ReadableMetrics metrics;

  FilesTable(MetadataTableSource source, String type, Kind kind, boolean allSnapshots) {
    this(source, type, kind, allSnapshots, new ContentFileRows(source.metadata()),
        new ReadableMetrics(source.metadata().schema()));
  }

  private FilesTable(MetadataTableSource source, String type, Kind kind, boolean allSnapshots,
      ContentFileRows files, ReadableMetrics metrics) {
    super(source, type, files.schema().add("readable_metrics", metrics.sparkType(), true));
    this.kind = kind;
    this.allSnapshots = allSnapshots;
    this.files = files;
    this.metrics = metrics;
  }

  @Override
  List<InternalRow> rows() {
    List<InternalRow> rows = new ArrayList<>();
    for (ManifestFile manifest : manifests()) {
      if (kind == Kind.DATA && manifest.content() != ManifestContent.DATA
          || kind == Kind.DELETES && manifest.content() != ManifestContent.DELETES) {
        continue;
      }
      for (ManifestEntry<?> entry : source().entries(manifest)) {
        if (entry.isLive()) {
          Object[] values = files.values(entry.file());
          Object[] withMetrics = Arrays.copyOf(values, values.length + 1);
          withMetrics[values.length] = metrics.row(entry.file());
          rows.add(new GenericInternalRow(withMetrics));
        }
      }
    }
    return rows;
  }

  private Iterable<ManifestFile> manifests() {
    MetadataTableSource src = source();
    if (!allSnapshots) {
      return src.snapshot() == null ? List.of() : src.manifests(src.snapshot());
    }
    Set<String> seen = new LinkedHashSet<>();
    List<ManifestFile> out = new ArrayList<>();
    for (Snapshot snap : src.metadata().snapshots()) {
      for (ManifestFile m : src.manifests(snap)) {
        if (seen.add(m.path())) {
          out.add(m);
        }
      }
    }
    return out;
  }
}
