// `pnpm services start <name>… | stop [name…] | status`: local servers (Neo4j, PostgreSQL) without Docker, on loopback.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { defineCommand, runAsEntryPoint, type CommandIo, type CommandLine } from '#core/command.js';
import { SERVICE_LOADERS } from './registry.js';
import type { Service } from './service.js';
import {
  isRunning,
  listServiceStates,
  readServiceState,
  removeServiceState,
  serviceDir,
  writeServiceState,
  type ServiceState,
} from './service-state.js';

const USAGE = `usage: pnpm services start <name>…
       pnpm services stop [name…]
       pnpm services status
  Starts each server the way the tests do, on 127.0.0.1 only, detached (it keeps running after the command), and
  prints the line to paste into your shell, e.g. export STALEBENCH_POSTGRES_URI=postgresql://postgres@127.0.0.1:<port>/postgres
  (or: eval "$(pnpm -s services start postgres)"). Starting a running service prints its exports again.
  stop ends the named services (all of them without a name) and deletes their data. State (pids, ports, data) lives
  in .cache/services/; a service whose process died is cleaned up and said so.
  services: ${Object.keys(SERVICE_LOADERS).join(', ')}
exit codes: 0 done · 1 usage, an unknown service, a missing prerequisite, or a server that failed to start or stop`;

const OPTIONS = {} as const;

/** What the command works on (tests pass their own). */
export interface ServicesContext {
  /** Repository root; state under `<root>/.cache/services/`. */
  root: string;
  /** The services by id. */
  loaders: Readonly<Record<string, () => Promise<Service>>>;
  env: Readonly<Record<string, string | undefined>>;
}

const DEFAULT_CONTEXT: ServicesContext = {
  root: join(import.meta.dirname, '..', '..'),
  loaders: SERVICE_LOADERS,
  env: process.env,
};

/**
 * Entry point; returns the exit code. The export lines go to stdout, everything else to stderr.
 *
 * @example await main(['start', 'postgres'])
 */
export const main = defineCommand({
  usage: USAGE,
  options: OPTIONS,
  allowPositionals: true,
  oneLineErrors: 'all',
  run: (line: CommandLine<typeof OPTIONS>, io: CommandIo, context: ServicesContext = DEFAULT_CONTEXT) =>
    services(line, io, context),
});

/** `export A=1 B=2`, values shell-quoted where needed. */
export function exportLine(exports: Readonly<Record<string, string>>): string {
  const quoted = (value: string) => (/^[\w@%+=:,./-]*$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`);
  return `export ${Object.entries(exports)
    .map(([name, value]) => `${name}=${quoted(value)}`)
    .join(' ')}`;
}

async function services(parsed: CommandLine<typeof OPTIONS>, io: CommandIo, context: ServicesContext): Promise<number> {
  const [verb, ...names] = parsed.positionals;
  const known = Object.keys(context.loaders);
  if (verb !== 'start' && verb !== 'stop' && verb !== 'status')
    return io.usageError(verb ? `unknown verb "${verb}"` : undefined);
  if (verb === 'start' && names.length === 0) return io.usageError('name the services to start');
  if (verb === 'status' && names.length > 0) return io.usageError('status takes no service names');
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) return io.usageError(`unknown service ${unknown.join(', ')}; available: ${known.join(', ')}`);
  const chosen = [...new Set(names)];
  if (verb === 'start') return start(chosen, io, context);
  if (verb === 'stop')
    return stop(
      chosen.length > 0 ? chosen : listServiceStates(context.root).filter((id) => known.includes(id)),
      io,
      context,
    );
  return status(known, io, context);
}

/** The live state of a service; a dead pid's state is removed (said on stderr). */
function liveState(id: string, io: CommandIo, context: ServicesContext): ServiceState | null {
  const state = readServiceState(context.root, id);
  if (state === null || isRunning(state)) return state;
  removeServiceState(context.root, state);
  io.err(`${id}: pid ${state.pid} (started ${state.startedAt}) is gone; removed its state and data`);
  return null;
}

async function start(ids: string[], io: CommandIo, context: ServicesContext): Promise<number> {
  const loaded = await Promise.all(ids.map((id) => context.loaders[id]!()));
  const missing = loaded.flatMap((service) => {
    const reason = service.missing(context.env);
    return reason === null ? [] : [`${service.id}: ${reason}`];
  });
  if (missing.length > 0) {
    for (const line of missing) io.err(`error: ${line}`);
    return 1;
  }
  for (const service of loaded) {
    const running = liveState(service.id, io, context);
    if (running) {
      io.err(`${service.id}: already running (pid ${running.pid}, port ${running.port}, ${running.version})`);
      io.out(exportLine(running.exports));
      continue;
    }
    const dir = serviceDir(context.root, service.id);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const started = await service.start(dir, context.env).catch((error: unknown) => {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    });
    const state = writeServiceState(context.root, service.id, started);
    io.err(
      `${service.id}: started ${state.version} on 127.0.0.1:${state.port} (pid ${state.pid}, data ${state.dataDir})`,
    );
    io.out(exportLine(state.exports));
  }
  return 0;
}

async function stop(ids: string[], io: CommandIo, context: ServicesContext): Promise<number> {
  if (ids.length === 0) io.err('no service is running');
  for (const id of ids) {
    const running = liveState(id, io, context);
    if (!running) {
      io.err(`${id}: not running`);
      continue;
    }
    await (await context.loaders[id]!()).stop(running, context.env);
    removeServiceState(context.root, running);
    io.err(`${id}: stopped (pid ${running.pid}); its data is deleted`);
  }
  return 0;
}

function status(ids: string[], io: CommandIo, context: ServicesContext): number {
  for (const id of ids) {
    const running = liveState(id, io, context);
    if (!running) {
      io.out(`${id}: not running`);
      continue;
    }
    io.out(
      `${id}: running ${running.version} on 127.0.0.1:${running.port} (pid ${running.pid}, since ${running.startedAt})`,
    );
    io.out(`  ${exportLine(running.exports)}`);
  }
  return 0;
}

runAsEntryPoint(import.meta.url, main);
