package io.floe.format.io;

/**
 * A file found by {@link FileIO#listRecursively}: its location (the listed directory's location
 * followed by the relative path), its size, and when it was last modified.
 */
public record FileInfo(String location, long size, long modifiedMillis) {}
