package io.floe.spark.extensions;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.sql.SqlSyntaxException;
import java.util.List;
import org.junit.Test;

/** The partition-field DDL Floe parses, and the CALL statements it becomes. No Spark session. */
public class TestPartitionFieldStatement {
  private static String call(String sql) {
    PartitionFieldStatement s = PartitionFieldStatement.parse(sql);
    List<String> table = s.table();
    return s.toCall("floe", table.subList(Math.max(0, table.size() - 2), table.size()));
  }

  @Test
  public void addBecomesAddPartitionFieldCall() {
    assertEquals("CALL `floe`.`system`.add_partition_field(table => '`db`.`t`', transform => 'bucket(16, `id`)')",
        call("ALTER TABLE floe.db.t ADD PARTITION FIELD bucket(16, id)"));
    assertEquals("CALL `floe`.`system`.add_partition_field(table => '`db`.`t`', transform => 'days(`ts`)', "
        + "name => 'day')", call("alter table db.t add partition field days(ts) as day"));
    assertEquals("CALL `floe`.`system`.add_partition_field(table => '`db`.`t`', transform => '`category`')",
        call("ALTER TABLE db.t ADD PARTITION FIELD category;"));
  }

  @Test
  public void dropAndReplaceBecomeTheirCalls() {
    assertEquals("CALL `floe`.`system`.drop_partition_field(table => '`db`.`t`', field => '`id_bucket`')",
        call("ALTER TABLE db.t DROP PARTITION FIELD id_bucket"));
    assertEquals("CALL `floe`.`system`.replace_partition_field(table => '`db`.`t`', field => 'days(`ts`)', "
        + "transform => 'hours(`ts`)', name => 'h')",
        call("ALTER TABLE db.t REPLACE PARTITION FIELD days(ts) WITH hours(ts) AS h"));
  }

  @Test
  public void truncateAndBucketAcceptTheColumnFirst() {
    PartitionFieldStatement s = PartitionFieldStatement.parse("ALTER TABLE t ADD PARTITION FIELD truncate(s, 4)");
    assertEquals("truncate(4, `s`)", s.transform().toSql());
    assertEquals(List.of("t"), s.table());
  }

  @Test
  public void quotedIdentifiersCommentsAndQuotesInNamesSurvive() {
    PartitionFieldStatement s = PartitionFieldStatement.parse(
        "/* x */ ALTER TABLE `my db`.`t``1` -- c\n ADD PARTITION FIELD bucket(4, `a b`) AS `it's`");
    assertEquals(List.of("my db", "t`1"), s.table());
    assertEquals("it's", s.name());
    assertEquals("CALL `floe`.`system`.add_partition_field(table => '`my db`.`t``1`', "
        + "transform => 'bucket(4, `a b`)', name => 'it\\'s')", s.toCall("floe", s.table()));
  }

  @Test
  public void otherStatementsAreLeftToSpark() {
    assertNull(PartitionFieldStatement.parse("SELECT 1"));
    assertNull(PartitionFieldStatement.parse("ALTER TABLE t ADD PARTITION (p = 1)"));
    assertNull(PartitionFieldStatement.parse("ALTER TABLE t SET TBLPROPERTIES ('partition' = 'field')"));
    assertNull(PartitionFieldStatement.parse("ALTER TABLE t ADD COLUMNS (field int, partition int)"));
    assertNull(PartitionFieldStatement.parse("SELECT 'ALTER TABLE t ADD PARTITION FIELD x'"));
    assertNull(PartitionFieldStatement.parse("ALTER TABLE 'unclosed ADD PARTITION FIELD x"));
  }

  @Test
  public void malformedStatementsNameTheStatementAndPosition() {
    SqlSyntaxException e = assertThrows(SqlSyntaxException.class,
        () -> PartitionFieldStatement.parse("ALTER TABLE t ADD PARTITION FIELD bucket(4 id)"));
    assertEquals("Expected ',' but found 'id' in ALTER TABLE ... ADD PARTITION FIELD", e.getMessage());
    assertEquals(43, e.offset());

    e = assertThrows(SqlSyntaxException.class,
        () -> PartitionFieldStatement.parse("ALTER TABLE t REPLACE PARTITION FIELD a b"));
    assertTrue(e.getMessage(), e.getMessage().startsWith("Expected WITH but found 'b'"));

    e = assertThrows(SqlSyntaxException.class,
        () -> PartitionFieldStatement.parse("ALTER TABLE t ADD PARTITION FIELD zorder(a)"));
    assertTrue(e.getMessage(), e.getMessage().startsWith("Unsupported partition transform 'zorder'"));

    e = assertThrows(SqlSyntaxException.class,
        () -> PartitionFieldStatement.parse("ALTER TABLE t DROP PARTITION FIELD a AS b"));
    assertTrue(e.getMessage(), e.getMessage().contains("ALTER TABLE ... DROP PARTITION FIELD"));
  }
}
