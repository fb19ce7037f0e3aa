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
 * partition summaries, entries by partition value and by column bounds. Manifests are read and pruned in
 * parallel, on a pool of at most 16 threads, through the {@link ManifestCache}; the manifest list
 * through the {@link ManifestListCache}.
 */
public final class TableScan {
  // reads are mostly waits on object stores: more threads than cores, but a bounded number
  private static final ExecutorService PLANNING_POOL = Executors.newFixedThreadPool(
      Math.max(4, Math.min(16, Runtime.getRuntime().availableProcessors() * 4)), r -> {
        Thread t = new Thread(r, "floe-planning");
        t.setDaemon(true);
        return t;
      });

  private final FileIO io;
  private final TableMetadata metadata;
  private final Snapshot snapshot;
  private final Expression filter;
  private final Schema schema;
  private final ManifestCache cache;
  private final ManifestListCache lists;

  private TableScan(FileIO io, TableMetadata metadata, Snapshot snapshot, Expression filter, Schema schema,
      ManifestCache cache, ManifestListCache lists) {
    this.cache = cache;
    this.lists = lists;
    this.io = io;
    this.metadata = metadata;
    this.snapshot = snapshot;
    this.filter = filter;
    this.schema = schema;
  }

  public static TableScan of(FileIO io, TableMetadata metadata) {
    return new TableScan(io, metadata, metadata.currentSnapshot(), Expressions.alwaysTrue(), metadata.schema(),
        ManifestCache.shared(), ManifestListCache.shared());
  }

  public TableScan useSnapshot(Snapshot snap) {
    return new TableScan(io, metadata, snap, filter, schema, cache, lists);
  }

  public TableScan filter(Expression expr) {
    return new TableScan(io, metadata, snapshot, Expressions.and(filter, expr), schema, cache, lists);
  }

  /**
   * The schema the filter's column names refer to (default: the table's current schema). A read of
   * an older snapshot with that snapshot's schema passes it here, so that a column renamed or
   * dropped since then binds to the field id it had, not to whatever holds its name now.
   */
  public TableScan schema(Schema readSchema) {
    return new TableScan(io, metadata, snapshot, filter, readSchema, cache, lists);
  }

  /** Reads manifests through {@code manifestCache} instead of the shared one (tests). */
  public TableScan manifestCache(ManifestCache manifestCache) {
    return new TableScan(io, metadata, snapshot, filter, schema, manifestCache, lists);
  }

  /** Reads the manifest list through {@code manifestListCache} instead of the shared one (tests). */
  public TableScan manifestListCache(ManifestListCache manifestListCache) {
    return new TableScan(io, metadata, snapshot, filter, schema, cache, manifestListCache);
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
    List<ManifestFile> manifests = lists.manifests(snapshot,
        () -> ManifestLists.read(io.newInputFile(snapshot.manifestListLocation())));
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
        partitionEvaluators.computeIfAbsent(spec.specId(),
            id -> new Evaluator(spec.partitionType(), Projections.inclusive(spec).project(filter)));
      }
    }

    List<ManifestEntry<DeleteFile>> deleteEntries = new ArrayList<>();
    inParallel(deleteManifests, m -> cache.<DeleteFile>liveEntries(m, specFor(specs, m),
        () -> live(ManifestReader.readDeletes(io.newInputFile(m.path(), m.length()), m, specs))))
        .forEach(deleteEntries::addAll);
    DeleteFileIndex deletes = new DeleteFileIndex(deleteEntries, specs);
    // each manifest is read (or found in the cache) and its entries pruned in the same task, so that
    // decoding and pruning both run in parallel and only matching entries are kept
    List<Matched> perManifest = inParallel(dataManifests, m -> {
      PartitionSpec spec = specFor(specs, m);
      Evaluator partitionEvaluator = partitionEvaluators.get(spec.specId());
      List<ManifestEntry<DataFile>> entries = cache.<DataFile>liveEntries(m, spec,
          () -> live(ManifestReader.readData(io.newInputFile(m.path(), m.length()), m, specs)));
      List<ManifestEntry<DataFile>> matching = new ArrayList<>();
      for (ManifestEntry<DataFile> e : entries) {
        if (partitionEvaluator.eval(e.file().partition()) && metricsEvaluator.eval(e.file())) {
          matching.add(e);
        }
      }
      return new Matched(spec, entries.size(), matching);
    });

    List<FileScanTask> tasks = new ArrayList<>();
    int totalFiles = 0;
    int skippedFiles = 0;
    int deleteFilesUsed = 0;
    for (Matched matched : perManifest) {
      totalFiles += matched.live();
      skippedFiles += matched.live() - matched.entries().size();
      for (ManifestEntry<DataFile> e : matched.entries()) {
        List<DeleteFile> applicable = deletes.isEmpty() ? List.of()
            : deletes.forDataFile(e.dataSequenceNumber(), e.file());
        deleteFilesUsed += applicable.size();
        tasks.add(new FileScanTask(e.file(), applicable, matched.spec(), e.dataSequenceNumber()));
      }
    }
    return new ScanPlan(tasks, new ScanMetrics(manifests.size(), manifests.size() - skippedManifests,
        skippedManifests, totalFiles, tasks.size(), skippedFiles, deleteFilesUsed));
  }

  /** The live entries of one data manifest that may match the filter, and how many live entries it has. */
  private record Matched(PartitionSpec spec, int live, List<ManifestEntry<DataFile>> entries) {}

  private PartitionSpec specFor(Map<Integer, PartitionSpec> specs, ManifestFile m) {
    PartitionSpec spec = specs.get(m.partitionSpecId());
    if (spec == null) {
      throw new FloeFormatException("Invalid manifest list " + snapshot.manifestListLocation() + ": manifest "
          + m.path() + " uses partition spec " + m.partitionSpecId() + ", which the table does not define");
    }
    return spec;
  }

  private static <T> List<T> inParallel(List<ManifestFile> manifests, Function<ManifestFile, T> task) {
    List<Future<T>> futures = new ArrayList<>();
    for (ManifestFile m : manifests) {
      futures.add(PLANNING_POOL.submit(() -> task.apply(m)));
    }
    List<T> out = new ArrayList<>();
    for (Future<T> f : futures) {
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
