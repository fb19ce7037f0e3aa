-- Metadata tables, statistics and the maintenance procedures as a SQL or JDBC user runs them.
-- Paths, snapshot ids and times are masked; everything else is deterministic.
CREATE NAMESPACE floe.mt;

CREATE TABLE floe.mt.t (id BIGINT, p STRING) USING floe PARTITIONED BY (p);

INSERT INTO floe.mt.t VALUES (1, 'a'), (2, 'b');

INSERT INTO floe.mt.t VALUES (3, 'a');

INSERT INTO floe.mt.t VALUES (4, 'b');

DELETE FROM floe.mt.t WHERE id = 4;

SELECT operation, summary['added-records'], summary['total-records'] FROM floe.mt.t.snapshots ORDER BY committed_at;

SELECT count(*), sum(record_count) FROM floe.mt.t.files;

SELECT partition.p, record_count, file_count FROM floe.mt.t.partitions ORDER BY partition.p;

SELECT name, type FROM floe.mt.t.refs;

SELECT count(*), sum(CAST(is_current_ancestor AS INT)) FROM floe.mt.t.history;

SELECT content, added_data_files_count, existing_data_files_count FROM floe.mt.t.manifests ORDER BY added_data_files_count, existing_data_files_count;

SELECT status, data_file.record_count FROM floe.mt.t.entries ORDER BY status, data_file.record_count;

SELECT * FROM floe.mt.t.nope;

ANALYZE TABLE floe.mt.t COMPUTE STATISTICS FOR ALL COLUMNS;

DESCRIBE EXTENDED floe.mt.t id;

CALL floe.system.rewrite_data_files(table => 'mt.t', options => map('min-input-files', '2'));

SELECT id, p FROM floe.mt.t ORDER BY id;

CALL floe.system.rewrite_manifests('mt.t');

CALL floe.system.rewrite_data_files(table => 'mt.t', options => map('no-such-option', '1'));

CALL floe.system.expire_snapshots(table => 'mt.t', older_than => TIMESTAMP '2100-01-01 00:00:00', retain_last => 1);

SELECT count(*) FROM floe.mt.t.snapshots;

SELECT id, p FROM floe.mt.t ORDER BY id;

CALL floe.system.remove_orphan_files(table => 'mt.t', dry_run => true);

CALL floe.system.remove_orphan_files(table => 'mt.t', location => '/etc');

CALL floe.system.remove_orphan_files(table => 'mt.t', older_than => TIMESTAMP '2100-01-01 00:00:00');

CALL floe.system.expire_snapshots(table => 'mt.missing');
