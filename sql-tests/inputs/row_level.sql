-- Row-level DELETE, UPDATE and MERGE INTO through SQL, the same statements on a copy-on-write
-- table, a merge-on-read v2 table (position delete files) and a merge-on-read v3 table (deletion
-- vectors), all partitioned by cat; each result is read back. Then the errors: a MERGE whose
-- source matches a target row several times, type mismatches, unknown columns, invalid modes.
CREATE NAMESPACE floe.rl;

CREATE TABLE floe.rl.cow (id BIGINT, cat STRING, v INT, st STRUCT<a: INT, b: STRING>)
PARTITIONED BY (cat)
TBLPROPERTIES ('write.delete.mode'='copy-on-write', 'write.update.mode'='copy-on-write',
               'write.merge.mode'='copy-on-write');

CREATE TABLE floe.rl.mor2 (id BIGINT, cat STRING, v INT, st STRUCT<a: INT, b: STRING>)
PARTITIONED BY (cat)
TBLPROPERTIES ('write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read',
               'write.merge.mode'='merge-on-read');

CREATE TABLE floe.rl.mor3 (id BIGINT, cat STRING, v INT, st STRUCT<a: INT, b: STRING>)
PARTITIONED BY (cat)
TBLPROPERTIES ('format-version'='3', 'write.delete.mode'='merge-on-read',
               'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read');

INSERT INTO floe.rl.cow VALUES
  (1, 'a', 10, named_struct('a', 1, 'b', 'x')), (2, 'a', 20, NULL), (3, 'b', NULL, named_struct('a', 3, 'b', NULL)),
  (4, 'b', 40, named_struct('a', 4, 'b', 'y')), (5, NULL, 50, NULL), (6, 'c', 60, NULL);

INSERT INTO floe.rl.mor2 SELECT * FROM floe.rl.cow;

INSERT INTO floe.rl.mor3 SELECT * FROM floe.rl.cow;

-- v <> 40 is NULL for id 3: that row stays.
DELETE FROM floe.rl.cow WHERE v <> 40 AND id < 3;

DELETE FROM floe.rl.mor2 WHERE v <> 40 AND id < 3;

DELETE FROM floe.rl.mor3 WHERE v <> 40 AND id < 3;

SELECT 'cow', * FROM floe.rl.cow UNION ALL SELECT 'mor2', * FROM floe.rl.mor2
UNION ALL SELECT 'mor3', * FROM floe.rl.mor3 ORDER BY 1, 2;

-- A whole partition: dropped from metadata in every mode.
DELETE FROM floe.rl.cow WHERE cat = 'c';

DELETE FROM floe.rl.mor2 WHERE cat = 'c';

DELETE FROM floe.rl.mor3 WHERE cat = 'c';

-- Updating the partition column moves the row; a nested field of a NULL struct.
UPDATE floe.rl.cow SET cat = 'moved', v = v + 1 WHERE id = 4;

UPDATE floe.rl.mor2 SET cat = 'moved', v = v + 1 WHERE id = 4;

UPDATE floe.rl.mor3 SET cat = 'moved', v = v + 1 WHERE id = 4;

UPDATE floe.rl.cow SET st.b = 'set' WHERE st IS NULL OR st.b IS NULL;

UPDATE floe.rl.mor2 SET st.b = 'set' WHERE st IS NULL OR st.b IS NULL;

UPDATE floe.rl.mor3 SET st.b = 'set' WHERE st IS NULL OR st.b IS NULL;

SELECT 'cow', * FROM floe.rl.cow UNION ALL SELECT 'mor2', * FROM floe.rl.mor2
UNION ALL SELECT 'mor3', * FROM floe.rl.mor3 ORDER BY 1, 2;

CREATE TEMPORARY VIEW rl_changes AS SELECT * FROM VALUES
  (CAST(3 AS BIGINT), 'b', 33, 'update'), (CAST(5 AS BIGINT), NULL, 55, 'delete'),
  (CAST(7 AS BIGINT), 'd', 77, 'insert'), (CAST(8 AS BIGINT), 'd', 88, 'ignore')
  AS s(id, cat, v, op);

-- Every clause kind: matched update / delete, conditional insert, not matched by source.
MERGE INTO floe.rl.cow t USING rl_changes s ON t.id = s.id
WHEN MATCHED AND s.op = 'delete' THEN DELETE
WHEN MATCHED THEN UPDATE SET t.v = s.v
WHEN NOT MATCHED AND s.op = 'insert' THEN INSERT (id, cat, v) VALUES (s.id, s.cat, s.v)
WHEN NOT MATCHED BY SOURCE THEN UPDATE SET t.v = -t.v;

MERGE INTO floe.rl.mor2 t USING rl_changes s ON t.id = s.id
WHEN MATCHED AND s.op = 'delete' THEN DELETE
WHEN MATCHED THEN UPDATE SET t.v = s.v
WHEN NOT MATCHED AND s.op = 'insert' THEN INSERT (id, cat, v) VALUES (s.id, s.cat, s.v)
WHEN NOT MATCHED BY SOURCE THEN UPDATE SET t.v = -t.v;

MERGE INTO floe.rl.mor3 t USING rl_changes s ON t.id = s.id
WHEN MATCHED AND s.op = 'delete' THEN DELETE
WHEN MATCHED THEN UPDATE SET t.v = s.v
WHEN NOT MATCHED AND s.op = 'insert' THEN INSERT (id, cat, v) VALUES (s.id, s.cat, s.v)
WHEN NOT MATCHED BY SOURCE THEN UPDATE SET t.v = -t.v;

SELECT 'cow', * FROM floe.rl.cow UNION ALL SELECT 'mor2', * FROM floe.rl.mor2
UNION ALL SELECT 'mor3', * FROM floe.rl.mor3 ORDER BY 1, 2;

-- UPDATE SET * and INSERT *, with a subquery source.
MERGE INTO floe.rl.mor3 t USING (SELECT id + 10 AS id, cat, v, st FROM floe.rl.cow WHERE id < 5
                                 UNION ALL SELECT id, 'star', v, st FROM floe.rl.cow WHERE id = 3) s
ON t.id = s.id
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED THEN INSERT *;

SELECT * FROM floe.rl.mor3 ORDER BY id;

-- Several source rows match one target row: Spark's error, nothing changes.
MERGE INTO floe.rl.mor2 t USING (SELECT CAST(3 AS BIGINT) AS id FROM range(2)) s ON t.id = s.id
WHEN MATCHED THEN UPDATE SET t.v = 0;

MERGE INTO floe.rl.cow t USING (SELECT CAST(3 AS BIGINT) AS id FROM range(2)) s ON t.id = s.id
WHEN MATCHED THEN UPDATE SET t.v = 0;

SELECT id, v FROM floe.rl.mor2 WHERE id = 3 UNION ALL SELECT id, v FROM floe.rl.cow WHERE id = 3;

-- Type mismatches and unknown columns.
UPDATE floe.rl.mor2 SET v = 'not a number' WHERE id = 3;

UPDATE floe.rl.mor2 SET missing = 1 WHERE id = 3;

DELETE FROM floe.rl.mor2 WHERE missing = 1;

MERGE INTO floe.rl.cow t USING rl_changes s ON t.id = s.id
WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, DATE'2024-01-01');

-- An invalid write mode or isolation level is refused by ALTER TABLE, naming the property.
ALTER TABLE floe.rl.mor2 SET TBLPROPERTIES ('write.delete.mode'='sideways');

ALTER TABLE floe.rl.mor2 SET TBLPROPERTIES ('write.delete.mode'='merge-on-read',
                                            'write.delete.isolation-level'='chaos');

SHOW TBLPROPERTIES floe.rl.mor2 ('write.delete.isolation-level');

ALTER TABLE floe.rl.mor2 SET TBLPROPERTIES ('write.delete.isolation-level'='snapshot');

DELETE FROM floe.rl.mor2 WHERE id = 3;

SELECT 'cow', * FROM floe.rl.cow UNION ALL SELECT 'mor2', * FROM floe.rl.mor2 ORDER BY 1, 2;
