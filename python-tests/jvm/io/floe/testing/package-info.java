/**
 * Test-only JVM classes for the reliability suite (never in the product jar): compiled by
 * python-tests/jvm_support.py against Floe's jar and put on the class path of the JVMs the tests
 * start.
 */
package io.floe.testing;
