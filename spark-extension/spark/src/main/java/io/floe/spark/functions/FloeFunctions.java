package io.floe.spark.functions;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;

/**
 * Floe's SQL functions, by name, in namespace {@code system}: the partition transforms, so users
 * can compute partition values themselves ({@code SELECT floe.system.bucket(16, id)}). Names and
 * results are those of Iceberg's Spark functions. The functions are also found under the empty
 * namespace, where Spark looks up the transforms of a requested write distribution or a reported
 * partitioning ({@code bucket}, {@code days}, ...).
 */
public final class FloeFunctions {
  public static final String NAMESPACE = "system";

  private static final Map<String, Supplier<UnboundFunction>> FUNCTIONS = new LinkedHashMap<>();

  static {
    FUNCTIONS.put(BucketFunction.NAME, BucketFunction::new);
    FUNCTIONS.put(TruncateFunction.NAME, TruncateFunction::new);
    FUNCTIONS.put(YearsFunction.NAME, YearsFunction::new);
    FUNCTIONS.put(MonthsFunction.NAME, MonthsFunction::new);
    FUNCTIONS.put(DaysFunction.NAME, DaysFunction::new);
    FUNCTIONS.put(HoursFunction.NAME, HoursFunction::new);
  }

  private FloeFunctions() {}

  /** True for the namespaces that hold Floe's functions: {@code system} and the empty namespace. */
  public static boolean isFunctionNamespace(String[] namespace) {
    return namespace.length == 0 || Arrays.equals(namespace, new String[] {NAMESPACE});
  }

  /** The functions of a function namespace (see {@link #isFunctionNamespace}); none elsewhere. */
  public static Identifier[] list(String[] namespace) {
    if (!isFunctionNamespace(namespace)) {
      return new Identifier[0];
    }
    return FUNCTIONS.keySet().stream().map(n -> Identifier.of(namespace, n)).toArray(Identifier[]::new);
  }

  /** The function {@code ident} (its name in any case), or null when Floe has none of that name there. */
  public static UnboundFunction load(Identifier ident) {
    if (!isFunctionNamespace(ident.namespace())) {
      return null;
    }
    Supplier<UnboundFunction> factory = FUNCTIONS.get(ident.name().toLowerCase(Locale.ROOT));
    return factory == null ? null : factory.get();
  }
}
