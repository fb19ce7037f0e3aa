package io.floe.format.scan;

import io.floe.format.FloeFormatException;
import io.floe.format.expr.Evaluator;
import io.floe.format.expr.Expression;
import io.floe.format.expr.Expressions;
import io.floe.format.expr.InclusiveMetricsEvaluator;
import io.floe.format.expr.ManifestEvaluator;
import io.floe.format.expr.Projections;
import io.floe.format.io.FileIO;
import io.floe.format.manifest.ContentFile;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.DeleteFile;
import io.floe.format.manifest.ManifestContent;
import io.floe.format.manifest.ManifestEntry;
import io.floe.format.manifest.ManifestFile;
import io.floe.format.manifest.ManifestLists;
import io.floe.format.manifest.ManifestReader;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.types.Schema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * Plans the files of a snapshot that may hold rows matching a filter: manifests are pruned by their
 * partition summaries, entries by partition value and by column bounds. Manifests are read in parallel.
 */
public final class TableScan {
  private static final ExecutorService PLANNING_POOL = Executors.newFixedThreadPool(
      Math.max(2, Math.min(8, Runtime.getRuntime().availableProcessors() * 2)), r -> {
        Thread t = new Thread(r, "floe-planning");
        t.setDaemon(true);
        return t;
      });

  private final FileIO io;
  private final TableMetadata metadata;
  private final Snapshot snapshot;
  private final Expression filter;
  private final Schema schema;

  private TableScan(FileIO io, TableMetadata metadata, Snapshot snapshot, Expression filter, Schema schema) {
    this.io = io;
    this.metadata = metadata;
    this.snapshot = snapshot;
    this.filter = filter;
    this.schema = schema;
  }

  public static TableScan of(FileIO io, TableMetadata metadata) {
    return new TableScan(io, metadata, metadata.currentSnapshot(), Expressions.alwaysTrue(), metadata.schema());
  }

  public TableScan useSnapshot(Snapshot snap) {
    return new TableScan(io, metadata, snap, filter, schema);
  }

  public TableScan filter(Expression expr) {
    return new TableScan(io, metadata, snapshot, Expressions.and(filter, expr), schema);
  }

  /**
   * The schema the filter's column names refer to (default: the table's current schema). A read of
   * an older snapshot with that snapshot's schema passes it here, so that a column renamed or
   * dropped since then binds to the field id it had, not to whatever holds its name now.
   */
  public TableScan schema(Schema readSchema) {
    return new TableScan(io, metadata, snapshot, filter, readSchema);
  }

  public Snapshot snapshot() {
    return snapshot;
  }

  public Expression filter() {
    return filter;
  }

  public ScanPlan planFiles() {
    if (snapshot == null) {
      return new ScanPlan(List.of(), new ScanMetrics(0, 0, 0, 0, 0, 0, 0));
    }
    List<ManifestFile> manifests = ManifestLists.read(io.newInputFile(snapshot.manifestListLocation()));
    Map<Integer, PartitionSpec> specs = new HashMap<>();
    metadata.specsById().forEach((id, spec) -> specs.put(id, spec.withSchema(schema)));
    Map<Integer, ManifestEvaluator> manifestEvaluators = new HashMap<>();
    Map<Integer, Evaluator> partitionEvaluators = new HashMap<>();
    InclusiveMetricsEvaluator metricsEvaluator = new InclusiveMetricsEvaluator(schema, filter);

    List<ManifestFile> dataManifests = new ArrayList<>();
    List<ManifestFile> deleteManifests = new ArrayList<>();
    int skippedManifests = 0;
    for (ManifestFile m : manifests) {
      PartitionSpec spec = specFor(specs, m);
      ManifestEvaluator evaluator = manifestEvaluators.computeIfAbsent(m.partitionSpecId(),
          id -> ManifestEvaluator.forPartitionFilter(Projections.inclusive(spec).project(filter), spec));
      if (!m.hasAddedFiles() && !m.hasExistingFiles()) {
        skippedManifests++;
      } else if (!evaluator.eval(m)) {
        skippedManifests++;
      } else if (m.content() == ManifestContent.DELETES) {
        deleteManifests.add(m);
      } else {
        dataManifests.add(m);
      }
    }

    List<ManifestEntry<DeleteFile>> deleteEntries = new ArrayList<>();
    readLivePerManifest(deleteManifests, m -> ManifestReader.readDeletes(io.newInputFile(m.path()), m, specs))
        .forEach(deleteEntries::addAll);
    DeleteFileIndex deletes = new DeleteFileIndex(deleteEntries, specs);
    List<List<ManifestEntry<DataFile>>> perManifest = readLivePerManifest(dataManifests,
        m -> ManifestReader.readData(io.newInputFile(m.path()), m, specs));

    List<FileScanTask> tasks = new ArrayList<>();
    int totalFiles = 0;
    int skippedFiles = 0;
    int deleteFilesUsed = 0;
    for (int i = 0; i < dataManifests.size(); i++) {
      PartitionSpec spec = specFor(specs, dataManifests.get(i));
      Evaluator partitionEvaluator = partitionEvaluators.computeIfAbsent(spec.specId(),
          id -> new Evaluator(spec.partitionType(), Projections.inclusive(spec).project(filter)));
      for (ManifestEntry<DataFile> e : perManifest.get(i)) {
        totalFiles++;
        if (!partitionEvaluator.eval(e.file().partition()) || !metricsEvaluator.eval(e.file())) {
          skippedFiles++;
          continue;
        }
        List<DeleteFile> applicable = deletes.isEmpty() ? List.of()
            : deletes.forDataFile(e.dataSequenceNumber(), e.file());
        deleteFilesUsed += applicable.size();
        tasks.add(new FileScanTask(e.file(), applicable, spec, e.dataSequenceNumber()));
      }
    }
    return new ScanPlan(tasks, new ScanMetrics(manifests.size(), manifests.size() - skippedManifests,
        skippedManifests, totalFiles, tasks.size(), skippedFiles, deleteFilesUsed));
  }

  private PartitionSpec specFor(Map<Integer, PartitionSpec> specs, ManifestFile m) {
    PartitionSpec spec = specs.get(m.partitionSpecId());
    if (spec == null) {
      throw new FloeFormatException("Invalid manifest list " + snapshot.manifestListLocation() + ": manifest "
          + m.path() + " uses partition spec " + m.partitionSpecId() + ", which the table does not define");
    }
    return spec;
  }

  private static <F extends ContentFile> List<List<ManifestEntry<F>>> readLivePerManifest(
      List<ManifestFile> manifests, Function<ManifestFile, List<ManifestEntry<F>>> read) {
    List<Future<List<ManifestEntry<F>>>> futures = new ArrayList<>();
    for (ManifestFile m : manifests) {
      futures.add(PLANNING_POOL.submit(() -> live(read.apply(m))));
    }
    List<List<ManifestEntry<F>>> out = new ArrayList<>();
    for (Future<List<ManifestEntry<F>>> f : futures) {
      try {
        out.add(f.get());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while planning a scan", e);
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException) {
          throw (RuntimeException) cause;
        }
        throw new FloeFormatException("Cannot read manifest: " + cause.getMessage(), cause);
      }
    }
    return out;
  }

  private static <F extends ContentFile> List<ManifestEntry<F>> live(List<ManifestEntry<F>> entries) {
    List<ManifestEntry<F>> out = new ArrayList<>(entries.size());
    for (ManifestEntry<F> e : entries) {
      if (e.status() != ManifestEntry.Status.DELETED) {
        out.add(e);
      }
    }
    return out;
  }
}
