package io.floe.format.index;

import io.floe.format.io.FileIO;
import io.floe.format.io.InputFile;
import io.floe.format.metadata.TableProperties;
import io.floe.format.util.WeightedCache;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Reads a table's current index list (named by the {@code floe.indexes} table property) and writes
 * new ones. An index list file is never overwritten: each change writes a new one, and the commit
 * that sets the property to it publishes the change.
 */
public final class IndexListFiles {
  /** Estimated heap of a parsed index list: its definitions, plus each segment's path and counts. */
  private static final long LIST_WEIGHT = 1024;
  private static final long SEGMENT_WEIGHT = 512;

  /**
   * Index lists parsed for planning in this JVM, by location: a list is written once under a new
   * name and never changed, so the next query of an unchanged table parses none. At most a
   * two-hundred-fifty-sixth of the maximum heap; a list unused for a minute is dropped.
   */
  private static final WeightedCache<String, IndexList> SHARED = new WeightedCache<>(
      Runtime.getRuntime().maxMemory() / 256, TimeUnit.SECONDS.toNanos(60), System::nanoTime);

  private IndexListFiles() {}

  /** The current index list file from the table's properties, or null when the table has no index. */
  public static String currentLocation(Map<String, String> tableProperties) {
    String location = tableProperties.get(TableProperties.INDEXES);
    return location == null || location.isBlank() ? null : location.trim();
  }

  /** The table's current index list; empty when it has none. Fails naming the table and the file. */
  public static IndexList read(FileIO io, String table, Map<String, String> tableProperties) {
    String location = currentLocation(tableProperties);
    if (location == null) {
      return IndexList.empty();
    }
    InputFile file = io.newInputFile(location);
    String json;
    try {
      json = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(file.readAllBytes())).toString();
    } catch (CharacterCodingException e) {
      throw IndexErrors.unreadableIndexList(table, location, "the file is not UTF-8 text (" + e + ")", e);
    } catch (IOException | UncheckedIOException e) {
      throw IndexErrors.unreadableIndexList(table, location, "the file cannot be read (" + e.getMessage() + ")", e);
    }
    try {
      return IndexListParser.fromJson(json);
    } catch (IllegalArgumentException e) {
      throw IndexErrors.unreadableIndexList(table, location, e.getMessage(), e);
    }
  }

  /**
   * As {@link #read}, but a list this JVM already parsed for planning is returned without reading it
   * again. For query planning only: commits and maintenance read the file itself.
   */
  public static IndexList readShared(FileIO io, String table, Map<String, String> tableProperties) {
    String location = currentLocation(tableProperties);
    if (location == null) {
      return IndexList.empty();
    }
    return SHARED.get(location, () -> read(io, table, tableProperties),
        list -> LIST_WEIGHT + SEGMENT_WEIGHT * list.segmentPaths().size());
  }

  /** Writes {@code list} to a new file under the table's hidden index folder and returns its location. */
  public static String write(FileIO io, String metadataFolder, IndexList list) {
    String location = IndexLocations.newIndexList(metadataFolder);
    try (OutputStream out = io.newOutputFile(location).create()) {
      out.write(IndexListParser.toJson(list).getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write index list " + location, e);
    }
    return location;
  }
}
