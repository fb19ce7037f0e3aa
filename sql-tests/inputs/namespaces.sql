-- Namespaces of the Floe catalog: create, list, nest, drop, and the errors users meet.
CREATE NAMESPACE floe.ns1;

CREATE NAMESPACE IF NOT EXISTS floe.ns1;

CREATE NAMESPACE floe.ns2;

SHOW NAMESPACES IN floe;

SHOW NAMESPACES IN floe LIKE 'ns1';

-- Creating an existing namespace fails.
CREATE NAMESPACE floe.ns1;

-- Nested namespaces.
CREATE NAMESPACE floe.ns1.inner;

SHOW NAMESPACES IN floe.ns1;

-- Dropping a namespace that does not exist.
DROP NAMESPACE floe.missing;

DROP NAMESPACE IF EXISTS floe.missing;

-- A namespace that holds a table cannot be dropped without CASCADE.
CREATE TABLE floe.ns2.t (id BIGINT, name STRING);

DROP NAMESPACE floe.ns2;

DROP NAMESPACE floe.ns2 CASCADE;

DROP NAMESPACE floe.ns1.inner;

SHOW NAMESPACES IN floe;

USE floe.ns1;

SELECT current_catalog(), current_database();

-- A table and a namespace never share a folder.
CREATE NAMESPACE floe.ns3;

CREATE NAMESPACE floe.ns3.sub;

CREATE TABLE floe.ns3.sub (id INT);

CREATE TABLE floe.ns3.t (id INT);

CREATE NAMESPACE floe.ns3.t;

-- Names may hold Unicode letters, digits, spaces and dots; '%', '/' and the like are refused.
CREATE TABLE floe.ns3.`café au lait` (id INT);

INSERT INTO floe.ns3.`café au lait` VALUES (1);

SELECT * FROM floe.ns3.`café au lait`;

SHOW TABLES IN floe.ns3;

CREATE TABLE floe.ns3.`%2E%2E` (id INT);

CREATE TABLE floe.ns3.`a/b` (id INT);

-- register_table takes only a table's metadata/*.metadata.json and never shows a file's contents.
CALL floe.system.register_table('ns3.x', '/etc/hostname');
