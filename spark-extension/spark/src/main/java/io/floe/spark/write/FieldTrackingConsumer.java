package io.floe.spark.write;

import java.nio.ByteBuffer;
import java.util.UUID;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;

/**
 * Sits between Spark's value writers and Parquet's record consumer and follows which column each
 * value belongs to (one array slot per nesting level, no lookups). With that it keeps NaN counts
 * and NaN-free min/max of float and double columns, turns the strings Spark holds for
 * {@code uuid} columns into the 16 big-endian bytes the column stores, and rejects rows that leave
 * a required column null.
 */
final class FieldTrackingConsumer extends RecordConsumer {
  private static final int UUID_TEXT_LENGTH = 36;

  private final RecordConsumer delegate;
  private final ParquetWriteSchema.Node[] stack;
  /** Per open group: how many of its required children were written so far. */
  private final int[] requiredWritten;
  private final byte[] uuidBytes = new byte[16];
  private int depth;

  FieldTrackingConsumer(RecordConsumer delegate, ParquetWriteSchema schema) {
    this.delegate = delegate;
    this.stack = new ParquetWriteSchema.Node[schema.depth() + 1];
    this.requiredWritten = new int[schema.depth() + 1];
    this.stack[0] = schema.root();
  }

  @Override
  public void startMessage() {
    depth = 0;
    requiredWritten[0] = 0;
    delegate.startMessage();
  }

  @Override
  public void endMessage() {
    checkRequired();
    delegate.endMessage();
  }

  @Override
  public void startField(String field, int index) {
    ParquetWriteSchema.Node child = stack[depth].children[index];
    if (child.required) {
      requiredWritten[depth] += 1;
    }
    stack[depth + 1] = child;
    depth += 1;
    delegate.startField(field, index);
  }

  @Override
  public void endField(String field, int index) {
    depth -= 1;
    delegate.endField(field, index);
  }

  @Override
  public void startGroup() {
    requiredWritten[depth] = 0;
    delegate.startGroup();
  }

  @Override
  public void endGroup() {
    checkRequired();
    delegate.endGroup();
  }

  /** Spark skips null fields; a skipped required one would make a corrupt file, so fail instead. */
  private void checkRequired() {
    ParquetWriteSchema.Node group = stack[depth];
    if (requiredWritten[depth] != group.requiredChildren) {
      throw new IllegalArgumentException("Cannot write null to required column " + group.requiredChildNames());
    }
  }

  @Override
  public void addInteger(int value) {
    delegate.addInteger(value);
  }

  @Override
  public void addLong(long value) {
    delegate.addLong(value);
  }

  @Override
  public void addBoolean(boolean value) {
    delegate.addBoolean(value);
  }

  @Override
  public void addBinary(Binary value) {
    ParquetWriteSchema.Leaf leaf = stack[depth].leaf;
    if (leaf.convertsUuid) {
      delegate.addBinary(uuidBinary(leaf, value));
    } else {
      delegate.addBinary(value);
    }
  }

  @Override
  public void addFloat(float value) {
    stack[depth].leaf.addFloating(value);
    delegate.addFloat(value);
  }

  @Override
  public void addDouble(double value) {
    stack[depth].leaf.addFloating(value);
    delegate.addDouble(value);
  }

  @Override
  public void flush() {
    delegate.flush();
  }

  private Binary uuidBinary(ParquetWriteSchema.Leaf leaf, Binary text) {
    String value = text.toStringUsingUTF8();
    UUID uuid = null;
    if (value.length() == UUID_TEXT_LENGTH) {
      try {
        uuid = UUID.fromString(value);
      } catch (IllegalArgumentException e) {
        // reported below
      }
    }
    if (uuid == null) {
      throw new IllegalArgumentException("Invalid UUID for column " + leaf.name + ": '" + value + "'");
    }
    ByteBuffer.wrap(uuidBytes).putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
    return Binary.fromReusedByteArray(uuidBytes);
  }
}
