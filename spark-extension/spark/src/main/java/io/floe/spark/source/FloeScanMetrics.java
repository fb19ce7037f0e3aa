package io.floe.spark.source;

import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * What a Floe scan planned, as Spark SQL metrics of its scan node (shown in the SQL UI, readable
 * from the executed plan): manifests scanned and skipped, data files and bytes to read and data
 * files skipped. The driver reports them once the scan's input partitions are final, that is after
 * runtime filtering (dynamic partition pruning), so "data files read" is what the tasks read.
 *
 * <p>Spark instantiates metric classes by name (no-argument constructor) to aggregate values.
 */
public final class FloeScanMetrics {
  static final String TOTAL_MANIFESTS = "totalManifests";
  static final String SCANNED_MANIFESTS = "scannedManifests";
  static final String SKIPPED_MANIFESTS = "skippedManifests";
  static final String RESULT_DATA_FILES = "resultDataFiles";
  static final String SKIPPED_DATA_FILES = "skippedDataFiles";
  static final String RUNTIME_SKIPPED_DATA_FILES = "runtimeSkippedDataFiles";
  static final String RESULT_DATA_BYTES = "resultDataBytes";
  static final String INDEX_SKIPPED_DATA_FILES = "indexSkippedDataFiles";

  private FloeScanMetrics() {}

  static CustomMetric[] supported() {
    return new CustomMetric[] {
        new TotalManifests(), new ScannedManifests(), new SkippedManifests(), new ResultDataFiles(),
        new SkippedDataFiles(), new RuntimeSkippedDataFiles(), new ResultDataBytes(),
        new IndexSkippedDataFiles()};
  }

  static CustomTaskMetric value(String name, long value) {
    return new CustomTaskMetric() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public long value() {
        return value;
      }
    };
  }

  /** Base of the metrics below: a sum with a fixed name and description. */
  private abstract static class Named extends CustomSumMetric {
    private final String name;
    private final String description;

    Named(String name, String description) {
      this.name = name;
      this.description = description;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String description() {
      return description;
    }
  }

  public static final class TotalManifests extends Named {
    public TotalManifests() {
      super(TOTAL_MANIFESTS, "total manifests");
    }
  }

  public static final class ScannedManifests extends Named {
    public ScannedManifests() {
      super(SCANNED_MANIFESTS, "manifests scanned");
    }
  }

  public static final class SkippedManifests extends Named {
    public SkippedManifests() {
      super(SKIPPED_MANIFESTS, "manifests skipped");
    }
  }

  public static final class ResultDataFiles extends Named {
    public ResultDataFiles() {
      super(RESULT_DATA_FILES, "data files read");
    }
  }

  public static final class SkippedDataFiles extends Named {
    public SkippedDataFiles() {
      super(SKIPPED_DATA_FILES, "data files skipped");
    }
  }

  public static final class RuntimeSkippedDataFiles extends Named {
    public RuntimeSkippedDataFiles() {
      super(RUNTIME_SKIPPED_DATA_FILES, "data files skipped by runtime filters");
    }
  }

  public static final class ResultDataBytes extends Named {
    public ResultDataBytes() {
      super(RESULT_DATA_BYTES, "data file bytes read");
    }
  }

  public static final class IndexSkippedDataFiles extends Named {
    public IndexSkippedDataFiles() {
      super(INDEX_SKIPPED_DATA_FILES, "data files skipped by secondary indexes");
    }
  }
}
