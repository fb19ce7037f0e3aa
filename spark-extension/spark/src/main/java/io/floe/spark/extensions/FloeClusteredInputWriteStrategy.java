package io.floe.spark.extensions;

import io.floe.spark.source.FloeScan;
import io.floe.spark.write.DriverWrite;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection$;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.plans.logical.AppendData;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.OverwriteByExpression;
import org.apache.spark.sql.catalyst.plans.logical.OverwritePartitionsDynamic;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.RebalancePartitions;
import org.apache.spark.sql.catalyst.plans.logical.Sort;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.execution.PlanLater;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.CatalogFileIndex;
import org.apache.spark.sql.execution.datasources.FilePartition$;
import org.apache.spark.sql.execution.datasources.FileStatusWithMetadata;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.InMemoryFileIndex;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.execution.datasources.PartitionDirectory;
import org.apache.spark.sql.execution.datasources.PartitioningAwareFileIndex;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation;
import org.apache.spark.sql.types.StructField;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;
import scala.runtime.AbstractPartialFunction;

/**
 * Plans an insert into a partitioned Floe table without the shuffle its {@code hash} distribution
 * asks for, when the rows come from Hive-style partitioned files (read by path, or a partitioned
 * table of the session catalog) that already group them as that
 * shuffle would: every partition key of the table is computed from the source's partition folders
 * alone, each folder holds one file that Spark reads whole in one task, and no two folders give the
 * same key. Then each key's rows all come from one task, whose sort (kept) writes them as one file
 * (rolled over at the target file size): the files of the shuffle, or fewer where adaptive
 * execution would have split a large key's shuffled rows over several tasks. A bulk load of
 * partitioned Parquet (W12b) spent about a third of its time in that shuffle. A session-catalog
 * table's partitions are listed here, as its scan would list them, and the scan then reads that
 * listing, shuffle skipped or not: the write's read lists nothing twice (another read of the same
 * table in the query, a subquery's, lists on its own). A Floe table read as the source (with any
 * number of files per partition) skips it too when every key depends only on columns that are
 * identity-partitioned in every file it reads and no key's files hold more than one core's share
 * of the read: its scan then reads each key's files together in one task ({@link
 * FloeScan#groupedBy}, {@code FilePacking.packGroups}). Anything else
 * (other sources, folders of several files or files Spark splits, keys from data columns, filters
 * on folder columns or file metadata, {@code range} distribution, row-level operations) keeps it.
 */
public final class FloeClusteredInputWriteStrategy extends SparkStrategy {
  private static final Logger LOG = LoggerFactory.getLogger(FloeClusteredInputWriteStrategy.class);
  /** Spark setting: false always shuffles as the table's distribution mode asks (default true). */
  public static final String ENABLED_CONF = "spark.floe.write.skip-shuffle-of-clustered-input";

  private final SparkSession spark;

  FloeClusteredInputWriteStrategy(SparkSession spark) {
    this.spark = spark;
  }

  @Override
  public Seq<SparkPlan> apply(LogicalPlan plan) {
    Option<Write> write;
    LogicalPlan query;
    if (plan instanceof AppendData append) {
      write = append.write();
      query = append.query();
    } else if (plan instanceof OverwriteByExpression overwrite) {
      write = overwrite.write();
      query = overwrite.query();
    } else if (plan instanceof OverwritePartitionsDynamic overwrite) {
      write = overwrite.write();
      query = overwrite.query();
    } else {
      return FloeLocalReadStrategy.none();
    }
    if (write.isEmpty() || !DriverWrite.isPlainWrite(write.get())) {
      return FloeLocalReadStrategy.none();
    }
    LogicalPlan rewrittenQuery = withoutShuffle(query, spark);
    if (rewrittenQuery == null) {
      return FloeLocalReadStrategy.none();
    }
    // Spark's own strategy plans the write over the query without its repartition (or with it,
    // over a session-catalog table's listing made here)
    LogicalPlan rewritten = plan.withNewChildren(CollectionConverters.asScala(List.of(rewrittenQuery)).toList());
    return CollectionConverters.asScala(List.<SparkPlan>of(new PlanLater(rewritten))).toList();
  }

  private static boolean enabled(SparkSession spark) {
    String value = spark.conf().get(ENABLED_CONF, "true");
    if (!value.trim().equalsIgnoreCase("true") && !value.trim().equalsIgnoreCase("false")) {
      throw new IllegalArgumentException("Invalid Spark setting " + ENABLED_CONF + "=" + value
          + ": expected true or false (false: partitioned writes always shuffle as their distribution mode asks)");
    }
    return value.trim().equalsIgnoreCase("true");
  }

  /**
   * {@code query} (a local sort over the rebalance Spark's {@code V2Writes} adds for the write's
   * clustered distribution: {@code FloeWrite} asks for no number of partitions and does not
   * require the distribution strictly) without its rebalance, if its input is clustered as the
   * rebalance would cluster it and the setting allows; with it, over an input whose
   * session-catalog table's files this check listed (so that its scan does not list them again);
   * else null.
   */
  static LogicalPlan withoutShuffle(LogicalPlan query, SparkSession spark) {
    if (!(query instanceof Sort sort) || sort.global() || !(sort.child() instanceof RebalancePartitions rebalance)
        || rebalance.optNumPartitions().isDefined() || !enabled(spark)) {
      return null;
    }
    List<Expression> keys = CollectionConverters.asJava(rebalance.partitionExpressions());
    LogicalPlan input = rebalance.child();
    if (keys.isEmpty() || keys.stream().anyMatch(k -> k instanceof SortOrder || !FloeLocalReadStrategy.plain(k))) {
      return null; // range distribution, or keys that cannot be computed ahead of the write
    }
    Clustering clustering = clustering(keys, input);
    if (clustering == null) {
      return null;
    }
    LogicalPlan below = clustering.skip() ? clustering.input() : rebalance.withNewChildren(one(clustering.input()));
    return sort.withNewChildren(one(below));
  }

  private static Seq<LogicalPlan> one(LogicalPlan child) {
    return CollectionConverters.asScala(List.of(child)).toList();
  }

  /**
   * What to plan under the write's sort: {@code input}, its relation's files listed once, and
   * whether the rebalance can go.
   *
   * @param input the write's input, where a session-catalog table's files were listed here: its
   *     relation then reads that listing, so that the scan lists nothing again
   * @param skip whether every key's rows come from one file read whole by one task
   */
  private record Clustering(LogicalPlan input, boolean skip) {}

  /**
   * The {@link Clustering} of {@code input}: {@code skip} when every row with a given value of
   * {@code keys} comes from the same file, which Spark reads whole in one task: {@code input} is
   * projections and filters over partitioned files (listed in memory, or a session-catalog table's
   * partitions, listed here), each key depends on partition columns only, each partition folder
   * holds at most one file no longer than Spark's split size, and the folders' keys are distinct.
   * Null, with nothing listed, when the input's shape or keys already keep the shuffle.
   */
  private static Clustering clustering(List<Expression> keys, LogicalPlan input) {
    List<Expression> resolved = new ArrayList<>(keys);
    List<Expression> conditions = new ArrayList<>();
    LogicalPlan node = input;
    while (true) {
      if (node instanceof Project project) {
        Map<ExprId, Expression> aliases = new HashMap<>();
        for (NamedExpression named : CollectionConverters.asJava(project.projectList())) {
          if (named instanceof Alias alias) {
            aliases.put(alias.exprId(), alias.child());
          }
        }
        resolved.replaceAll(key -> substitute(key, aliases));
        conditions.replaceAll(condition -> substitute(condition, aliases));
        node = project.child();
      } else if (node instanceof Filter filter) {
        conditions.add(filter.condition());
        node = filter.child();
      } else {
        break;
      }
    }
    if (node instanceof DataSourceV2ScanRelation relation && relation.scan() instanceof FloeScan scan) {
      return floeClustering(resolved, input, relation, scan);
    }
    if (!(node instanceof LogicalRelation logical) || logical.isStreaming()
        || !(logical.relation() instanceof HadoopFsRelation files)
        || !(files.location() instanceof PartitioningAwareFileIndex || files.location() instanceof CatalogFileIndex)) {
      return null;
    }
    List<Attribute> partitionColumns = partitionColumns(logical, files);
    if (partitionColumns == null) {
      return null;
    }
    Set<ExprId> partitionIds = new HashSet<>();
    partitionColumns.forEach(a -> partitionIds.add(a.exprId()));
    for (Expression key : resolved) {
      if (!FloeLocalReadStrategy.plain(key)) {
        return null;
      }
      for (Attribute reference : CollectionConverters.asJava(key.references().toSeq())) {
        if (!partitionIds.contains(reference.exprId())) {
          return null; // a data column (or an unknown one): rows of one file may have many keys
        }
      }
    }
    // the columns of the files themselves (not the folders', nor _metadata, which a query that
    // reads it adds to the relation's output)
    Set<String> dataColumns = new HashSet<>(List.of(files.dataSchema().fieldNames())); // Set.of refuses duplicates
    Set<ExprId> dataIds = new HashSet<>();
    for (AttributeReference attribute : CollectionConverters.asJava(logical.output())) {
      if (!partitionIds.contains(attribute.exprId()) && dataColumns.contains(attribute.name())) {
        dataIds.add(attribute.exprId());
      }
    }
    for (Expression condition : conditions) {
      for (Attribute reference : CollectionConverters.asJava(condition.references().toSeq())) {
        if (!dataIds.contains(reference.exprId())) {
          // a folder column or file metadata (_metadata.file_size, ...): the scan would list fewer
          // files than here, so its split size, which depends on the bytes listed, could be smaller
          return null;
        }
      }
    }
    PartitioningAwareFileIndex index;
    LogicalPlan listedInput = input;
    if (files.location() instanceof CatalogFileIndex catalog) {
      // the catalog's partitions, listed as the scan would list them; the scan reads this listing
      InMemoryFileIndex listed;
      try {
        listed = catalog.filterPartitions(CollectionConverters.asScala(List.<Expression>of()).toList());
      } catch (RuntimeException e) {
        LOG.debug("Keeping the shuffle of a write: the partitions of its source table could not be listed", e);
        return null; // the scan lists them (and reports what fails) as it would without this check
      }
      HadoopFsRelation withListing = files.copy(listed, files.partitionSchema(), files.dataSchema(),
          files.bucketSpec(), files.fileFormat(), files.options(), files.sparkSession());
      LogicalPlan relation = logical.copy(withListing, logical.output(), logical.catalogTable(),
          logical.isStreaming(), logical.stream());
      listedInput = replace(input, logical, relation);
      index = listed;
    } else {
      index = (PartitioningAwareFileIndex) files.location();
    }
    boolean skip;
    try {
      skip = distinctKeysInWholeFiles(files, index, partitionColumns, resolved);
    } catch (RuntimeException e) {
      LOG.debug("Keeping the shuffle of a write: its keys could not be computed from folder values", e);
      skip = false; // the shuffle computes them
    }
    return skip || listedInput != input ? new Clustering(listedInput, skip) : null;
  }

  /**
   * The {@link Clustering} of an {@code input} that reads a Floe table: when every key depends
   * only on columns that are identity-partitioned in every planned file's spec, the scan is
   * replaced by one that reads the files of each key together in one task ({@link
   * FloeScan#groupedBy}), and the rebalance goes; null (the shuffle stays) when a key reads another
   * column, the scan already reports a partitioning, or one key's files hold more than a core's share.
   * Filters above the scan do not matter: the scan packs the files it planned with them.
   */
  private static Clustering floeClustering(List<Expression> resolved, LogicalPlan input,
      DataSourceV2ScanRelation relation, FloeScan scan) {
    if (scan.forRowLevelOperation() || relation.keyGroupedPartitioning().isDefined()) {
      return null;
    }
    Map<ExprId, AttributeReference> output = new HashMap<>();
    CollectionConverters.asJava(relation.output()).forEach(a -> output.put(a.exprId(), a));
    List<Attribute> columns = new ArrayList<>();
    Set<ExprId> seen = new HashSet<>();
    for (Expression key : resolved) {
      if (!FloeLocalReadStrategy.plain(key)) {
        return null;
      }
      for (Attribute reference : CollectionConverters.asJava(key.references().toSeq())) {
        if (!output.containsKey(reference.exprId())) {
          return null; // computed above the scan from something else
        }
        if (seen.add(reference.exprId())) {
          columns.add(output.get(reference.exprId()));
        }
      }
    }
    FloeScan grouped;
    try {
      List<Expression> bound = new ArrayList<>();
      resolved.forEach(key -> bound.add(FloeLocalReadExec.bind(key, columns)));
      UnsafeProjection project = UnsafeProjection$.MODULE$.create(CollectionConverters.asScala(bound).toList());
      grouped = scan.groupedBy(columns.stream().map(Attribute::name).toList(), row -> project.apply(row).copy());
    } catch (Exception e) { // Spark's errors (an invalid split size) too: the scan reports them as it would
      LOG.debug("Keeping the shuffle of a write: its keys could not be computed from partition values", e);
      return null; // the shuffle computes them
    }
    if (grouped == null) {
      return null;
    }
    LogicalPlan regrouped = relation.copy(relation.relation(), grouped, relation.output(),
        relation.keyGroupedPartitioning(), relation.ordering());
    return new Clustering(replace(input, relation, regrouped), true);
  }

  private static boolean distinctKeysInWholeFiles(HadoopFsRelation files, PartitioningAwareFileIndex index,
      List<Attribute> partitionColumns, List<Expression> resolved) {
    Seq<Expression> none = CollectionConverters.asScala(List.<Expression>of()).toList();
    Seq<PartitionDirectory> folders = index.listFiles(none, none);
    long maxSplitBytes = FilePartition$.MODULE$.maxSplitBytes(files.sparkSession(), folders);
    List<Expression> bound = new ArrayList<>();
    resolved.forEach(key -> bound.add(FloeLocalReadExec.bind(key, partitionColumns)));
    UnsafeProjection project = UnsafeProjection$.MODULE$.create(CollectionConverters.asScala(bound).toList());
    Set<UnsafeRow> seen = new HashSet<>();
    for (PartitionDirectory folder : CollectionConverters.asJava(folders)) {
      List<FileStatusWithMetadata> inFolder = CollectionConverters.asJava(folder.files());
      if (inFolder.isEmpty()) {
        continue;
      }
      if (inFolder.size() > 1 || inFolder.get(0).fileStatus().getLen() > maxSplitBytes) {
        return false; // a key's rows would come from several tasks
      }
      if (!seen.add(project.apply(folder.values()).copy())) {
        return false; // two folders, so maybe two tasks, give the same key
      }
    }
    return true;
  }

  /** The attributes of {@code logical}'s output that are {@code files}' partition columns, in their order. */
  private static List<Attribute> partitionColumns(LogicalRelation logical, HadoopFsRelation files) {
    List<AttributeReference> output = CollectionConverters.asJava(logical.output());
    List<Attribute> columns = new ArrayList<>();
    for (StructField field : files.partitionSchema().fields()) {
      Attribute match = null;
      for (AttributeReference attribute : output) {
        if (attribute.name().equals(field.name())) {
          match = attribute;
        }
      }
      if (match == null || !match.dataType().equals(field.dataType())) {
        return null;
      }
      columns.add(match);
    }
    return columns;
  }

  /** {@code plan} with its node {@code from} (the same object) replaced by {@code to}. */
  private static LogicalPlan replace(LogicalPlan plan, LogicalPlan from, LogicalPlan to) {
    return plan.transformUp(new AbstractPartialFunction<LogicalPlan, LogicalPlan>() {
      @Override
      public boolean isDefinedAt(LogicalPlan x) {
        return x == from;
      }

      @Override
      public <A1 extends LogicalPlan, B1> B1 applyOrElse(A1 x, scala.Function1<A1, B1> otherwise) {
        if (x == from) {
          @SuppressWarnings("unchecked")
          B1 replaced = (B1) to;
          return replaced;
        }
        return otherwise.apply(x);
      }
    });
  }

  /** {@code e} with each attribute defined by an alias of {@code aliases} replaced by the alias's expression. */
  private static Expression substitute(Expression e, Map<ExprId, Expression> aliases) {
    if (aliases.isEmpty()) {
      return e;
    }
    return e.transformUp(new AbstractPartialFunction<Expression, Expression>() {
      @Override
      public boolean isDefinedAt(Expression x) {
        return x instanceof Attribute a && aliases.containsKey(a.exprId());
      }

      @Override
      public <A1 extends Expression, B1> B1 applyOrElse(A1 x, scala.Function1<A1, B1> otherwise) {
        if (x instanceof Attribute a && aliases.containsKey(a.exprId())) {
          @SuppressWarnings("unchecked")
          B1 replaced = (B1) aliases.get(a.exprId());
          return replaced;
        }
        return otherwise.apply(x);
      }
    });
  }

  /** Builds the strategy for {@code SparkSessionExtensions.injectPlannerStrategy}. */
  public static final class Builder extends AbstractFunction1<SparkSession, SparkStrategy> {
    @Override
    public SparkStrategy apply(SparkSession spark) {
      return new FloeClusteredInputWriteStrategy(spark);
    }
  }
}
