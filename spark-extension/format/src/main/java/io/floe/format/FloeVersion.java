package io.floe.format;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * Floe's version, from the one place it is set ({@code floe.__version__} in the Python package;
 * the build copies it into {@code floe-version.properties}), and the {@code created-by} value that
 * Floe writes into Puffin files.
 */
public final class FloeVersion {
  private static final String VERSION = load();

  private FloeVersion() {}

  /** The version, e.g. {@code 0.1.0}; {@code unknown} when the classes run without their resource. */
  public static String version() {
    return VERSION;
  }

  /** What Floe writes as a file's {@code created-by}, e.g. {@code Floe 0.1.0}. */
  public static String createdBy() {
    return "Floe " + VERSION;
  }

  private static String load() {
    try (InputStream in = FloeVersion.class.getResourceAsStream("floe-version.properties")) {
      if (in == null) {
        return "unknown";
      }
      Properties props = new Properties();
      props.load(in);
      String version = props.getProperty("version", "unknown").trim();
      return version.isEmpty() || version.contains("$") ? "unknown" : version;
    } catch (IOException e) {
      return "unknown";
    }
  }
}
