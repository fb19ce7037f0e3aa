package io.floe.format.scan;

import io.floe.format.manifest.ContentFile;
import io.floe.format.manifest.ContentFiles;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.FileContent;
import io.floe.format.manifest.FileFormat;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which live delete files apply to a data file, by the spec's rules: a deletion vector or position
 * delete file applies when it references the data file (or its partition) and its data sequence
 * number is at least the data file's; an equality delete applies when its sequence number is
 * strictly greater and it is in the same partition or unpartitioned.
 */
final class DeleteFileIndex {
  private final Map<String, ManifestEntry<DeleteFile>> dvByDataFile = new HashMap<>();
  private final Map<String, List<ManifestEntry<DeleteFile>>> positionByDataFile = new HashMap<>();
  private final Map<PartitionKey, List<ManifestEntry<DeleteFile>>> positionByPartition = new HashMap<>();
  private final Map<PartitionKey, List<ManifestEntry<DeleteFile>>> equalityByPartition = new HashMap<>();
  private final List<ManifestEntry<DeleteFile>> globalEquality = new ArrayList<>();
  private final Map<Integer, PartitionSpec> specs;

  DeleteFileIndex(List<ManifestEntry<DeleteFile>> deleteEntries, Map<Integer, PartitionSpec> specs) {
    this.specs = specs;
    for (ManifestEntry<DeleteFile> e : deleteEntries) {
      DeleteFile f = e.file();
      if (f.content() == FileContent.POSITION_DELETES) {
        String referenced = ContentFiles.referencedDataFile(f);
        if (f.format() == FileFormat.PUFFIN) {
          ManifestEntry<DeleteFile> previous = dvByDataFile.put(referenced, e);
          if (previous != null) {
            throw new IllegalStateException("Invalid table: more than one deletion vector for data file " + referenced
                + ": " + previous.file().path() + " and " + f.path());
          }
        } else if (referenced != null) {
          positionByDataFile.computeIfAbsent(referenced, k -> new ArrayList<>()).add(e);
        } else {
          positionByPartition.computeIfAbsent(partitionKey(f), k -> new ArrayList<>()).add(e);
        }
      } else if (f.content() == FileContent.EQUALITY_DELETES) {
        PartitionSpec spec = specs.get(f.specId());
        if (spec == null || spec.isUnpartitioned()) {
          globalEquality.add(e);
        } else {
          equalityByPartition.computeIfAbsent(partitionKey(f), k -> new ArrayList<>()).add(e);
        }
      }
    }
  }

  boolean isEmpty() {
    return dvByDataFile.isEmpty() && positionByDataFile.isEmpty() && positionByPartition.isEmpty()
        && equalityByPartition.isEmpty() && globalEquality.isEmpty();
  }

  /**
   * A spec id and partition tuple, compared by value: binary values by content, floating-point
   * values by their bits (a string form would confuse distinct binary values).
   */
  private record PartitionKey(int specId, PartitionData partition) {
  }

  private static PartitionKey partitionKey(ContentFile f) {
    return new PartitionKey(f.specId(), f.partition());
  }

  List<DeleteFile> forDataFile(long dataSequenceNumber, DataFile file) {
    List<DeleteFile> out = new ArrayList<>();
    ManifestEntry<DeleteFile> dv = dvByDataFile.get(file.path());
    if (dv != null && dv.dataSequenceNumber() >= dataSequenceNumber) {
      out.add(dv.file());
    } else {
      addPositionDeletes(out, positionByDataFile.get(file.path()), dataSequenceNumber);
      addPositionDeletes(out, positionByPartition.get(partitionKey(file)), dataSequenceNumber);
    }
    for (List<ManifestEntry<DeleteFile>> group : List.of(globalEquality,
        equalityByPartition.getOrDefault(partitionKey(file), List.of()))) {
      for (ManifestEntry<DeleteFile> e : group) {
        if (e.dataSequenceNumber() > dataSequenceNumber) {
          out.add(e.file());
        }
      }
    }
    return out;
  }

  private static void addPositionDeletes(List<DeleteFile> out, List<ManifestEntry<DeleteFile>> candidates, long dataSeq) {
    if (candidates == null) {
      return;
    }
    for (ManifestEntry<DeleteFile> e : candidates) {
      if (e.dataSequenceNumber() >= dataSeq) {
        out.add(e.file());
      }
    }
  }
}
