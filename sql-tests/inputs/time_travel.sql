-- Time travel and the snapshot procedures: what a user sees when a snapshot, ref or time does not
-- exist, and that a rollback to the current state changes nothing. Snapshot ids and times vary from
-- run to run, so statements that print them are covered by python-tests/test_snapshot_procedures.py.
CREATE NAMESPACE floe.tt;

CREATE TABLE floe.tt.t (id INT) USING floe;

INSERT INTO floe.tt.t VALUES (1);

INSERT INTO floe.tt.t VALUES (2);

-- The table as of now: both rows.
SELECT * FROM floe.tt.t TIMESTAMP AS OF '2999-01-01 00:00:00' ORDER BY id;

-- Unknown snapshot, branch or tag: the error lists the snapshots and refs.
SELECT * FROM floe.tt.t VERSION AS OF 1234567890123;

SELECT * FROM floe.tt.t VERSION AS OF 'nope';

-- Before the first snapshot: the error gives its time.
SELECT * FROM floe.tt.t TIMESTAMP AS OF '2000-01-01 00:00:00';

CALL floe.system.rollback_to_snapshot('tt.t', 1234567890123);

CALL floe.system.rollback_to_timestamp(table => 'tt.t', timestamp => TIMESTAMP '2000-01-01 00:00:00');

CALL floe.system.set_current_snapshot('tt.t');

CALL floe.system.set_current_snapshot(table => 'tt.t', ref => 'nope');

CALL floe.system.cherrypick_snapshot('tt.t', 1234567890123);

CALL floe.system.ancestors_of('tt.t', 1234567890123);

CALL floe.system.register_table('tt.t', '/nowhere/v1.metadata.json');

CALL floe.system.register_table('tt.copy', '/nowhere/v1.metadata.json');

-- Nothing above changed the table.
SELECT * FROM floe.tt.t ORDER BY id;
