package io.floe.spark.source;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.colstats.ColumnStatistics;

/** The statistics of one Floe scan as Spark's connector API reports them. */
final class FloeStatistics implements Statistics {
  private final long sizeInBytes;
  private final long numRows;
  private final Map<NamedReference, ColumnStatistics> columnStats;

  FloeStatistics(long sizeInBytes, long numRows, Map<NamedReference, ColumnStatistics> columnStats) {
    this.sizeInBytes = sizeInBytes;
    this.numRows = numRows;
    this.columnStats = Map.copyOf(columnStats);
  }

  @Override
  public OptionalLong sizeInBytes() {
    return OptionalLong.of(sizeInBytes);
  }

  @Override
  public OptionalLong numRows() {
    return OptionalLong.of(numRows);
  }

  @Override
  public Map<NamedReference, ColumnStatistics> columnStats() {
    return columnStats;
  }

  /** One column's figures; null fields are unknown. Min and max are Spark internal values. */
  record Column(Long distinct, Object lower, Object upper, Long nulls, Long averageLength, Long maximumLength)
      implements ColumnStatistics {
    @Override
    public OptionalLong distinctCount() {
      return distinct == null ? OptionalLong.empty() : OptionalLong.of(distinct);
    }

    @Override
    public Optional<Object> min() {
      return Optional.ofNullable(lower);
    }

    @Override
    public Optional<Object> max() {
      return Optional.ofNullable(upper);
    }

    @Override
    public OptionalLong nullCount() {
      return nulls == null ? OptionalLong.empty() : OptionalLong.of(nulls);
    }

    @Override
    public OptionalLong avgLen() {
      return averageLength == null ? OptionalLong.empty() : OptionalLong.of(averageLength);
    }

    @Override
    public OptionalLong maxLen() {
      return maximumLength == null ? OptionalLong.empty() : OptionalLong.of(maximumLength);
    }
  }
}
