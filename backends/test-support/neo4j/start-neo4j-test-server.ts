// Builds (through Maven, when stale) and starts the throwaway Neo4j test server of this folder; test-only.
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const CLASSPATH_FILE = join(HERE, 'target', 'classpath.txt');
const SOURCES = [join(HERE, 'pom.xml'), join(HERE, 'src/main/java/stalebench/neo4j/Neo4jTestServer.java')];

/** A started server. */
export interface Neo4jTestServer {
  /** `bolt://127.0.0.1:<port>`; auth is disabled. */
  uri: string;
  /** `5.26.30 community`, as `dbms.components()` reports it. */
  version: string;
  /** Milliseconds spent in Maven (0 when the build was up to date) and until Bolt answered. */
  timings: { buildMs: number; startMs: number };
  /** Stops the server and deletes its data directory. */
  stop(): Promise<void>;
}

/**
 * Starts the server: `mvn -q compile dependency:build-classpath` when the pom or the Java source is newer
 * than the last build (the first build downloads Neo4j from Maven Central), then `java` on a free loopback
 * port. Resolves once the launcher printed `ready` (its database, and with it Bolt, has started).
 *
 * @example
 * const server = await startNeo4jTestServer();
 * try { ... server.uri ... } finally { await server.stop(); }
 */
export async function startNeo4jTestServer(options: { timeoutMs?: number } = {}): Promise<Neo4jTestServer> {
  const { args, buildMs } = await neo4jJavaArgs();
  const started = Date.now();
  const child = spawn('java', args, { stdio: 'pipe' });
  const stderr: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line) > 40 && stderr.shift());
  const fields = await readBanner(child, options.timeoutMs ?? 120_000, stderr);
  return {
    uri: fields.uri,
    version: fields.version,
    timings: { buildMs, startMs: Date.now() - started },
    stop: () => stop(child),
  };
}

/**
 * The launcher's `java` arguments, after `mvn -q compile dependency:build-classpath` when the pom or the Java source
 * is newer than the last build. `jvmOptions` go before the class name.
 */
async function neo4jJavaArgs(jvmOptions: readonly string[] = []): Promise<{ args: string[]; buildMs: number }> {
  const buildStart = Date.now();
  if (isStale()) {
    await run('mvn', ['-q', '-B', '-f', join(HERE, 'pom.xml'), 'compile', 'dependency:build-classpath']);
    const now = new Date();
    utimesSync(CLASSPATH_FILE, now, now); // the plugin leaves an unchanged file untouched
  }
  const buildMs = Date.now() - buildStart;
  const classpath = `${join(HERE, 'target', 'classes')}:${readFileSync(CLASSPATH_FILE, 'utf8').trim()}`;
  return { args: ['-Xmx1g', ...jvmOptions, '-cp', classpath, 'stalebench.neo4j.Neo4jTestServer', '0'], buildMs };
}

/** A server started by {@link startDetachedNeo4jServer}. */
export interface DetachedNeo4jServer {
  uri: string;
  version: string;
  /** Leader of the server's own process group (`sh`, holding the launcher's stdin open); SIGTERM the group to stop. */
  pid: number;
}

/**
 * Starts the same server detached, for `pnpm services`: it outlives this process. The launcher stops when its stdin
 * closes, so a `sleep infinity` pipe holds stdin open; SIGTERM to the process group stops it (the launcher's shutdown
 * hook deletes its data directory, created under `tmpDir`). Its stderr goes to `logFile`.
 */
export async function startDetachedNeo4jServer(settings: {
  tmpDir: string;
  logFile: string;
  timeoutMs?: number;
}): Promise<DetachedNeo4jServer> {
  const { args } = await neo4jJavaArgs([`-Djava.io.tmpdir=${settings.tmpDir}`]);
  const log = openSync(settings.logFile, 'a');
  const child = spawn('sh', ['-c', 'sleep infinity | exec java "$@"', 'sh', ...args], {
    detached: true,
    stdio: ['ignore', 'pipe', log],
  });
  closeSync(log);
  const fields = await readBanner(child, settings.timeoutMs ?? 120_000, [`(see ${settings.logFile})`]).catch(
    (error: unknown) => {
      if (child.pid) process.kill(-child.pid, 'SIGKILL'); // the group: sleep and java too
      throw error;
    },
  );
  // Nothing more is read: the launcher prints only "stopped" later, which the JVM drops once the pipe is gone.
  child.stdout?.destroy();
  child.unref();
  return { ...fields, pid: child.pid ?? 0 };
}

function isStale(): boolean {
  if (!existsSync(CLASSPATH_FILE)) return true;
  const built = statSync(CLASSPATH_FILE).mtimeMs;
  return SOURCES.some((file) => statSync(file).mtimeMs > built);
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += String(chunk)));
    child.stderr.on('data', (chunk) => (output += String(chunk)));
    child.on('error', (error) =>
      reject(new Error(`cannot run ${command} (needs Maven 3.8+ and Java 17+): ${error.message}`)),
    );
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output.slice(-4000)}`)),
    );
  });
}

function readBanner(
  child: ChildProcess,
  timeoutMs: number,
  stderr: string[],
): Promise<{ uri: string; version: string }> {
  return new Promise((resolve, reject) => {
    const fields: { uri?: string; version?: string } = {};
    const fail = (reason: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`neo4j test server ${reason}; last stderr lines:\n${stderr.join('\n')}`));
    };
    const timer = setTimeout(() => fail(`printed no "ready" within ${timeoutMs} ms`), timeoutMs);
    child.on('error', (error) => fail(`could not start java: ${error.message}`));
    child.on('exit', (code) => fail(`exited with code ${code} before it was ready`));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const [key, ...rest] = line.split(' ');
      if (key === 'neo4j-version') fields.version = rest.join(' ');
      if (key === 'bolt-uri') fields.uri = rest.join(' ');
      if (key === 'ready' && fields.uri && fields.version) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({ uri: fields.uri, version: fields.version });
      }
    });
  });
}

function stop(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.stdin.end('stop\n'); // the launcher also stops when stdin closes, e.g. when this process dies
  });
}
