-- The change feed: CALL create_changelog_view creates a temporary view of the session (so over
-- JDBC it lives in the connection that called it) over the rows each snapshot inserted and
-- deleted, carry-over rows of copy-on-write rewrites removed; with identifier columns, a delete
-- and an insert of the same id in one snapshot are an update. Compaction changes nothing.
-- Snapshot ids differ from run to run: rows show the change ordinal, not the snapshot id.
CREATE NAMESPACE floe.cf;

CREATE TABLE floe.cf.t (id INT, cat STRING, v STRING) PARTITIONED BY (cat);

INSERT INTO floe.cf.t VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z');

UPDATE floe.cf.t SET v = 'x2' WHERE id = 1;

DELETE FROM floe.cf.t WHERE id = 3;

CALL floe.system.rewrite_data_files(table => 'cf.t', options => map('rewrite-all', 'true'));

CALL floe.system.create_changelog_view(table => 'cf.t', changelog_view => 'cf_changes');

SELECT id, cat, v, _change_type, _change_ordinal FROM cf_changes ORDER BY _change_ordinal, id, _change_type;

CALL floe.system.create_changelog_view(table => 'cf.t', identifier_columns => array('id'));

SELECT id, v, _change_type, _change_ordinal FROM `t_changes` ORDER BY _change_ordinal, id, _change_type;

SELECT count(DISTINCT _commit_snapshot_id) FROM `t_changes`;

-- the raw feed keeps the carry-over row (2, 'a', 'y') of the copy-on-write UPDATE
SELECT id, v, _change_type, _change_ordinal FROM floe.cf.t.changes ORDER BY _change_ordinal, id, _change_type;

CALL floe.system.create_changelog_view(table => 'cf.t', options => map('end-snapshot-id', '42'));

CALL floe.system.create_changelog_view(table => 'cf.t', options => map('start-snapshot', '1'));

CALL floe.system.create_changelog_view(table => 'cf.t', identifier_columns => array('nope'));
