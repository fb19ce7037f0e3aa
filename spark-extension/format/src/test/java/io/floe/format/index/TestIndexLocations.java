package io.floe.format.index;

import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** Index names are users' words: segment folders stay inside the hidden index folder, short and plain. */
public class TestIndexLocations {
  private static final String METADATA = "file:/w/db/t/metadata";

  @Test
  public void hostileNamesStayInsideTheIndexFolder() {
    String[] names = {"../../other", "a/b", "..", "käse ☃", "", "x".repeat(1000), "a\\b", "%2e%2e", "we ird"};
    for (String name : names) {
      String location = IndexLocations.newSegment(METADATA, name);
      String rest = location.substring((METADATA + "/" + IndexLocations.FOLDER + "/").length());
      assertTrue(location, location.startsWith(METADATA + "/_floe_indexes/"));
      String folder = rest.substring(0, rest.indexOf('/'));
      assertTrue(location, folder.matches("[A-Za-z0-9_-]{1,64}") && !folder.equals(".."));
      assertTrue(location, rest.indexOf('/') == rest.lastIndexOf('/') && rest.endsWith(".puffin"));
    }
  }
}
