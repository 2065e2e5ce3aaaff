// Generic Redis tooling for raw edits: RESP2 commands over a plain TCP socket (no client library), every write logged.
import { withoutPassword } from '#core/url-credentials.js';
import { createHash } from 'node:crypto';
import { createConnection, type Socket } from 'node:net';
import { BackendUnavailableError } from '#core/errors.js';

/** A reply as RESP2 sends it: bulk strings stay bytes (DUMP payloads are binary), nil is null. */
export type RespReply = string | number | Buffer | null | RespReply[];

/** A reply of type error (`-ERR ...`): the server refused the command. */
export class RedisReplyError extends Error {}

/** One connection to a Redis server, commands answered in order. */
export interface RedisConnection {
  /** Sends one command and resolves with its reply (rejects with `RedisReplyError` on an error reply). */
  command(args: readonly (string | Buffer)[]): Promise<RespReply>;
  /** Closes the socket. */
  close(): void;
}

type Parsed = { value: RespReply | RedisReplyError; next: number } | null;

/** Parses one reply at `at`, or null when the buffer does not hold it whole yet. */
function parseReply(buffer: Buffer, at: number): Parsed {
  const end = buffer.indexOf('\r\n', at);
  if (end < 0) return null;
  const line = buffer.toString('utf8', at + 1, end);
  const next = end + 2;
  switch (String.fromCharCode(buffer[at] ?? 0)) {
    case '+':
      return { value: line, next };
    case '-':
      return { value: new RedisReplyError(line), next };
    case ':':
      return { value: Number(line), next };
    case '$': {
      const length = Number(line);
      if (length < 0) return { value: null, next };
      if (buffer.length < next + length + 2) return null;
      return { value: Buffer.from(buffer.subarray(next, next + length)), next: next + length + 2 };
    }
    case '*': {
      const count = Number(line);
      if (count < 0) return { value: null, next };
      const items: RespReply[] = [];
      let offset = next;
      for (let index = 0; index < count; index += 1) {
        const item = parseReply(buffer, offset);
        if (!item) return null;
        if (item.value instanceof RedisReplyError) return item;
        items.push(item.value);
        offset = item.next;
      }
      return { value: items, next: offset };
    }
    default:
      throw new Error(`not a RESP reply: ${JSON.stringify(buffer.toString('utf8', at, Math.min(end, at + 40)))}`);
  }
}

function encodeCommand(args: readonly (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = typeof arg === 'string' ? Buffer.from(arg, 'utf8') : arg;
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

/**
 * Connects to `redis://[[user]:password@]host:port[/db]` (no TLS), authenticates when the URL carries a password (as
 * `STALEBENCH_REDIS_URL` may for a server of the user's; the project's own loopback servers have none) and selects the
 * database. Rejects with BackendUnavailableError when nothing answers.
 *
 * @example const redis = await connectRedis('redis://127.0.0.1:6379/0'); await redis.command(['PING']); redis.close();
 */
export async function connectRedis(url: string): Promise<RedisConnection> {
  const parsed = new URL(url);
  if (parsed.protocol !== 'redis:')
    throw new BackendUnavailableError('Redis', withoutPassword(url), 'only redis:// URLs are supported');
  const socket: Socket = createConnection({ host: parsed.hostname, port: Number(parsed.port || 6379) });
  const pending: { resolve(value: RespReply): void; reject(error: Error): void }[] = [];
  let buffer = Buffer.alloc(0);
  let failure: Error | null = null;
  const failAll = (error: Error) => {
    failure ??= error;
    for (const waiter of pending.splice(0)) waiter.reject(error);
  };
  socket.on('data', (chunk) => {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
    let at = 0;
    for (let reply = parseReply(buffer, at); reply; reply = parseReply(buffer, at)) {
      at = reply.next;
      const waiter = pending.shift();
      if (reply.value instanceof RedisReplyError) waiter?.reject(reply.value);
      else waiter?.resolve(reply.value);
    }
    buffer = buffer.subarray(at);
  });
  socket.on('error', (error) => failAll(error));
  socket.on('close', () => failAll(new Error(`the connection to ${withoutPassword(url)} closed`)));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', (error) =>
      reject(new BackendUnavailableError('Redis', withoutPassword(url), error.message, { cause: error })),
    );
  });
  const connection: RedisConnection = {
    command: (args) =>
      failure
        ? Promise.reject(failure)
        : new Promise<RespReply>((resolve, reject) => {
            pending.push({ resolve, reject });
            socket.write(encodeCommand(args));
          }),
    close: () => void socket.destroy(),
  };
  // AUTH before anything else: a server with requirepass answers NOAUTH to every other command.
  if (parsed.password) {
    const password = decodeURIComponent(parsed.password);
    const user = decodeURIComponent(parsed.username);
    await connection.command(user ? ['AUTH', user, password] : ['AUTH', password]).catch((error: Error) => {
      connection.close();
      throw new BackendUnavailableError('Redis', withoutPassword(url), `AUTH was refused: ${error.message}`);
    });
  }
  const db = parsed.pathname.replace(/^\//, '');
  if (db && db !== '0') await connection.command(['SELECT', db]);
  return connection;
}

/** A reply as text (bulk strings decoded as UTF-8); throws when it is not a string or nil. */
export function replyText(reply: RespReply): string | null {
  if (reply === null || typeof reply === 'string') return reply;
  if (Buffer.isBuffer(reply)) return reply.toString('utf8');
  throw new Error(`expected a string reply, got ${JSON.stringify(reply)}`);
}

/** How a logged command shows an argument: binary payloads by size and digest, long texts cut. */
function shownArg(arg: string | Buffer): string {
  if (Buffer.isBuffer(arg))
    return `<${arg.length}-byte payload sha256:${createHash('sha256').update(arg).digest('hex').slice(0, 16)}>`;
  const shown = /^[\w:.$*@/-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
  return shown.length > 400 ? `${shown.slice(0, 397)}...` : shown;
}

/** One raw session: reads are not logged, writes are logged as `redis-cli -u <url> <args>` before they run. */
export interface RawRedis {
  /** A read (SCAN, JSON.GET, GET, DUMP, PTTL); not logged. */
  read(args: readonly (string | Buffer)[]): Promise<RespReply>;
  /** A write, logged exactly as sent (binary payloads by size and sha256). */
  write(args: readonly (string | Buffer)[]): Promise<RespReply>;
  /** Every key matching a glob pattern (SCAN with MATCH until the cursor returns to 0), sorted. */
  keys(pattern: string): Promise<string[]>;
}

/**
 * Opens `url`, runs `work`, and closes the connection again.
 *
 * @example await withRawRedis(url, log, (redis) => redis.write(['DEL', key]));
 */
export async function withRawRedis<T>(
  url: string,
  log: (command: string) => void,
  work: (redis: RawRedis) => Promise<T>,
): Promise<T> {
  const connection = await connectRedis(url);
  try {
    return await work({
      read: (args) => connection.command(args),
      write(args) {
        log(`redis-cli -u ${withoutPassword(url)} ${args.map(shownArg).join(' ')}`);
        return connection.command(args);
      },
      async keys(pattern) {
        const found = new Set<string>();
        let cursor = '0';
        do {
          const [next, batch] = (await connection.command(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000'])) as [
            Buffer,
            Buffer[],
          ];
          cursor = next.toString('utf8');
          for (const key of batch) found.add(key.toString('utf8'));
        } while (cursor !== '0');
        return [...found].sort();
      },
    });
  } finally {
    connection.close();
  }
}
