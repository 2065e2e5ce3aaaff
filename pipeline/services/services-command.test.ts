import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVICE_LOADERS } from './registry.js';
import type { RunningService, Service } from './service.js';
import { servicesDir } from './service-state.js';
import { exportLine, main, type ServicesContext } from './services-command.js';

const scratch = mkdtempSync(join(tmpdir(), 'services-command-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A service that starts nothing: its "server" is this test process (alive), and it records its calls. */
function fakeService(calls: string[]): Service {
  let port = 5000;
  return {
    id: 'fake',
    missing: () => null,
    async start(dir) {
      port += 1;
      calls.push(`start ${dir}`);
      writeFileSync(join(dir, 'data-file'), 'x');
      return {
        pid: process.pid,
        port,
        dataDir: dir,
        version: 'Fake 1.0',
        exports: { FAKE_URI: `fake://127.0.0.1:${port}`, FAKE_NOTE: "it's" },
      };
    },
    async stop(running) {
      calls.push(`stop ${running.port}`);
    },
  };
}

function context(root: string, calls: string[], env: Record<string, string> = {}): ServicesContext {
  const fake = fakeService(calls);
  return { root, env, loaders: { fake: async () => fake, postgres: SERVICE_LOADERS.postgres! } };
}

async function run(argv: string[], services: ServicesContext) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    argv,
    (text) => out.push(text),
    (text) => err.push(text),
    services,
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const deadPid = (): number => spawnSync('true').pid;

describe('pnpm services', () => {
  it('refuses bad command lines in one line with the usage, and starts nothing', async () => {
    const root = mkdtempSync(join(scratch, 'args-'));
    const calls: string[] = [];
    const services = context(root, calls);
    expect((await run([], services)).code).toBe(1);
    expect((await run(['restart', 'fake'], services)).err).toMatch(
      /^error: unknown verb "restart"\nusage: pnpm services/,
    );
    expect((await run(['start'], services)).err).toMatch(/^error: name the services to start/);
    expect((await run(['status', 'fake'], services)).err).toMatch(/^error: status takes no service names/);
    const unknown = await run(['start', 'fake', 'redis'], services);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/^error: unknown service redis; available: fake, postgres/);
    expect((await run(['--help'], services)).out).toContain(
      'export STALEBENCH_POSTGRES_URI=postgresql://postgres@127.0.0.1:<port>/postgres',
    );
    expect(calls).toEqual([]);
    expect(existsSync(servicesDir(root))).toBe(false);
  });

  it('start prints the exports and records the state; a second start prints the same exports and starts nothing', async () => {
    const root = mkdtempSync(join(scratch, 'start-'));
    const calls: string[] = [];
    const services = context(root, calls);
    const first = await run(['start', 'fake'], services);
    expect(first).toMatchObject({ code: 0, out: "export FAKE_URI=fake://127.0.0.1:5001 FAKE_NOTE='it'\\''s'" });
    expect(first.err).toBe(
      `fake: started Fake 1.0 on 127.0.0.1:5001 (pid ${process.pid}, data ${join(servicesDir(root), 'fake')})`,
    );
    const state = JSON.parse(readFileSync(join(servicesDir(root), 'fake.json'), 'utf8')) as RunningService;
    expect(state).toMatchObject({
      id: 'fake',
      pid: process.pid,
      port: 5001,
      host: hostname(),
      dataDir: join(servicesDir(root), 'fake'),
    });
    const again = await run(['start', 'fake'], services);
    expect(again.out).toBe(first.out);
    expect(again.err).toBe(`fake: already running (pid ${process.pid}, port 5001, Fake 1.0)`);
    const status = await run(['status'], services);
    expect(status.out).toContain(`fake: running Fake 1.0 on 127.0.0.1:5001 (pid ${process.pid}, since `);
    expect(status.out).toContain(`  ${first.out}`);
    expect(status.out).toContain('postgres: not running');
    expect(calls).toHaveLength(1);
    const stopped = await run(['stop'], services);
    expect(stopped).toMatchObject({ code: 0, err: `fake: stopped (pid ${process.pid}); its data is deleted` });
    expect(calls).toEqual([`start ${join(servicesDir(root), 'fake')}`, 'stop 5001']);
    expect(existsSync(join(servicesDir(root), 'fake.json'))).toBe(false);
    expect(existsSync(join(servicesDir(root), 'fake'))).toBe(false);
    expect((await run(['stop', 'fake'], services)).err).toBe('fake: not running');
  });

  it('a state whose pid is dead is cleaned up (state and data), said so, and start starts afresh', async () => {
    const root = mkdtempSync(join(scratch, 'dead-'));
    const calls: string[] = [];
    const services = context(root, calls);
    await run(['start', 'fake'], services);
    const file = join(servicesDir(root), 'fake.json');
    const pid = deadPid();
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), pid }));
    const status = await run(['status'], services);
    expect(status.err).toMatch(new RegExp(`^fake: pid ${pid} \\(started .*\\) is gone; removed its state and data$`));
    expect(status.out).toContain('fake: not running');
    expect(existsSync(file)).toBe(false);
    expect(existsSync(join(servicesDir(root), 'fake', 'data-file'))).toBe(false);
    // Dead again: start cleans up, then starts a new one (never "already running"), and stop never signals the dead pid.
    await run(['start', 'fake'], services);
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), pid }));
    const restarted = await run(['start', 'fake'], services);
    expect(restarted.out).toBe("export FAKE_URI=fake://127.0.0.1:5003 FAKE_NOTE='it'\\''s'");
    expect(restarted.err).toContain('fake: started Fake 1.0 on 127.0.0.1:5003');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), pid }));
    expect((await run(['stop', 'fake'], services)).err).toContain('fake: not running');
    expect(calls.filter((call) => call.startsWith('stop'))).toEqual([]);
  });

  it('postgres without its binaries: exit 1 naming what is missing, and no state written', async () => {
    const root = mkdtempSync(join(scratch, 'nobin-'));
    const result = await run(
      ['start', 'postgres'],
      context(root, [], { STALEBENCH_POSTGRES_BIN: join(root, 'nowhere') }),
    );
    expect(result.code).toBe(1);
    expect(result.err).toBe(
      `error: postgres: STALEBENCH_POSTGRES_BIN=${join(root, 'nowhere')} does not hold initdb, pg_ctl, postgres, psql`,
    );
    expect(existsSync(servicesDir(root))).toBe(false);
  });

  it('registers neo4j, postgres and redis, each under its own id', async () => {
    expect(Object.keys(SERVICE_LOADERS)).toEqual(['neo4j', 'postgres', 'redis']);
    for (const [id, load] of Object.entries(SERVICE_LOADERS)) expect((await load()).id).toBe(id);
  });

  it('quotes export values for the shell only where needed', () => {
    expect(exportLine({ A: 'postgresql://postgres@127.0.0.1:5432/postgres', B: 'two words', C: '' })).toBe(
      "export A=postgresql://postgres@127.0.0.1:5432/postgres B='two words' C=",
    );
  });
});
