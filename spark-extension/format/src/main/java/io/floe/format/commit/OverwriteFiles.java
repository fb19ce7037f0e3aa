package io.floe.format.commit;

import io.floe.format.expr.Evaluator;
import io.floe.format.expr.Expression;
import io.floe.format.expr.InclusiveMetricsEvaluator;
import io.floe.format.expr.Projections;
import io.floe.format.expr.StrictMetricsEvaluator;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Replaces data: removes named files, the files whose partitions match a row filter (static
 * overwrite), or every file in a partition that receives new files (dynamic overwrite), and adds
 * new files, in one snapshot. The set of files to remove is recomputed against each retry's base,
 * so a concurrent append into an overwritten partition is replaced too; explicitly named files that
 * vanished concurrently fail the commit with {@link ValidationException}.
 */
public final class OverwriteFiles extends SnapshotProducer {
  private final Set<String> explicitDeletes = new LinkedHashSet<>();
  private Expression rowFilter = null;
  private boolean replaceAddedPartitions = false;
  private boolean replaceAll = false;

  public OverwriteFiles(TableOperations ops) {
    super(ops);
  }

  public OverwriteFiles addFile(DataFile file) {
    add(file);
    return this;
  }

  public OverwriteFiles deleteFile(String path) {
    explicitDeletes.add(path);
    return this;
  }

  /**
   * Removes every live file whose partition or column bounds guarantee all its rows match
   * {@code filter}; a file that might hold both matching and non-matching rows fails the commit.
   */
  public OverwriteFiles overwriteByRowFilter(Expression filter) {
    this.rowFilter = filter;
    return this;
  }

  /** Dynamic partition overwrite: every partition that receives a file is replaced. */
  public OverwriteFiles replaceAddedPartitions() {
    this.replaceAddedPartitions = true;
    set("replace-partitions", "true");
    return this;
  }

  /** Removes every live file (INSERT OVERWRITE of an unpartitioned table, truncate). */
  public OverwriteFiles replaceAll() {
    this.replaceAll = true;
    return this;
  }

  @Override
  protected String operation(boolean addsData, boolean removesData, boolean addsDeletes) {
    if (!removesData) {
      return "append";
    }
    return addsData ? "overwrite" : "delete";
  }

  private InclusiveMetricsEvaluator metricsEvaluator = null;
  private Schema metricsSchema = null;

  /** Column bounds that prove a file holds no matching row keep it (it neither goes nor conflicts). */
  private InclusiveMetricsEvaluator metrics(TableMetadata base) {
    if (metricsEvaluator == null || metricsSchema != base.schema()) {
      metricsSchema = base.schema();
      metricsEvaluator = new InclusiveMetricsEvaluator(metricsSchema, rowFilter);
    }
    return metricsEvaluator;
  }

  private StrictMetricsEvaluator strictEvaluator = null;
  private Schema strictSchema = null;

  /** Column bounds that prove every row of a file matches remove the whole file. */
  private StrictMetricsEvaluator strictMetrics(TableMetadata base) {
    if (strictEvaluator == null || strictSchema != base.schema()) {
      strictSchema = base.schema();
      strictEvaluator = new StrictMetricsEvaluator(strictSchema, rowFilter);
    }
    return strictEvaluator;
  }

  @Override
  protected boolean mayRemoveDataFiles() {
    return !explicitDeletes.isEmpty() || rowFilter != null || replaceAddedPartitions || replaceAll;
  }

  @Override
  protected Set<String> filesToRemove(TableMetadata base, List<ManifestEntry<DataFile>> liveEntries) {
    Set<String> remove = new LinkedHashSet<>(explicitDeletes);
    Map<Integer, Set<PartitionData>> replacedBySpec = new HashMap<>();
    if (replaceAddedPartitions) {
      for (DataFile f : addedFiles()) {
        replacedBySpec.computeIfAbsent(f.specId(), id -> new HashSet<>()).add(f.partition());
      }
      if (replacedBySpec.size() > 1) {
        throw new IllegalStateException("Cannot replace partitions of several specs at once: " + replacedBySpec.keySet());
      }
    }
    Map<Integer, Evaluator> strict = new HashMap<>();
    Map<Integer, Evaluator> inclusive = new HashMap<>();
    for (ManifestEntry<DataFile> e : liveEntries) {
      DataFile f = e.file();
      if (replaceAll) {
        remove.add(f.path());
      } else if (replaceAddedPartitions && !replacedBySpec.isEmpty()) {
        if (replacesPartitionOf(base, f, replacedBySpec)) {
          remove.add(f.path());
        }
      } else if (rowFilter != null) {
        PartitionSpec spec = base.specsById().get(f.specId());
        Evaluator all = strict.computeIfAbsent(f.specId(),
            id -> new Evaluator(spec.partitionType(), Projections.strict(spec).project(rowFilter)));
        Evaluator some = inclusive.computeIfAbsent(f.specId(),
            id -> new Evaluator(spec.partitionType(), Projections.inclusive(spec).project(rowFilter)));
        if (all.eval(f.partition()) || (some.eval(f.partition()) && strictMetrics(base).eval(f))) {
          remove.add(f.path());
        } else if (some.eval(f.partition()) && metrics(base).eval(f)) {
          throw new ValidationException("Cannot overwrite by filter " + rowFilter + " in table " + ops().tableName()
              + ": data file " + f.path() + " may contain rows that do not match the filter");
        }
      }
    }
    return remove;
  }

  /**
   * Whether the dynamic overwrite replaces {@code f}: a file of the spec the new files use when its
   * partition receives files; a file of an older spec when all its rows fall into such partitions
   * (see {@link PartitionReplacement}). One that may hold rows of both fails the commit.
   */
  private boolean replacesPartitionOf(TableMetadata base, DataFile f, Map<Integer, Set<PartitionData>> replacedBySpec) {
    Map.Entry<Integer, Set<PartitionData>> replaced = replacedBySpec.entrySet().iterator().next();
    if (f.specId() == replaced.getKey()) {
      return replaced.getValue().contains(f.partition());
    }
    if (replacement == null || replacementBase != base) {
      replacementBase = base;
      replacement = new PartitionReplacement(base.schema(), base.specsById().get(replaced.getKey()),
          replaced.getValue());
    }
    PartitionSpec fileSpec = base.specsById().get(f.specId());
    switch (replacement.outcome(f, fileSpec)) {
      case REMOVE:
        return true;
      case KEEP:
        return false;
      default:
        PartitionSpec target = base.specsById().get(replaced.getKey());
        throw new ValidationException("Cannot overwrite partitions of table " + ops().tableName()
            + " dynamically: data file " + f.path() + " was written under partition "
            + PartitionReplacement.describe(fileSpec, base.schema()) + " and may hold rows of both overwritten and "
            + "other partitions of the current " + PartitionReplacement.describe(target, base.schema())
            + ", so it cannot be replaced whole. Rewrite the older files into the current spec first (CALL "
            + "floe.system.rewrite_data_files with option rewrite-all), or overwrite with a static PARTITION clause "
            + "or condition that covers whole old files");
    }
  }

  private PartitionReplacement replacement = null;
  private TableMetadata replacementBase = null;
}
