-- Branches and tags with Apache Iceberg's SQL (docs/branches.md): DDL, the refs it writes, reads and
-- writes through t.branch_<name> / t.tag_<name>, write-audit-publish with spark.wap.branch, and the
-- errors for what Iceberg refuses. Statements that print snapshot ids (fast_forward's result, AS OF
-- VERSION <id>) are covered by python-tests/test_branches_tags.py, since ids vary from run to run.
CREATE NAMESPACE floe.br;

CREATE TABLE floe.br.t (id INT, p STRING) USING floe PARTITIONED BY (p);

INSERT INTO floe.br.t VALUES (1, 'a'), (2, 'b');

ALTER TABLE floe.br.t CREATE BRANCH audit RETAIN 7 DAYS WITH SNAPSHOT RETENTION 3 SNAPSHOTS 2 HOURS;

ALTER TABLE floe.br.t CREATE TAG v1 RETAIN 30 MINUTES;

ALTER TABLE floe.br.t CREATE BRANCH IF NOT EXISTS audit;

ALTER TABLE floe.br.t CREATE OR REPLACE BRANCH scratch;

SELECT name, type, max_reference_age_in_ms, min_snapshots_to_keep, max_snapshot_age_in_ms
FROM floe.br.t.refs ORDER BY name;

-- Writes to the branch: main and the tag keep their rows.
INSERT INTO floe.br.t.branch_audit VALUES (3, 'a'), (4, 'c');

DELETE FROM floe.br.t.branch_audit WHERE id = 1;

UPDATE floe.br.t.branch_audit SET id = 20 WHERE id = 2;

MERGE INTO floe.br.t.branch_audit x USING (SELECT 3 AS id, 'a' AS p UNION ALL SELECT 5, 'd') s
ON x.id = s.id WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *;

SELECT * FROM floe.br.t.branch_audit ORDER BY id;

SELECT * FROM floe.br.t VERSION AS OF 'audit' ORDER BY id;

SELECT * FROM floe.br.t ORDER BY id;

SELECT * FROM floe.br.t.tag_v1 ORDER BY id;

-- Write-audit-publish: with write.wap.enabled, spark.wap.branch takes the session's writes and reads.
ALTER TABLE floe.br.t SET TBLPROPERTIES ('write.wap.enabled' = 'true');

SET spark.wap.branch = etl;

INSERT INTO floe.br.t VALUES (6, 'a');

SELECT * FROM floe.br.t ORDER BY id;

RESET spark.wap.branch;

SELECT * FROM floe.br.t ORDER BY id;

SELECT * FROM floe.br.t.branch_etl ORDER BY id;

-- spark.wap.id stages the write: main is unchanged; the snapshot carries wap.id for cherrypick_snapshot.
SET spark.wap.id = w1;

INSERT INTO floe.br.t VALUES (7, 'a');

RESET spark.wap.id;

SELECT * FROM floe.br.t ORDER BY id;

SELECT operation, summary['wap.id'] FROM floe.br.t.snapshots WHERE summary['wap.id'] IS NOT NULL;

-- Refusals: each names the table and the ref, and changes nothing.
INSERT INTO floe.br.t.tag_v1 VALUES (9, 'a');

ALTER TABLE floe.br.t CREATE BRANCH audit;

ALTER TABLE floe.br.t REPLACE BRANCH nope;

ALTER TABLE floe.br.t CREATE TAG audit;

ALTER TABLE floe.br.t DROP TAG audit;

ALTER TABLE floe.br.t DROP BRANCH main;

ALTER TABLE floe.br.t CREATE BRANCH b2 WITH SNAPSHOT RETENTION;

SELECT * FROM floe.br.t.branch_nope;

CALL floe.system.fast_forward(table => 'br.t', branch => 'main', to => 'nope');

-- Dropping refs.
ALTER TABLE floe.br.t DROP BRANCH IF EXISTS nope;

ALTER TABLE floe.br.t DROP TAG v1;

ALTER TABLE floe.br.t DROP BRANCH scratch;

SELECT name, type FROM floe.br.t.refs ORDER BY name;
