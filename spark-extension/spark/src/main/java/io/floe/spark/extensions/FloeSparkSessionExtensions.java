package io.floe.spark.extensions;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import scala.runtime.AbstractFunction1;
import scala.runtime.AbstractFunction2;
import scala.runtime.BoxedUnit;

/**
 * Floe's SQL extensions ({@code spark.sql.extensions=io.floe.spark.extensions.FloeSparkSessionExtensions}):
 * registrations only. The catalog works without them; they add what Spark does not do for v2 tables.
 * <ul>
 *   <li>{@link FloeSqlParser}: {@code ALTER TABLE ... ADD|DROP|REPLACE PARTITION FIELD}, Iceberg's
 *       branch and tag DDL ({@link RefStatement}), and
 *       {@code ANALYZE TABLE} of a Floe table ({@link AnalyzeStatement}), as calls of Floe's
 *       procedures.</li>
 *   <li>{@link FloeDescribeColumnStrategy}: {@code DESCRIBE EXTENDED t col} of a Floe table shows
 *       the column statistics as Spark shows them for its own tables.</li>
 *   <li>{@link FloeShowCreateTableStrategy}: {@code SHOW CREATE TABLE} prints a statement that runs
 *       back (no table state among the properties, no LOCATION of the table's own warehouse folder).</li>
 *   <li>{@link FloeMetadataAnswerStrategy}: a query answered from metadata (a pushed aggregate, a
 *       metadata table) is collected on the driver, without a Spark job.</li>
 *   <li>{@link FloeLocalReadStrategy}: a small read (and an aggregate over it) is read on the driver,
 *       without a Spark job; {@link FloeLocalWriteStrategy}: an insert of a few literal rows is written
 *       and committed on the driver.</li>
 *   <li>{@link FloeClusteredInputWriteStrategy}: an insert into a partitioned table from partitioned
 *       files that already group the rows by the table's partition keys skips the shuffle.</li>
 *   <li>{@link MergeTargetKeyFilter}: a merge-on-read {@code MERGE} reads only the target rows whose
 *       keys the source may hold (a Bloom filter of the source keys before the join's shuffle).</li>
 * </ul>
 */
public final class FloeSparkSessionExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectParser(new ParserBuilder());
    extensions.injectPlannerStrategy(new FloeDescribeColumnStrategy.Builder());
    extensions.injectPlannerStrategy(new FloeShowCreateTableStrategy.Builder());
    extensions.injectPlannerStrategy(new FloeMetadataAnswerStrategy.Builder());
    extensions.injectPlannerStrategy(new FloeLocalReadStrategy.Builder());
    extensions.injectPlannerStrategy(new FloeLocalWriteStrategy.Builder());
    extensions.injectPlannerStrategy(new FloeClusteredInputWriteStrategy.Builder());
    extensions.injectOptimizerRule(new MergeTargetKeyFilterBuilder());
    return BoxedUnit.UNIT;
  }

  /** Builds the MERGE key filter for {@code SparkSessionExtensions.injectOptimizerRule}. */
  private static final class MergeTargetKeyFilterBuilder extends AbstractFunction1<SparkSession, Rule<LogicalPlan>> {
    @Override
    public Rule<LogicalPlan> apply(SparkSession spark) {
      return new MergeTargetKeyFilter(spark);
    }
  }

  /** Builds Floe's parser around the parser Spark (or an earlier extension) built. */
  private static final class ParserBuilder extends AbstractFunction2<SparkSession, ParserInterface, ParserInterface> {
    @Override
    public ParserInterface apply(SparkSession spark, ParserInterface delegate) {
      return new FloeSqlParser(spark, delegate);
    }
  }
}
