package io.floe.format.metadata;

import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.Test;

/** README's table of properties and {@link TableProperties} name the same keys. */
public class TestTablePropertiesReadme {
  private static final Pattern KEY = Pattern.compile("`((?:write|commit|read|history|gc|format)[a-z0-9.\\-]*)`");

  private static String propertiesSection() throws IOException {
    Path readme = Paths.get("").toAbsolutePath();
    while (readme != null && !Files.exists(readme.resolve("README.md"))) {
      readme = readme.getParent();
    }
    assertTrue("README.md not found above " + Paths.get("").toAbsolutePath(), readme != null);
    String text = new String(Files.readAllBytes(readme.resolve("README.md")), StandardCharsets.UTF_8);
    int start = text.indexOf("### Table properties");
    assertTrue("README has a '### Table properties' section", start >= 0);
    int end = text.indexOf("\n## ", start);
    return end < 0 ? text.substring(start) : text.substring(start, end);
  }

  @Test
  public void everyKnownPropertyIsInReadme() throws IOException {
    String section = propertiesSection();
    List<String> missing = new ArrayList<>();
    for (TableProperty p : TableProperties.all()) {
      if (!section.contains("`" + p.key() + "`")) {
        missing.add(p.key());
      }
    }
    assertTrue("README's table of properties lacks " + missing, missing.isEmpty());
  }

  @Test
  public void everyPropertyInReadmeIsKnown() throws IOException {
    Matcher m = KEY.matcher(propertiesSection());
    List<String> unknown = new ArrayList<>();
    while (m.find()) {
      String key = m.group(1);
      String probe = key.endsWith(".") ? key + "id" : key;
      if (key.contains(".") && TableProperties.known(probe) == null && TableProperties.known(key + "id") == null) {
        unknown.add(key);
      }
    }
    assertTrue("README names properties Floe does not know: " + unknown, unknown.isEmpty());
  }
}
