package io.floe.spark.functions;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.HexFormat;
import org.apache.spark.sql.catalyst.encoders.EncoderUtils;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.functions.BoundFunction;
import org.apache.spark.sql.connector.catalog.functions.ScalarFunction;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.Test;

/**
 * Floe's SQL functions against the spec's vectors (docs/format.md, 'Partition transforms'), through both entry
 * points Spark uses: {@code produceResult(InternalRow)} and the static {@code invoke} method that
 * code generation calls, whose signature must be the one Spark looks for.
 */
public class TestFloeFunctions {
  private static final DataType INT = DataTypes.IntegerType;

  private static long micros(String isoLocal) {
    return ChronoUnit.MICROS.between(LocalDateTime.of(1970, 1, 1, 0, 0), LocalDateTime.parse(isoLocal));
  }

  private static int days(String isoDate) {
    return (int) LocalDate.parse(isoDate).toEpochDay();
  }

  private static Decimal decimal(String value, int precision, int scale) {
    return Decimal.apply(new BigDecimal(value), precision, scale);
  }

  private static byte[] hex(String hex) {
    return HexFormat.of().parseHex(hex);
  }

  private static BoundFunction bind(UnboundFunction function, DataType... types) {
    StructField[] fields = new StructField[types.length];
    for (int i = 0; i < types.length; i++) {
      fields[i] = DataTypes.createStructField("a" + i, types[i], true);
    }
    return function.bind(new StructType(fields));
  }

  /** The static magic method Spark's codegen calls: its parameters are the input types' Java classes. */
  private static Method magicMethod(BoundFunction bound) throws NoSuchMethodException {
    Class<?>[] classes =
        Arrays.stream(bound.inputTypes()).map(EncoderUtils::dataTypeJavaClass).toArray(Class<?>[]::new);
    Method method = bound.getClass().getMethod(ScalarFunction.MAGIC_METHOD_NAME, classes);
    assertTrue(bound + ": invoke must be static", Modifier.isStatic(method.getModifiers()));
    return method;
  }

  /** Evaluates through produceResult and through invoke; both must give the same result. */
  private static Object call(UnboundFunction function, DataType[] types, Object... args) throws Exception {
    BoundFunction bound = bind(function, types);
    Object viaRow = ((ScalarFunction<?>) bound).produceResult(new GenericInternalRow(args));
    Object viaInvoke;
    try {
      viaInvoke = magicMethod(bound).invoke(null, args);
    } catch (InvocationTargetException e) {
      throw (Exception) e.getCause();
    }
    if (viaRow instanceof byte[]) {
      assertArrayEquals((byte[]) viaRow, (byte[]) viaInvoke);
    } else {
      assertEquals(viaRow, viaInvoke);
    }
    return viaRow;
  }

  private static DataType[] types(DataType... types) {
    return types;
  }

  private static Object bucket(int n, DataType type, Object value) throws Exception {
    return call(new BucketFunction(), types(INT, type), n, value);
  }

  private static Object truncate(int width, DataType type, Object value) throws Exception {
    return call(new TruncateFunction(), types(INT, type), width, value);
  }

  @Test
  public void bucketVectors() throws Exception {
    assertEquals(3, bucket(16, INT, 34));
    assertEquals(3, bucket(16, DataTypes.LongType, 34L));
    assertEquals(3, bucket(16, DataTypes.createDecimalType(4, 2), decimal("14.20", 4, 2)));
    assertEquals(10, bucket(16, DataTypes.DateType, days("2017-11-16")));
    assertEquals(7, bucket(16, DataTypes.TimestampType, micros("2017-11-16T22:31:08")));
    assertEquals(7, bucket(16, DataTypes.TimestampNTZType, micros("2017-11-16T22:31:08")));
    assertEquals(6, bucket(16, DataTypes.TimestampType, micros("2017-11-16T22:31:08.000001")));
    assertEquals(6, bucket(16, DataTypes.TimestampNTZType, micros("2017-11-16T22:31:08.000001")));
    assertEquals(9, bucket(16, DataTypes.StringType, UTF8String.fromString("iceberg")));
    assertEquals(9, bucket(16, DataTypes.StringType, UTF8String.fromString("34")));
    assertEquals(9, bucket(16, DataTypes.BinaryType, hex("00010203")));
    assertEquals(12, bucket(16, DataTypes.LongType, 0L));
    assertEquals(8, bucket(16, DataTypes.LongType, -1L));
    assertEquals(0, bucket(16, DataTypes.StringType, UTF8String.fromString("")));
    assertEquals(3, bucket(16, DataTypes.createDecimalType(9, 2), decimal("-1.00", 9, 2)));
    assertEquals(7, bucket(16, DataTypes.createDecimalType(9, 2), decimal("0.00", 9, 2)));
  }

  @Test
  public void bucketOfTinyintAndSmallintIsTheBucketOfTheInt() {
    for (DataType small : new DataType[] {DataTypes.ByteType, DataTypes.ShortType}) {
      BoundFunction bound = bind(new BucketFunction(), DataTypes.ShortType, small);
      assertArrayEquals(new DataType[] {INT, INT}, bound.inputTypes()); // Spark casts the arguments
      assertEquals("floe.bucket(int)", bound.canonicalName());
    }
  }

  @Test
  public void truncateVectors() throws Exception {
    int[][] ints = {{0, 0}, {1, 0}, {5, 0}, {9, 0}, {10, 10}, {11, 10}, {-1, -10}, {-5, -10}, {-10, -10}, {-11, -20}};
    for (int[] c : ints) {
      assertEquals(c[1], truncate(10, INT, c[0]));
      assertEquals((long) c[1], truncate(10, DataTypes.LongType, (long) c[0]));
      assertEquals((byte) c[1], truncate(10, DataTypes.ByteType, (byte) c[0]));
      assertEquals((short) c[1], truncate(10, DataTypes.ShortType, (short) c[0]));
    }
    DataType dec = DataTypes.createDecimalType(9, 2);
    String[][] decimals =
        {{"12.34", "12.30"}, {"12.30", "12.30"}, {"12.29", "12.20"}, {"0.05", "0.00"}, {"-0.05", "-0.10"}};
    for (String[] c : decimals) {
      assertEquals(decimal(c[1], 9, 2), truncate(10, dec, decimal(c[0], 9, 2)));
    }
    assertEquals(decimal("10.50", 9, 2), truncate(50, dec, decimal("10.65", 9, 2)));
    DataType str = DataTypes.StringType;
    assertEquals(UTF8String.fromString("abcde"), truncate(5, str, UTF8String.fromString("abcdefg")));
    assertEquals(UTF8String.fromString("abc"), truncate(5, str, UTF8String.fromString("abc")));
    assertEquals(UTF8String.fromString("ice"), truncate(3, str, UTF8String.fromString("iceberg")));
    assertEquals(UTF8String.fromString("\ud83d\ude00a"), truncate(2, str, UTF8String.fromString("\ud83d\ude00abc")));
    assertArrayEquals("abcd".getBytes(StandardCharsets.UTF_8),
        (byte[]) truncate(4, DataTypes.BinaryType, "abcdefg".getBytes(StandardCharsets.UTF_8)));
    assertArrayEquals(hex("010203"), (byte[]) truncate(3, DataTypes.BinaryType, hex("0102030405")));
  }

  @Test
  public void truncateKeepsTheValueType() {
    DataType[] types = {DataTypes.ByteType, DataTypes.ShortType, INT, DataTypes.LongType,
        DataTypes.createDecimalType(38, 10), DataTypes.StringType, DataTypes.BinaryType};
    for (DataType type : types) {
      assertEquals(type, bind(new TruncateFunction(), INT, type).resultType());
    }
  }

  @Test
  public void timeVectors() throws Exception {
    for (DataType ts : new DataType[] {DataTypes.TimestampType, DataTypes.TimestampNTZType}) {
      Object[][] cases = {
          {micros("2017-12-01T10:12:55.038194"), 47, 575, 17501, 420034},
          {micros("1970-01-01T00:00:01.000001"), 0, 0, 0, 0},
          {micros("1969-12-31T23:59:59.999999"), -1, -1, -1, -1}};
      for (Object[] c : cases) {
        assertEquals(c[1], call(new YearsFunction(), types(ts), c[0]));
        assertEquals(c[2], call(new MonthsFunction(), types(ts), c[0]));
        assertEquals(c[3], call(new DaysFunction(), types(ts), c[0]));
        assertEquals(c[4], call(new HoursFunction(), types(ts), c[0]));
      }
    }
    DataType date = DataTypes.DateType;
    assertEquals(-1, call(new YearsFunction(), types(date), -365));
    assertEquals(-12, call(new MonthsFunction(), types(date), -365));
    assertEquals(-2, call(new YearsFunction(), types(date), -366));
    assertEquals(-13, call(new MonthsFunction(), types(date), -366));
    assertEquals(17501, call(new DaysFunction(), types(date), days("2017-12-01")));
  }

  @Test
  public void resultTypesAreIcebergs() {
    DataType ts = DataTypes.TimestampType;
    assertEquals(INT, bind(new YearsFunction(), ts).resultType());
    assertEquals(INT, bind(new MonthsFunction(), DataTypes.DateType).resultType());
    assertEquals(DataTypes.DateType, bind(new DaysFunction(), ts).resultType());
    assertEquals(DataTypes.DateType, bind(new DaysFunction(), DataTypes.DateType).resultType());
    assertEquals(INT, bind(new HoursFunction(), DataTypes.TimestampNTZType).resultType());
    assertEquals(INT, bind(new BucketFunction(), INT, DataTypes.StringType).resultType());
  }

  private static Object produceResult(BoundFunction bound, Object... args) {
    return ((ScalarFunction<?>) bound).produceResult(new GenericInternalRow(args));
  }

  @Test
  public void nullsGiveNull() throws Exception {
    assertNull(produceResult(bind(new BucketFunction(), INT, INT), 16, null));
    assertNull(produceResult(bind(new BucketFunction(), INT, INT), null, 1));
    assertNull(produceResult(bind(new TruncateFunction(), INT, DataTypes.LongType), 10, null));
    assertNull(produceResult(bind(new DaysFunction(), DataTypes.DateType), (Object) null));
    assertNull(produceResult(bind(new HoursFunction(), DataTypes.TimestampType), (Object) null));
    // Spark passes null objects (not primitives) to invoke: those variants must return null
    assertNull(bucket(16, DataTypes.StringType, null));
    assertNull(bucket(16, DataTypes.BinaryType, null));
    assertNull(bucket(16, DataTypes.createDecimalType(9, 2), null));
    assertNull(truncate(3, DataTypes.StringType, null));
    assertNull(truncate(3, DataTypes.BinaryType, null));
    assertNull(truncate(3, DataTypes.createDecimalType(9, 2), null));
  }

  @Test
  public void everyVariantHasTheMagicMethod() throws Exception {
    DataType[] values = {DataTypes.ByteType, DataTypes.ShortType, INT, DataTypes.LongType, DataTypes.DateType,
        DataTypes.TimestampType, DataTypes.TimestampNTZType, DataTypes.createDecimalType(20, 4),
        DataTypes.StringType, DataTypes.BinaryType};
    for (DataType v : values) {
      magicMethod(bind(new BucketFunction(), INT, v));
      if (!(v instanceof org.apache.spark.sql.types.DatetimeType)) {
        magicMethod(bind(new TruncateFunction(), INT, v));
      } else {
        magicMethod(bind(new YearsFunction(), v));
        magicMethod(bind(new MonthsFunction(), v));
        magicMethod(bind(new DaysFunction(), v));
        if (v != DataTypes.DateType) {
          magicMethod(bind(new HoursFunction(), v));
        }
      }
    }
  }

  @Test
  public void invalidArgumentsAreClearErrors() {
    IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> bucket(0, INT, 1));
    assertEquals("Invalid number of buckets for floe.system.bucket: 0 (must be > 0)", zero.getMessage());
    IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
        () -> truncate(-1, DataTypes.StringType, UTF8String.fromString("a")));
    assertEquals("Invalid width for floe.system.truncate: -1 (must be > 0)", negative.getMessage());
    UnsupportedOperationException hours = assertThrows(UnsupportedOperationException.class,
        () -> bind(new HoursFunction(), DataTypes.DateType));
    assertEquals("Cannot apply floe.system.hours(value) to a value of type date: expected timestamp or"
        + " timestamp_ntz", hours.getMessage());
    UnsupportedOperationException dbl = assertThrows(UnsupportedOperationException.class,
        () -> bind(new BucketFunction(), INT, DataTypes.DoubleType));
    assertTrue(dbl.getMessage(), dbl.getMessage().contains("value of type double"));
    assertThrows(UnsupportedOperationException.class, () -> bind(new TruncateFunction(), INT, DataTypes.DateType));
    assertThrows(UnsupportedOperationException.class, () -> bind(new BucketFunction(), DataTypes.LongType, INT));
    UnsupportedOperationException arity = assertThrows(UnsupportedOperationException.class,
        () -> bind(new BucketFunction(), INT));
    assertTrue(arity.getMessage(), arity.getMessage().startsWith("Wrong number of arguments for floe.system.bucket"));
    assertThrows(UnsupportedOperationException.class, () -> bind(new DaysFunction(), DataTypes.DateType, INT));
  }

  @Test
  public void registryListsAndLoadsTheFunctionsInSystemAndTheEmptyNamespace() {
    String[] names = {"bucket", "truncate", "years", "months", "days", "hours"};
    for (String[] ns : new String[][] {{"system"}, {}}) {
      assertArrayEquals(names, Arrays.stream(FloeFunctions.list(ns)).map(Identifier::name).toArray());
      for (String name : names) {
        assertEquals(name, FloeFunctions.load(Identifier.of(ns, name)).name());
      }
    }
    assertEquals("bucket", FloeFunctions.load(Identifier.of(new String[] {"system"}, "BUCKET")).name());
    assertNull(FloeFunctions.load(Identifier.of(new String[] {"system"}, "year")));
    assertNull(FloeFunctions.load(Identifier.of(new String[] {"db"}, "bucket")));
    assertEquals(0, FloeFunctions.list(new String[] {"db"}).length);
  }

  @Test
  public void boundFunctionsAreEqualByCanonicalName() {
    BoundFunction a = bind(new BucketFunction(), INT, DataTypes.LongType);
    assertEquals(a, bind(new BucketFunction(), DataTypes.ShortType, DataTypes.LongType));
    assertEquals(a.hashCode(), bind(new BucketFunction(), INT, DataTypes.LongType).hashCode());
    assertNotEquals(a, bind(new BucketFunction(), INT, DataTypes.TimestampType));
    assertEquals("floe.days(timestamp_ntz)", bind(new DaysFunction(), DataTypes.TimestampNTZType).canonicalName());
    assertEquals("floe.truncate(decimal(9,2))",
        bind(new TruncateFunction(), INT, DataTypes.createDecimalType(9, 2)).canonicalName());
  }
}
