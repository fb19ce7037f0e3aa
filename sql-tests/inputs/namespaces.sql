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
