import java.math.BigDecimal;
import java.sql.*;
import java.util.*;

/**
 * pgJDBC against lakepg: java -cp postgresql.jar:DIR JdbcCheck URL. Exits 1 at the first
 * mismatch. With "metadata" as a second argument it instead prints, one line each, what the
 * DatabaseMetaData calls BI tools make answer for the fixture's tables (for TestBICatalog).
 */
public class JdbcCheck {
  static void check(String what, Object got, Object want) {
    if (!Objects.equals(got, want)) {
      System.err.println(what + ": got " + got + ", want " + want);
      System.exit(1);
    }
  }

  public static void main(String[] args) throws Exception {
    try (Connection c = DriverManager.getConnection(args[0])) {
      if (args.length > 1 && args[1].equals("metadata")) {
        metadata(c);
        return;
      }
      DatabaseMetaData md = c.getMetaData();
      check("product", md.getDatabaseProductName(), "PostgreSQL");
      check("major version", md.getDatabaseMajorVersion(), 15);

      // The DatabaseMetaData calls BI tools make at connect.
      Set<String> tables = new TreeSet<>();
      try (ResultSet rs = md.getTables(null, null, "%", new String[] {"TABLE"})) {
        while (rs.next()) tables.add(rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME"));
      }
      check("getTables has the fixture", tables.containsAll(List.of("public.items", "sales.orders")), true);
      List<String> cols = new ArrayList<>();
      try (ResultSet rs = md.getColumns(null, "sales", "orders", "%")) {
        while (rs.next()) {
          cols.add(rs.getString("COLUMN_NAME") + ":" + rs.getString("TYPE_NAME") + ":" + rs.getInt("DATA_TYPE") + ":"
              + rs.getString("IS_NULLABLE"));
        }
      }
      check("getColumns first", cols.get(0), "id:int4:4:NO");
      check("getColumns amount", cols.get(2), "amount:numeric:2:YES");
      check("getColumns count", cols.size(), 15);
      try (ResultSet rs = md.getColumns(null, "sales", "orders", "amount")) {
        rs.next();
        check("getColumns numeric size", rs.getInt("COLUMN_SIZE") + "," + rs.getInt("DECIMAL_DIGITS"), "12,2");
      }
      Set<String> schemas = new TreeSet<>();
      try (ResultSet rs = md.getSchemas()) {
        while (rs.next()) schemas.add(rs.getString("TABLE_SCHEM"));
      }
      check("getSchemas", schemas.containsAll(List.of("public", "sales", "pg_catalog", "information_schema")), true);
      Set<String> typeNames = new HashSet<>();
      try (ResultSet rs = md.getTypeInfo()) {
        while (rs.next()) typeNames.add(rs.getString("TYPE_NAME"));
      }
      check("getTypeInfo", typeNames.containsAll(List.of("int4", "numeric", "varchar", "timestamptz", "uuid", "bytea")), true);
      try (ResultSet rs = md.getImportedKeys(null, "sales", "orders")) {
        check("getImportedKeys (a lake has none)", rs.next(), false);
      }

      // PreparedStatement parameters of every type.
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT ?::int2, ?::int4, ?::int8, ?::float4, ?::float8, ?::numeric, ?::text, ?::varchar, ?::bool, ?::date, ?::timestamp, ?::timestamptz, ?::bytea, ?::uuid")) {
        ps.setShort(1, (short) 1);
        ps.setInt(2, 2);
        ps.setLong(3, 3L);
        ps.setFloat(4, 1.5f);
        ps.setDouble(5, 2.5);
        ps.setBigDecimal(6, new BigDecimal("-1.25"));
        ps.setString(7, "t");
        ps.setString(8, "v");
        ps.setBoolean(9, true);
        ps.setDate(10, java.sql.Date.valueOf("2024-01-02"));
        ps.setTimestamp(11, Timestamp.valueOf("2024-01-02 03:04:05"));
        ps.setObject(12, java.time.OffsetDateTime.parse("2024-01-02T03:04:05Z"));
        ps.setBytes(13, new byte[] {0, (byte) 255});
        ps.setObject(14, UUID.fromString("00000000-0000-0000-0000-000000000007"));
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          check("int2", rs.getShort(1), (short) 1);
          check("int4", rs.getInt(2), 2);
          check("int8", rs.getLong(3), 3L);
          check("float4", rs.getFloat(4), 1.5f);
          check("float8", rs.getDouble(5), 2.5);
          check("numeric", rs.getBigDecimal(6), new BigDecimal("-1.25"));
          check("text", rs.getString(7), "t");
          check("varchar", rs.getString(8), "v");
          check("bool", rs.getBoolean(9), true);
          check("date", rs.getDate(10).toString(), "2024-01-02");
          check("timestamp", rs.getTimestamp(11).toString(), "2024-01-02 03:04:05.0");
          check("timestamptz", rs.getObject(12, java.time.OffsetDateTime.class).toInstant().toString(), "2024-01-02T03:04:05Z");
          check("bytea", Arrays.toString(rs.getBytes(13)), "[0, -1]");
          check("uuid", rs.getObject(14), UUID.fromString("00000000-0000-0000-0000-000000000007"));
        }
      }
      // Server-prepared after prepareThreshold uses: the same statement many times.
      try (PreparedStatement ps = c.prepareStatement("SELECT customer FROM sales.orders WHERE id = ?")) {
        for (int i = 0; i < 8; i++) {
          ps.setInt(1, 1 + i % 2);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            check("prepared run " + i, rs.getString(1), i % 2 == 0 ? "alice" : "bob");
          }
        }
      }

      // ResultSetMetaData: types, numeric precision and scale, nullability.
      try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT id, amount, customer, created_tz FROM sales.orders")) {
        ResultSetMetaData rmd = rs.getMetaData();
        check("column 1 type", rmd.getColumnTypeName(1), "int4");
        check("numeric(12,2)", rmd.getPrecision(2) + "," + rmd.getScale(2), "12,2");
        check("column 3 type", rmd.getColumnTypeName(3), "varchar");
        check("timestamptz type", rmd.getColumnType(4), Types.TIMESTAMP);
      }

      // The table and column a result column comes from (RowDescription's table OID and
      // attnum, looked up in pg_class and pg_attribute): what editable result sets use.
      try (Statement st = c.createStatement();
           ResultSet rs = st.executeQuery("SELECT id AS ident, customer, amount * 2 AS twice FROM sales.orders")) {
        ResultSetMetaData rmd = rs.getMetaData();
        org.postgresql.PGResultSetMetaData pmd = rmd.unwrap(org.postgresql.PGResultSetMetaData.class);
        check("getTableName", rmd.getTableName(1) + "," + rmd.getTableName(2) + "," + rmd.getTableName(3), "orders,orders,");
        check("getBaseSchemaName", pmd.getBaseSchemaName(1) + "," + pmd.getBaseSchemaName(3), "sales,");
        check("getBaseColumnName", pmd.getBaseColumnName(1) + "," + pmd.getBaseColumnName(3), "id,");
        check("getColumnLabel", rmd.getColumnLabel(1), "ident");
        check("isNullable", rmd.isNullable(1) + "," + rmd.isNullable(3),
            ResultSetMetaData.columnNoNulls + "," + ResultSetMetaData.columnNullableUnknown);
        check("isAutoIncrement", rmd.isAutoIncrement(1), false);
      }

      // setFetchSize with autocommit off: cursor-based fetching through portals with a row
      // limit; every row must arrive.
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        st.setFetchSize(100);
        try (ResultSet rs = st.executeQuery("SELECT g FROM generate_series(1, 25000) AS s(g)")) {
          long n = 0, sum = 0;
          while (rs.next()) {
            n++;
            sum += rs.getLong(1);
          }
          check("rows fetched in pages of 100", n, 25000L);
          check("sum of the pages", sum, 25000L * 25001L / 2);
        }
      }
      c.commit();

      // Errors carry their SQLSTATE; the connection goes on after rollback.
      try (Statement st = c.createStatement()) {
        try {
          st.executeQuery("SELECT 1/0");
          check("1/0 failed", false, true);
        } catch (SQLException e) {
          check("1/0 SQLSTATE", e.getSQLState(), "22012");
        }
        c.rollback();
        try (ResultSet rs = st.executeQuery("SELECT count(*) FROM sales.orders")) {
          rs.next();
          check("after rollback", rs.getInt(1), 2);
        }
      }
      c.commit();
    }
    System.out.println("pgjdbc: all checks passed");
  }

  /** One line per DatabaseMetaData call: its name, then what it answered, or ERROR and the SQLSTATE. */
  static void metadata(Connection c) throws SQLException {
    DatabaseMetaData md = c.getMetaData();
    Map<String, java.util.concurrent.Callable<ResultSet>> calls = new LinkedHashMap<>();
    calls.put("getTables", () -> md.getTables(null, "sales", "%", new String[] {"TABLE", "VIEW"}));
    calls.put("getTables.public", () -> md.getTables(null, "public", "items", null));
    calls.put("getColumns", () -> md.getColumns(null, "sales", "orders", "%"));
    calls.put("getColumns.items", () -> md.getColumns(null, "public", "items", "%"));
    calls.put("getSchemas", () -> md.getSchemas());
    calls.put("getSchemas.pattern", () -> md.getSchemas(null, "sal%"));
    calls.put("getCatalogs", () -> md.getCatalogs());
    calls.put("getTableTypes", () -> md.getTableTypes());
    calls.put("getPrimaryKeys", () -> md.getPrimaryKeys(null, "sales", "orders"));
    calls.put("getImportedKeys", () -> md.getImportedKeys(null, "sales", "orders"));
    calls.put("getExportedKeys", () -> md.getExportedKeys(null, "sales", "orders"));
    calls.put("getIndexInfo", () -> md.getIndexInfo(null, "sales", "orders", false, true));
    calls.put("getBestRowIdentifier", () -> md.getBestRowIdentifier(null, "sales", "orders", DatabaseMetaData.bestRowSession, true));
    calls.put("getVersionColumns", () -> md.getVersionColumns(null, "sales", "orders"));
    calls.put("getTablePrivileges", () -> md.getTablePrivileges(null, "sales", "orders"));
    calls.put("getFunctions", () -> md.getFunctions(null, "sales", "%"));
    calls.put("getProcedures", () -> md.getProcedures(null, "sales", "%"));
    calls.put("getUDTs", () -> md.getUDTs(null, "sales", "%", null));
    calls.put("getTypeInfo", () -> md.getTypeInfo());
    for (Map.Entry<String, java.util.concurrent.Callable<ResultSet>> e : calls.entrySet()) {
      StringBuilder sb = new StringBuilder(e.getKey()).append('\t');
      try (ResultSet rs = e.getValue().call()) {
        ResultSetMetaData rmd = rs.getMetaData();
        for (int i = 1; i <= rmd.getColumnCount(); i++) sb.append(rmd.getColumnLabel(i)).append(':').append(rmd.getColumnTypeName(i)).append(',');
        List<String> rows = new ArrayList<>();
        while (rs.next()) {
          StringBuilder row = new StringBuilder();
          for (int i = 1; i <= rmd.getColumnCount(); i++) row.append(rs.getString(i)).append('|');
          rows.add(row.toString());
        }
        if (e.getKey().equals("getTypeInfo")) {
          // PostgreSQL has a row type (and its array) for each of its catalog relations, of
          // which lakepg emulates a part: compare every other type
          java.util.Set<String> rowTypes = new java.util.HashSet<>();
          try (Statement st = c.createStatement();
               ResultSet rt = st.executeQuery("SELECT typname FROM pg_catalog.pg_type WHERE typtype = 'c' AND typnamespace IN (11, 13207)")) {
            while (rt.next()) {
              rowTypes.add(rt.getString(1));
              rowTypes.add("_" + rt.getString(1));
            }
          }
          rows.removeIf(r -> rowTypes.contains(r.substring(0, r.indexOf('|'))));
        }
        if (e.getKey().equals("getCatalogs")) {
          // a lake is one database; PostgreSQL's cluster also has postgres and other tests' databases
          String current = c.getCatalog() + "|";
          rows.removeIf(r -> !r.equals(current) && !r.startsWith("template"));
        }
        if (e.getKey().equals("getSchemas")) {
          rows.removeIf(r -> r.startsWith("pg_toast") || r.startsWith("pg_temp"));
        }
        Collections.sort(rows);
        sb.append('\t').append(String.join(";", rows));
      } catch (Exception ex) {
        String state = ex instanceof SQLException ? ((SQLException) ex).getSQLState() : ex.getClass().getSimpleName();
        sb.append("ERROR ").append(state).append(' ').append(String.valueOf(ex.getMessage()).split("\n")[0]);
      }
      System.out.println(sb);
    }
  }
}
