import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BackendUnavailableError } from '#core/errors.js';
import { connectRedis, RedisReplyError, withRawRedis } from './raw-redis.js';

/** Commands as a RESP server receives them (arrays of bulk strings), parsed from the raw bytes. */
function parseCommands(buffer: Buffer): { commands: Buffer[][]; rest: Buffer } {
  const commands: Buffer[][] = [];
  let at = 0;
  for (;;) {
    const start = at;
    const header = buffer.indexOf('\r\n', at);
    if (header < 0) return { commands, rest: buffer.subarray(start) };
    const count = Number(buffer.toString('utf8', at + 1, header));
    at = header + 2;
    const args: Buffer[] = [];
    for (let index = 0; index < count; index += 1) {
      const line = buffer.indexOf('\r\n', at);
      if (line < 0) return { commands, rest: buffer.subarray(start) };
      const length = Number(buffer.toString('utf8', at + 1, line));
      if (buffer.length < line + 2 + length + 2) return { commands, rest: buffer.subarray(start) };
      args.push(buffer.subarray(line + 2, line + 2 + length));
      at = line + 2 + length + 2;
    }
    commands.push(args);
  }
}

let server: Server | null = null;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A fake Redis at the network edge: answers each command with `reply(args)`, sent one byte at a time. */
async function fakeRedis(reply: (args: string[]) => Buffer | string): Promise<{ url: string; seen: Buffer[][] }> {
  const seen: Buffer[][] = [];
  const sockets = new Set<Socket>();
  server = createServer((socket) => {
    sockets.add(socket);
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      const parsed = parseCommands(Buffer.concat([pending, chunk]));
      pending = parsed.rest;
      for (const command of parsed.commands) {
        seen.push(command);
        const answer = Buffer.from(reply(command.map((arg) => arg.toString('latin1'))));
        for (const byte of answer) socket.write(Buffer.from([byte]));
      }
    });
    socket.on('close', () => sockets.delete(socket));
  });
  const listening = server;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  const address = listening.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const close = listening.close.bind(listening);
  listening.close = (callback) => {
    for (const socket of sockets) socket.destroy();
    return close(callback);
  };
  return { url: `redis://127.0.0.1:${address.port}/0`, seen };
}

describe('raw Redis client (RESP2 over TCP)', () => {
  it('parses every reply type split across chunks, binary bulk strings byte-exact, errors as RedisReplyError', async () => {
    const binary = Buffer.from([0x00, 0x0d, 0x0a, 0xff, 0x24]);
    const { url, seen } = await fakeRedis(([name]) => {
      switch (name) {
        case 'PING':
          return '+PONG\r\n';
        case 'DBSIZE':
          return ':42\r\n';
        case 'GET':
          return '$-1\r\n';
        case 'DUMP':
          return Buffer.concat([Buffer.from(`$${binary.length}\r\n`), binary, Buffer.from('\r\n')]);
        case 'SCAN':
          return '*2\r\n$1\r\n0\r\n*2\r\n$3\r\nk:1\r\n$0\r\n\r\n';
        default:
          return '-ERR unknown command\r\n';
      }
    });
    const redis = await connectRedis(url);
    try {
      expect(await redis.command(['PING'])).toBe('PONG');
      expect(await redis.command(['DBSIZE'])).toBe(42);
      expect(await redis.command(['GET', 'absent'])).toBeNull();
      expect(await redis.command(['DUMP', 'k'])).toEqual(binary);
      expect(await redis.command(['SCAN', '0'])).toEqual([Buffer.from('0'), [Buffer.from('k:1'), Buffer.from('')]]);
      await expect(redis.command(['NOPE'])).rejects.toThrow(RedisReplyError);
      expect(await redis.command(['PING'])).toBe('PONG');
    } finally {
      redis.close();
    }
    // Sent as RESP arrays of bulk strings, a binary argument byte-exact.
    expect(seen[3]?.map(String)).toEqual(['DUMP', 'k']);
  });

  it('logs writes exactly as sent (binary payloads by size and sha256), not reads; SCAN follows the cursor', async () => {
    const { url, seen } = await fakeRedis(([name, cursor]) => {
      if (name === 'SCAN')
        return cursor === '0'
          ? '*2\r\n$1\r\n7\r\n*1\r\n$3\r\nb:2\r\n'
          : '*2\r\n$1\r\n0\r\n*2\r\n$3\r\na:1\r\n$3\r\nb:2\r\n';
      return '+OK\r\n';
    });
    const log: string[] = [];
    const keys = await withRawRedis(
      url,
      (line) => log.push(line),
      async (redis) => {
        await redis.read(['JSON.GET', 'a:1', '$']);
        await redis.write(['JSON.SET', 'a:1', '$.memory', '"limit is 900 EUR"']);
        await redis.write(['RESTORE', 'a:1', '0', Buffer.from([1, 2, 3]), 'REPLACE']);
        return redis.keys('a*');
      },
    );
    expect(keys).toEqual(['a:1', 'b:2']);
    expect(log).toEqual([
      `redis-cli -u ${url} JSON.SET a:1 $.memory '"limit is 900 EUR"'`,
      `redis-cli -u ${url} RESTORE a:1 0 <3-byte payload sha256:039058c6f2c0cb49> REPLACE`,
    ]);
    expect(seen.at(-1)?.map(String)).toEqual(['SCAN', '7', 'MATCH', 'a*', 'COUNT', '1000']);
  });

  it('refuses a server that is not there with BackendUnavailableError', async () => {
    const { url } = await fakeRedis(() => '+OK\r\n');
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    server = null;
    await expect(connectRedis(url)).rejects.toBeInstanceOf(BackendUnavailableError);
  });

  it('authenticates with the password (and user) of the URL before any other command, never logging it', async () => {
    const password = 'p@ss:w/rd';
    const { url, seen } = await fakeRedis(([name, ...rest]) => {
      if (name === 'AUTH')
        return rest.at(-1) === password ? '+OK\r\n' : '-WRONGPASS invalid username-password pair\r\n';
      return seen.some((command) => String(command[0]) === 'AUTH') ? '+OK\r\n' : '-NOAUTH Authentication required.\r\n';
    });
    const port = new URL(url).port;
    const log: string[] = [];
    await withRawRedis(
      `redis://:${encodeURIComponent(password)}@127.0.0.1:${port}/2`,
      (line) => log.push(line),
      (redis) => redis.write(['DEL', 'k']),
    );
    expect(seen.map((command) => command.map(String))).toEqual([
      ['AUTH', password],
      ['SELECT', '2'],
      ['DEL', 'k'],
    ]);
    expect(log).toEqual([`redis-cli -u redis://:[redacted]@127.0.0.1:${port}/2 DEL k`]);
    seen.length = 0;
    const withUser = await connectRedis(`redis://bench:${encodeURIComponent(password)}@127.0.0.1:${port}`);
    withUser.close();
    expect(seen[0]?.map(String)).toEqual(['AUTH', 'bench', password]);
    // A wrong password is refused as the server being unavailable, naming the URL without the password.
    const refused = connectRedis(`redis://:wrong-secret@127.0.0.1:${port}`);
    await expect(refused).rejects.toBeInstanceOf(BackendUnavailableError);
    await expect(refused).rejects.toThrow(`redis://:[redacted]@127.0.0.1:${port}`);
    await expect(refused).rejects.not.toThrow('wrong-secret');
  });
});
