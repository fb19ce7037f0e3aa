package io.floe.testing;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

/**
 * Seeded damage to a valid file for the R4 mutation run: truncation, bit flips, a huge declared
 * length written over a length field, wrong magic bytes, and a flipped CRC (deletion vectors).
 */
final class Mutations {
  private static final byte[] PUFFIN_MAGIC = "PFA1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[][] HUGE = {
      {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f},          // int32 2^31 - 1, little endian
      {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff},          // int32 2^31 - 1, big endian
      {(byte) 0x80, 0, 0, 0},                                 // int32 -2^31, big endian
      {(byte) 0xfe, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f}, // Avro varint 2^31 - 1
      {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x10}, // Avro varint 2^31
      {0x01},                                                 // Avro varint -1
  };

  private Mutations() {}

  static byte[] mutate(byte[] valid, Random random, String name) {
    byte[] out = valid.clone();
    switch (random.nextInt(6)) {
      case 0:
        return Arrays.copyOf(out, random.nextInt(Math.max(1, out.length)));
      case 1:
        for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
          int pos = random.nextInt(out.length);
          out[pos] ^= (byte) (1 << random.nextInt(8));
        }
        return out;
      case 2: {
        byte[] huge = HUGE[random.nextInt(HUGE.length)];
        int pos = random.nextInt(Math.max(1, out.length - huge.length));
        System.arraycopy(huge, 0, out, pos, Math.min(huge.length, out.length - pos));
        return out;
      }
      case 3:
        return wrongMagic(out, random);
      case 4: {
        // a length or count near the end (Puffin footer size, DV length and CRC live there)
        int pos = Math.max(0, out.length - 1 - random.nextInt(Math.min(out.length, 64)));
        out[pos] = (byte) random.nextInt(256);
        return out;
      }
      default: {
        // a byte in the first 64 (headers, Avro metadata lengths, DV length and magic)
        int pos = random.nextInt(Math.min(out.length, 64));
        out[pos] = (byte) random.nextInt(256);
        return out;
      }
    }
  }

  private static byte[] wrongMagic(byte[] out, Random random) {
    if (out.length >= 4) {
      boolean atEnd = random.nextBoolean() && Arrays.equals(Arrays.copyOfRange(out, out.length - 4, out.length),
          PUFFIN_MAGIC);
      int pos = atEnd ? out.length - 4 : 0;
      out[pos + random.nextInt(4)] ^= (byte) (1 + random.nextInt(255));
    }
    return out;
  }
}
