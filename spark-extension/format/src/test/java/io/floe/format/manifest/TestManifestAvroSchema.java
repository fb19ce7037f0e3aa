package io.floe.format.manifest;

import static io.floe.format.manifest.ManifestFixtures.*;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.floe.format.partition.PartitionSpec;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The written Avro schemas carry the annotations pyiceberg and Java require (docs/format.md, 'Manifests and
 * manifest lists').
 */
public class TestManifestAvroSchema {
  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  @Test
  public void manifestSchemasAreFullyAnnotated() throws Exception {
    for (int version : new int[] {2, 3}) {
      PartitionSpec spec = transformSpec();
      File file = new File(temp.getRoot(), "m" + version + ".avro");
      ManifestWriter writer = ManifestWriter.write(version, spec, SCHEMA, IO.newOutputFile(file.toURI().toString()),
          1L, ManifestContent.DATA);
      close(writer);
      JsonNode schema = writtenSchema(file);
      List<String> problems = new ArrayList<>();
      Set<Integer> ids = new TreeSet<>();
      check(schema, "", problems, ids);
      assertTrue(problems.toString(), problems.isEmpty());
      assertEquals("manifest_entry", schema.get("name").asText());
      assertTrue(ids.containsAll(List.of(0, 1, 2, 3, 4, 100, 101, 102, 103, 104, 108, 109, 110, 117, 118, 119, 120,
          121, 122, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 143,
          1000, 1001, 1002, 1003, 1004)));
      assertEquals(version == 3, ids.containsAll(List.of(142, 144, 145)));
      String text = schema.toString();
      assertTrue(text, text.contains("{\"type\":\"int\",\"logicalType\":\"date\"}"));
      assertTrue(text, text.contains("\"name\":\"r102\""));
      assertTrue(text, text.contains("\"name\":\"r2\""));
      assertTrue(text, text.contains("\"name\":\"k117_v118\""));
      assertTrue(text, text.contains("\"logicalType\":\"uuid\""));
    }
  }

  @Test
  public void manifestListSchemasAreFullyAnnotated() throws Exception {
    for (int version : new int[] {2, 3}) {
      File file = new File(temp.getRoot(), "l" + version + ".avro");
      ManifestLists.write(version, IO.newOutputFile(file.toURI().toString()), 1L, null, 1L, 0L, List.of());
      assertTrue("an empty list reads back", ManifestLists.read(IO.newInputFile(file.toURI().toString())).isEmpty());
      JsonNode schema = writtenSchema(file);
      List<String> problems = new ArrayList<>();
      Set<Integer> ids = new TreeSet<>();
      check(schema, "", problems, ids);
      assertTrue(problems.toString(), problems.isEmpty());
      assertEquals("manifest_file", schema.get("name").asText());
      assertTrue(ids.containsAll(List.of(500, 501, 502, 503, 504, 505, 506, 507, 508, 509, 510, 511, 512, 513, 514,
          515, 516, 517, 518, 519)));
      assertEquals(version == 3, ids.contains(520));
      assertTrue(schema.toString().contains("\"name\":\"r508\""));
    }
  }

  @Test
  public void decimalAndTimestampPartitionTypes() throws Exception {
    File file = new File(temp.getRoot(), "types.avro");
    close(ManifestWriter.write(2, identitySpec(), SCHEMA, IO.newOutputFile(file.toURI().toString()), 1L,
        ManifestContent.DATA));
    String text = writtenSchema(file).toString();
    assertTrue(text, text.contains("\"type\":\"fixed\",\"name\":\"decimal_9_2\",\"size\":4,"
        + "\"logicalType\":\"decimal\",\"precision\":9,\"scale\":2"));
    assertTrue(text, text.contains("{\"type\":\"long\",\"logicalType\":\"timestamp-micros\",\"adjust-to-utc\":true}"));
  }

  private static JsonNode writtenSchema(File file) throws Exception {
    try (DataFileReader<GenericRecord> reader = new DataFileReader<>(file, new GenericDatumReader<>())) {
      return new ObjectMapper().readTree(reader.getSchema().toString());
    }
  }

  /** Every record field has field-id; unions are ["null", T] with default null; arrays are lists or maps. */
  private static void check(JsonNode type, String path, List<String> problems, Set<Integer> ids) {
    if (type.isArray()) {
      if (type.size() != 2 || !"null".equals(type.get(0).asText())) {
        problems.add(path + ": union is not [\"null\", T]");
      }
      for (JsonNode branch : type) {
        check(branch, path, problems, ids);
      }
      return;
    }
    if (!type.isObject()) {
      return;
    }
    String kind = type.get("type").isTextual() ? type.get("type").asText() : "";
    if (!kind.equals("record") && !kind.equals("array") && !kind.equals("fixed")) {
      check(type.get("type"), path, problems, ids);
    }
    if (kind.equals("record")) {
      for (JsonNode field : type.get("fields")) {
        String fieldPath = path + "." + field.get("name").asText();
        if (!field.has("field-id")) {
          problems.add(fieldPath + ": missing field-id");
        } else {
          ids.add(field.get("field-id").asInt());
        }
        if (field.get("type").isArray() && !(field.has("default") && field.get("default").isNull())) {
          problems.add(fieldPath + ": optional without default null");
        }
        check(field.get("type"), fieldPath, problems, ids);
      }
    } else if (kind.equals("array")) {
      JsonNode items = type.get("items");
      if (type.has("logicalType")) {
        String name = items.get("name").asText();
        int key = items.get("fields").get(0).get("field-id").asInt();
        int value = items.get("fields").get(1).get("field-id").asInt();
        if (!"map".equals(type.get("logicalType").asText()) || !name.equals("k" + key + "_v" + value)) {
          problems.add(path + ": bad map array " + name);
        }
      } else if (!type.has("element-id")) {
        problems.add(path + ": array without element-id");
      } else {
        ids.add(type.get("element-id").asInt());
      }
      check(items, path + "[]", problems, ids);
    }
  }
}
