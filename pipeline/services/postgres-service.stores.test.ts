import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findPostgresBin, runPsql } from './postgres-cluster.js';
import { SERVICE_LOADERS } from './registry.js';
import { isAlive, readServiceState } from './service-state.js';
import { main } from './services-command.js';

const found = findPostgresBin(process.env);
const reason = 'missing' in found ? found.missing : null;
if (reason) console.log(`[stores] postgres service skipped: ${reason}`);
const root = mkdtempSync(join(tmpdir(), 'postgres-service-'));
chmodSync(root, 0o755); // as root, the server runs as the postgres user, who must reach .cache/services/ in here
const context = { root, loaders: SERVICE_LOADERS, env: { ...process.env, STALEBENCH_POSTGRES_URI: undefined } };
const run = async (argv: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    argv,
    (text) => out.push(text),
    (text) => err.push(text),
    context,
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
};
afterAll(async () => {
  await run(['stop']);
  rmSync(root, { recursive: true, force: true });
});

describe('pnpm services start|stop postgres', () => {
  it.skipIf(reason !== null)(
    'starts a loopback server one can connect to with the printed URI; stop ends it',
    async () => {
      const started = await run(['start', 'postgres']);
      expect(started.code).toBe(0);
      const [, uri] =
        /^export STALEBENCH_POSTGRES_URI=(postgresql:\/\/postgres@127\.0\.0\.1:\d+\/postgres)$/.exec(started.out) ?? [];
      expect(uri).toBeDefined();
      const bin = (found as { dir: string }).dir;
      expect(runPsql(bin, uri!, "SELECT current_setting('listen_addresses');\n").trim()).toBe('127.0.0.1');
      const state = readServiceState(root, 'postgres')!;
      expect(state.dataDir).toBe(join(root, '.cache', 'services', 'postgres', 'data'));
      expect(isAlive(state.pid)).toBe(true);
      expect((await run(['start', 'postgres'])).out).toBe(started.out);
      const stopped = await run(['stop', 'postgres']);
      expect(stopped).toMatchObject({ code: 0, err: `postgres: stopped (pid ${state.pid}); its data is deleted` });
      expect(isAlive(state.pid)).toBe(false);
      expect(existsSync(state.dataDir)).toBe(false);
      expect(() => runPsql(bin, uri!, 'SELECT 1;\n')).toThrow(/psql failed/);
    },
  );
});
