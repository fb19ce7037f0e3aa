package io.floe.spark;

/**
 * The data source {@code iceberg} as another name of {@link FloeSource}, only when Apache
 * Iceberg's Spark runtime is not on the classpath: Spark refuses a short name that two registered
 * sources claim, so with Iceberg's runtime present this alias takes a name nobody asks for and
 * {@code format("iceberg")} stays Iceberg's.
 */
public final class FloeIcebergAlias extends FloeSource {
  static final String ICEBERG_SOURCE = "org.apache.iceberg.spark.source.IcebergSource";
  static final String INACTIVE_NAME = "floe-iceberg-alias-inactive";

  @Override
  public String shortName() {
    return icebergRuntimePresent(Thread.currentThread().getContextClassLoader()) ? INACTIVE_NAME : "iceberg";
  }

  static boolean icebergRuntimePresent(ClassLoader loader) {
    try {
      Class.forName(ICEBERG_SOURCE, false, loader != null ? loader : FloeIcebergAlias.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
