// Starts a throwaway embedded Neo4j with Bolt on 127.0.0.1, prints its version and URI, stops on stdin EOF.
package stalebench.neo4j;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;

/**
 * Test server for stalebench's Neo4j graph store. Usage: {@code java -cp ... stalebench.neo4j.Neo4jTestServer [port]}
 * (port 0 or absent: a free loopback port). Bolt only, on 127.0.0.1, without TLS; auth and usage reports are
 * disabled; the data directory is a fresh temporary directory, deleted on stop.
 * Stdout protocol, one line each: {@code neo4j-version <v>}, {@code bolt-uri bolt://127.0.0.1:<port>}, {@code ready}.
 * The server stops when stdin closes (the parent exited) or reads {@code stop}, and on SIGTERM.
 */
public final class Neo4jTestServer {
  private Neo4jTestServer() {}

  public static void main(String[] args) throws Exception {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
    if (port == 0) port = freeLoopbackPort();
    Path home = Files.createTempDirectory("stalebench-neo4j-");
    DatabaseManagementService service = new DatabaseManagementServiceBuilder(home)
        .setConfig(BoltConnector.enabled, true)
        .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
        .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
        .setConfig(GraphDatabaseSettings.auth_enabled, false)
        .setConfig(GraphDatabaseSettings.pagecache_memory, 64L * 1024 * 1024)
        // No usage reports: the only traffic this server may produce is on loopback.
        .setConfig(GraphDatabaseSettings.udc_enabled, false)
        // Throwaway data: do not wait the default 10 s for open transactions on stop.
        .setConfig(GraphDatabaseSettings.shutdown_transaction_end_timeout, Duration.ofSeconds(1))
        // Bolt's netty loop otherwise idles 5 s, then waits up to 15 s, before the server stops (measured: 11 s).
        .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0)
        .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_timeout, Duration.ofSeconds(2))
        .build();
    Runnable stop = () -> {
      service.shutdown();
      deleteRecursively(home);
    };
    Thread hook = new Thread(stop, "neo4j-test-server-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    GraphDatabaseService db = service.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
    String version = db.executeTransactionally(
        "CALL dbms.components() YIELD versions, edition RETURN versions[0] + ' ' + edition AS v",
        Map.of(), result -> String.valueOf(result.next().get("v")));
    System.out.println("neo4j-version " + version);
    System.out.println("bolt-uri bolt://127.0.0.1:" + port);
    System.out.println("ready");
    System.out.flush();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null && !line.trim().equals("stop")) {
        // keep serving until stdin closes or says stop
      }
    }
    Runtime.getRuntime().removeShutdownHook(hook);
    stop.run();
    System.out.println("stopped");
  }

  private static int freeLoopbackPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static void deleteRecursively(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException ignored) {
      // a leftover temp directory is harmless
    }
  }
}
