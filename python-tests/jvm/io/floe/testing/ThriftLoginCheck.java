package io.floe.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Logs in to a Thrift JDBC server with each given password and, when the login works, runs the
 * statements; prints one line per outcome ({@code LOGIN-REFUSED <message>}, {@code ROW <cells>},
 * {@code ERROR <message>}) for the R6 server test.
 * Usage: ThriftLoginCheck jdbc-url user password1[,password2...] statement...
 */
public final class ThriftLoginCheck {
  private ThriftLoginCheck() {}

  public static void main(String[] args) throws Exception {
    Class.forName("org.apache.hive.jdbc.HiveDriver");
    for (String password : args[2].split(",", -1)) {
      Connection connection;
      try {
        connection = DriverManager.getConnection(args[0], args[1], password);
      } catch (SQLException e) {
        System.out.println("LOGIN-REFUSED " + oneLine(e.getMessage()));
        continue;
      }
      System.out.println("LOGIN-OK");
      try (connection; Statement statement = connection.createStatement()) {
        for (int i = 3; i < args.length; i++) {
          run(statement, args[i]);
        }
      }
    }
  }

  private static void run(Statement statement, String sql) {
    try {
      if (!statement.execute(sql)) {
        System.out.println("DONE");
        return;
      }
      try (ResultSet rows = statement.getResultSet()) {
        int columns = rows.getMetaData().getColumnCount();
        while (rows.next()) {
          StringBuilder line = new StringBuilder("ROW");
          for (int c = 1; c <= columns; c++) {
            line.append('\t').append(rows.getString(c));
          }
          System.out.println(oneLine(line.toString()));
        }
      }
    } catch (SQLException e) {
      System.out.println("ERROR " + oneLine(e.getMessage()));
    }
  }

  private static String oneLine(String s) {
    return String.valueOf(s).replace('\n', ' ');
  }
}
