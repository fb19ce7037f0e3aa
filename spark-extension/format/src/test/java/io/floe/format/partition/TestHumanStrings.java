package io.floe.format.partition;

import static org.junit.Assert.assertEquals;

import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import org.junit.Test;

/** Human (partition path) forms of values and time-transform ordinals (docs/format.md, 'Partition paths'). */
public class TestHumanStrings {

  private static long micros(String isoLocal) {
    return ChronoUnit.MICROS.between(LocalDateTime.of(1970, 1, 1, 0, 0), LocalDateTime.parse(isoLocal));
  }

  @Test
  public void values() {
    assertEquals("2024-01-01", HumanStrings.of(Types.DateType.get(), 19723));
    assertEquals("1969-12-31", HumanStrings.of(Types.DateType.get(), -1));
    assertEquals("2024-01-01T10:00:00", HumanStrings.of(Types.TimestampType.withoutZone(), micros("2024-01-01T10:00:00")));
    assertEquals("2024-01-01T10:00:00+00:00", HumanStrings.of(Types.TimestampType.withZone(), micros("2024-01-01T10:00:00")));
    assertEquals("2017-12-01T10:12:55.038194",
        HumanStrings.of(Types.TimestampType.withoutZone(), micros("2017-12-01T10:12:55.038194")));
    assertEquals("1969-12-31T23:59:59.999999", HumanStrings.of(Types.TimestampType.withoutZone(), -1L));
    assertEquals("22:31:08", HumanStrings.of(Types.TimeType.get(), 81068000000L));
    assertEquals("00:00:00.000001", HumanStrings.of(Types.TimeType.get(), 1L));
    assertEquals("AAECAw==", HumanStrings.of(Types.BinaryType.get(), ByteBuffer.wrap(new byte[] {0, 1, 2, 3})));
    assertEquals("AAECAw==", HumanStrings.of(Types.FixedType.ofLength(4), ByteBuffer.wrap(new byte[] {0, 1, 2, 3})));
    assertEquals("1.00", HumanStrings.of(Types.DecimalType.of(9, 2), new BigDecimal("1.00")));
    assertEquals("0.0000001", HumanStrings.of(Types.DecimalType.of(9, 7), new BigDecimal("0.0000001")));
    assertEquals("34", HumanStrings.of(Types.IntegerType.get(), 34));
    assertEquals("34", HumanStrings.of(Types.LongType.get(), 34L));
    assertEquals("true", HumanStrings.of(Types.BooleanType.get(), true));
    assertEquals("1.5", HumanStrings.of(Types.DoubleType.get(), 1.5d));
    assertEquals("a/b", HumanStrings.of(Types.StringType.get(), "a/b"));
    assertEquals("f79c3e09-677c-4bbd-a479-3f349cb785e7",
        HumanStrings.of(Types.UUIDType.get(), UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7")));
    assertEquals("null", HumanStrings.of(Types.StringType.get(), null));
  }

  @Test
  public void timeOrdinals() {
    assertEquals("2024", HumanStrings.year(54));
    assertEquals("1969", HumanStrings.year(-1));
    assertEquals("2024-01", HumanStrings.month(648));
    assertEquals("1969-12", HumanStrings.month(-1));
    assertEquals("2017-12", HumanStrings.month(575));
    assertEquals("2024-01-01", HumanStrings.day(19723));
    assertEquals("2024-01-01-10", HumanStrings.hour(19723 * 24 + 10));
    assertEquals("1969-12-31-23", HumanStrings.hour(-1));
  }

  @Test
  public void partitionPathsUseHumanStrings() {
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "ts", Types.TimestampType.withoutZone()),
        Types.NestedField.optional(3, "amt", Types.DecimalType.of(9, 2)),
        Types.NestedField.optional(4, "name", Types.StringType.get()));
    PartitionSpec spec = PartitionSpec.builderFor(schema)
        .add("ts", TimeTransforms.day(), null)
        .add("ts", TimeTransforms.hour(), null)
        .add("ts", TimeTransforms.month(), null)
        .add("ts", TimeTransforms.year(), null)
        .bucket("id", 16)
        .truncate("amt", 10)
        .identity("name")
        .build();
    long ts = micros("2024-01-01T00:30:00");
    Object[] tuple = new Object[spec.fields().size()];
    for (int i = 0; i < tuple.length; i++) {
      Transform t = spec.fields().get(i).transform();
      Object source = i < 4 ? ts : i == 4 ? 34L : i == 5 ? new BigDecimal("1.05") : null;
      tuple[i] = t.apply(source);
    }
    assertEquals("ts_day=2024-01-01/ts_hour=2024-01-01-00/ts_month=2024-01/ts_year=2024/id_bucket=3/amt_trunc=1.00/name=null",
        spec.partitionToPath(tuple));
  }
}
