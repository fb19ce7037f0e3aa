package io.floe.format.commit;

import static org.junit.Assert.assertEquals;

import io.floe.format.commit.PartitionReplacement.Outcome;
import io.floe.format.manifest.DataFile;
import io.floe.format.manifest.Metrics;
import io.floe.format.partition.PartitionData;
import io.floe.format.partition.PartitionSpec;
import io.floe.format.partition.TimeTransforms;
import io.floe.format.types.Conversions;
import io.floe.format.types.Schema;
import io.floe.format.types.Types;
import java.util.Map;
import java.util.Set;
import org.junit.Test;

/** How a dynamic overwrite treats a file of an older partition spec: remove, keep, or refuse. */
public class TestPartitionReplacement {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "category", Types.StringType.get()),
      Types.NestedField.optional(3, "ts", Types.TimestampType.withZone()),
      Types.NestedField.optional(4, "n", Types.IntegerType.get()));
  private static final long HOUR = 3_600_000_000L;
  private static final long DAY = 24 * HOUR;
  private static final int MARCH_1_2024 = 19783; // days since the epoch

  private static PartitionSpec.Builder spec(int id) {
    return PartitionSpec.builderFor(SCHEMA).withSpecId(id);
  }

  private static DataFile file(PartitionSpec spec, PartitionData partition, Long tsLower, Long tsUpper, long nulls) {
    Metrics metrics = new Metrics(10L, Map.of(), Map.of(3, 10L), Map.of(3, nulls), Map.of(),
        tsLower == null ? Map.of() : Map.of(3, Conversions.toByteBuffer(Types.TimestampType.withZone(), tsLower)),
        tsUpper == null ? Map.of() : Map.of(3, Conversions.toByteBuffer(Types.TimestampType.withZone(), tsUpper)));
    return DataFile.builder(spec).withPath("file:/t/" + partition + ".parquet").withFormat("PARQUET")
        .withPartition(partition).withRecordCount(10).withFileSizeInBytes(100).withMetrics(metrics).build();
  }

  private static long micros(int dayOfMarch, int hour) {
    return (MARCH_1_2024 + dayOfMarch - 1) * DAY + hour * HOUR;
  }

  @Test
  public void anOldFileIsProjectedFromItsPartitionAndBounds() {
    PartitionSpec old = spec(0).identity("category").build();
    PartitionSpec current = spec(1).identity("category").add("ts", TimeTransforms.day(), "ts_day").build();
    int day1 = MARCH_1_2024;
    PartitionReplacement r = new PartitionReplacement(SCHEMA, current, Set.of(PartitionData.of("b", day1)));
    DataFile onlyDay1 = file(old, PartitionData.of("b"), micros(1, 1), micros(1, 23), 0);
    DataFile days1And2 = file(old, PartitionData.of("b"), micros(1, 1), micros(2, 3), 0);
    DataFile otherCategory = file(old, PartitionData.of("a"), micros(1, 1), micros(1, 2), 0);
    DataFile laterDays = file(old, PartitionData.of("b"), micros(2, 1), micros(4, 2), 0);
    DataFile noBounds = file(old, PartitionData.of("b"), null, null, 0);
    DataFile someNulls = file(old, PartitionData.of("b"), micros(1, 1), micros(1, 2), 3);
    assertEquals(Outcome.REMOVE, r.outcome(onlyDay1, old));
    assertEquals(Outcome.MIXED, r.outcome(days1And2, old));
    assertEquals(Outcome.KEEP, r.outcome(otherCategory, old));
    assertEquals(Outcome.KEEP, r.outcome(laterDays, old));
    assertEquals(Outcome.MIXED, r.outcome(noBounds, old));
    assertEquals(Outcome.MIXED, r.outcome(someNulls, old));
  }

  @Test
  public void aFinerTimeUnitOrIdentityDeterminesTheCoarserOne() {
    PartitionSpec byHour = spec(0).add("ts", TimeTransforms.hour(), "ts_hour").build();
    PartitionSpec byMonth = spec(1).add("ts", TimeTransforms.month(), "ts_month").build();
    int march = TimeTransforms.monthsFromMicros(micros(1, 0));
    PartitionReplacement r = new PartitionReplacement(SCHEMA, byMonth, Set.of(PartitionData.of(march)));
    int hourInMarch = TimeTransforms.hoursFromMicros(micros(20, 5));
    int hourInApril = TimeTransforms.hoursFromMicros(micros(20, 5) + 31 * DAY);
    assertEquals(Outcome.REMOVE, r.outcome(file(byHour, PartitionData.of(hourInMarch), null, null, 0), byHour));
    assertEquals(Outcome.KEEP, r.outcome(file(byHour, PartitionData.of(hourInApril), null, null, 0), byHour));
    // a null hour means null timestamps: month null, which is not replaced
    assertEquals(Outcome.KEEP, r.outcome(file(byHour, PartitionData.of((Object) null), null, null, 0), byHour));
  }

  @Test
  public void truncateWidthsThatNestAndUnpartitionedTargets() {
    PartitionSpec by10 = spec(0).truncate("n", 10).build();
    PartitionSpec by100 = spec(1).truncate("n", 100).build();
    PartitionReplacement r = new PartitionReplacement(SCHEMA, by100, Set.of(PartitionData.of(200)));
    assertEquals(Outcome.REMOVE, r.outcome(file(by10, PartitionData.of(250), null, null, 0), by10));
    assertEquals(Outcome.KEEP, r.outcome(file(by10, PartitionData.of(350), null, null, 0), by10));
    PartitionSpec none = spec(2).build();
    PartitionReplacement all = new PartitionReplacement(SCHEMA, none, Set.of(PartitionData.empty()));
    assertEquals(Outcome.REMOVE, all.outcome(file(by10, PartitionData.of(250), null, null, 0), by10));
  }

  @Test
  public void specsAreDescribedByColumn() {
    PartitionSpec current = spec(1).identity("category").add("ts", TimeTransforms.day(), "ts_day").build();
    assertEquals("spec 1 (category, day(ts))", PartitionReplacement.describe(current, SCHEMA));
    assertEquals("spec 0 (unpartitioned)", PartitionReplacement.describe(spec(0).build(), SCHEMA));
  }
}
