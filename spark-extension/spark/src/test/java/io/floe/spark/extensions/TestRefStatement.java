package io.floe.spark.extensions;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.floe.format.sql.SqlSyntaxException;
import java.util.List;
import org.junit.Test;

/** Iceberg's branch and tag DDL as Floe parses it, and the CALL statements it becomes. No Spark session. */
public class TestRefStatement {
  private static final String PREFIX = "CALL `floe`.`system`.";

  private static String call(String sql) {
    RefStatement s = RefStatement.parse(sql);
    List<String> table = s.table();
    return s.toCall("floe", table.subList(Math.max(0, table.size() - 2), table.size()));
  }

  @Test
  public void createBranchWithEveryOption() {
    assertEquals(PREFIX + "create_branch(table => '`db`.`t`', ref => 'b', mode => 'create', if_not_exists => true, "
        + "snapshot_id => 123, max_ref_age_ms => 604800000, min_snapshots_to_keep => 3, "
        + "max_snapshot_age_ms => 7200000)",
        call("ALTER TABLE floe.db.t CREATE BRANCH IF NOT EXISTS b AS OF VERSION 123 RETAIN 7 DAYS "
            + "WITH SNAPSHOT RETENTION 3 SNAPSHOTS 2 HOURS"));
    assertEquals(PREFIX + "create_branch(table => '`db`.`t`', ref => 'b', mode => 'create', max_snapshot_age_ms => "
        + "60000)", call("alter table db.t create branch b with snapshot retention 1 minutes;"));
    assertEquals(PREFIX + "create_branch(table => '`db`.`t`', ref => 'b', mode => 'create', min_snapshots_to_keep => "
        + "5)", call("ALTER TABLE db.t CREATE BRANCH b WITH SNAPSHOT RETENTION 5 SNAPSHOTS"));
  }

  @Test
  public void replaceAndCreateOrReplaceForBranchesAndTags() {
    assertEquals(PREFIX + "create_branch(table => '`db`.`t`', ref => 'b', mode => 'replace', snapshot_id => 9)",
        call("ALTER TABLE db.t REPLACE BRANCH b AS OF VERSION 9"));
    assertEquals(PREFIX + "create_tag(table => '`db`.`t`', ref => 'v1.0', mode => 'create_or_replace', "
        + "max_ref_age_ms => 3600000)", call("ALTER TABLE db.t CREATE OR REPLACE TAG `v1.0` RETAIN 1 HOURS"));
  }

  @Test
  public void dropWithAndWithoutIfExists() {
    assertEquals(PREFIX + "drop_branch(table => '`db`.`t`', ref => 'b', if_exists => true)",
        call("ALTER TABLE db.t DROP BRANCH IF EXISTS b"));
    assertEquals(PREFIX + "drop_tag(table => '`db`.`t`', ref => 'x')", call("ALTER TABLE db.t DROP TAG x"));
  }

  @Test
  public void otherStatementsAreLeftToSpark() {
    assertNull(RefStatement.parse("ALTER TABLE db.t DROP COLUMN tag"));
    assertNull(RefStatement.parse("ALTER TABLE db.t ADD COLUMN branch INT"));
    assertNull(RefStatement.parse("SELECT * FROM db.t.branch_b"));
    assertNull(RefStatement.parse("ALTER TABLE db.t SET TBLPROPERTIES ('tag' = 'branch')"));
  }

  @Test
  public void malformedDdlIsASyntaxErrorSayingWhatWasExpected() {
    assertMessage("ALTER TABLE db.t CREATE BRANCH b WITH SNAPSHOT RETENTION",
        "Expected <n> SNAPSHOTS and/or <n> DAYS|HOURS|MINUTES but found end of input");
    assertMessage("ALTER TABLE db.t CREATE TAG x RETAIN 3 WEEKS", "Expected DAYS, HOURS or MINUTES");
    assertMessage("ALTER TABLE db.t CREATE TAG x WITH SNAPSHOT RETENTION 3 SNAPSHOTS", "Expected end of statement");
    assertMessage("ALTER TABLE db.t REPLACE BRANCH IF NOT EXISTS b", "but found");
    assertMessage("ALTER TABLE db.t CREATE BRANCH b AS OF VERSION 'x'", "Expected a snapshot id");
    assertMessage("ALTER TABLE db.t DROP BRANCH IF b", "Expected EXISTS");
  }

  private static void assertMessage(String sql, String expected) {
    SqlSyntaxException e = assertThrows(SqlSyntaxException.class, () -> RefStatement.parse(sql));
    assertTrue(e.getMessage(), e.getMessage().contains(expected));
  }
}
