import java.sql.*;
import java.util.*;

/**
 * pgJDBC through PgBouncer: java -cp postgresql.jar JdbcPool.java SESSION_URL TRANSACTION_URL BASE.
 * Inserts rows into drv (id bigint, client text) with ids from BASE on: through the session
 * pool with server-side prepared statements from the first execution (prepareThreshold=1),
 * twice in a row so that the second connection's statement names clash unless the pooler's
 * DISCARD ALL dropped the first one's; through the transaction pool with none
 * (prepareThreshold=0, as pgJDBC documents for PgBouncer): a transaction of two rows, a
 * rolled-back one, a batch. After each part it counts its own rows. Prints "acked ID..."
 * and "rolledback ID..."; exits 1 at the first mismatch.
 */
public class JdbcPool {
  static long base;
  static List<Long> acked = new ArrayList<>();
  static List<Long> rolled = new ArrayList<>();

  static void check(String what, long got, long want) {
    if (got != want) {
      System.err.println(what + ": got " + got + ", want " + want);
      System.exit(1);
    }
  }

  static long ownRows(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM drv WHERE id >= ? AND id < ?")) {
      ps.setLong(1, base);
      ps.setLong(2, base + 1000);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  static void insert(Connection c, long id, String client) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO drv VALUES (?, ?)")) {
      ps.setLong(1, id);
      ps.setString(2, client);
      ps.executeUpdate();
    }
  }

  public static void main(String[] args) throws Exception {
    base = Long.parseLong(args[2]);
    for (int round = 0; round < 2; round++) {
      try (Connection c = DriverManager.getConnection(args[0] + "&prepareThreshold=1")) {
        for (int i = 0; i < 5; i++) {
          long k = base + 10 * round + i;
          insert(c, k, "jdbc/session");
          acked.add(k);
        }
        check("session round " + round + ": own rows", ownRows(c), acked.size());
      }
    }
    try (Connection c = DriverManager.getConnection(args[1] + "&prepareThreshold=0")) {
      c.setAutoCommit(false);
      insert(c, base + 100, "jdbc/transaction");
      insert(c, base + 101, "jdbc/transaction");
      c.commit();
      acked.add(base + 100);
      acked.add(base + 101);
      insert(c, base + 200, "jdbc/transaction");
      c.rollback();
      rolled.add(base + 200);
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO drv VALUES (?, ?)")) {
        for (int i = 0; i < 20; i++) {
          ps.setLong(1, base + 300 + i);
          ps.setString(2, "jdbc/batch");
          ps.addBatch();
        }
        ps.executeBatch();
      }
      c.commit();
      for (int i = 0; i < 20; i++) acked.add(base + 300 + i);
      check("transaction pool: own rows", ownRows(c), acked.size());
      c.commit();
      c.setAutoCommit(true);
      for (int i = 0; i < 10; i++) {
        insert(c, base + 400 + i, "jdbc/autocommit");
        acked.add(base + 400 + i);
        check("autocommit: own rows", ownRows(c), acked.size());
      }
    }
    StringBuilder sb = new StringBuilder("acked");
    for (long k : acked) sb.append(' ').append(k);
    System.out.println(sb);
    sb = new StringBuilder("rolledback");
    for (long k : rolled) sb.append(' ').append(k);
    System.out.println(sb);
  }
}
