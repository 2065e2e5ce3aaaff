// `pnpm clean`: removes what killed eval processes left on server engines (one run's, or every orphan's).
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  listEngineNamespaces,
  removeEngineNamespaces,
  type RemovedNamespaces,
} from '../../backends/engine-namespaces.js';
import {
  connectEngines,
  engineChoice,
  engineCredentialsFromEnv,
  engineHelp,
  usesServerEngine,
} from '../../backends/engines.js';
import type { EngineSpec } from '../../backends/memory-backend.js';
import { EvalError, InvalidInputError } from '#core/errors.js';
import { readJsonIfExists } from '../run-log/json-files.js';
import { nonceOwners, planOrphans, runDirectoriesUnder } from './namespace-owners.js';
import { acquireRunLock } from '../run/run-lock.js';
import type { RunManifest } from '../run-log/run-log.js';
import { isEntryPoint } from '#core/entry-point.js';

const USAGE = `usage: pnpm clean (--run <id> | --orphans) [--engine <e>[,<e>]] [--out <dir>]... [--include-unknown] [--dry-run]

  Every namespace an eval process creates on a server engine carries its nonce (sb<nonce>_...); the run's
  manifest lists the nonces of all its invocations. A finished process removes its own namespaces; one that was
  killed leaves them behind (resuming the run removes them too).

  --run <id>          remove every namespace of run <out>/<id> (refused while an eval holds that run directory)
  --orphans           remove every stalebench namespace whose process is gone: its run directory (found under
                      --out) is not locked by that process. Namespaces no run under --out names are kept and
                      listed, unless --include-unknown
  --engine <e>        engines to clean (default with --run: the run's own engines); in-process ones keep nothing:
${engineHelp('                        ')}
  --out, -o <dir>     where run directories are (default: runs); repeatable
  --dry-run           list what would be removed, remove nothing

exit codes: 0 ok · 1 usage error, unreachable engine, or the run is in use`;

/** The server engines named by `--engine` (backends/engines.ts), with their endpoints and credentials from the environment. */
export function enginesFromEnv(names: readonly string[], env: NodeJS.ProcessEnv): EngineSpec {
  return connectEngines(engineChoice({ engines: names }, env), engineCredentialsFromEnv(env));
}

/** The engines a run used, with credentials from the environment (the manifest holds none). */
function enginesOfRun(manifest: RunManifest, env: NodeJS.ProcessEnv): EngineSpec {
  return connectEngines(manifest.spec.engine, engineCredentialsFromEnv(env));
}

const serverSide = (engine: EngineSpec) => usesServerEngine(engine);
const removedLine = (entry: RemovedNamespaces) =>
  `${entry.engine}: removed ${entry.namespaces.length} namespace(s) of nonce ${entry.nonce}: ${entry.detail}`;

async function cleanRun(
  runDir: string,
  engines: string[] | null,
  env: NodeJS.ProcessEnv,
  dryRun: boolean,
  print: (line: string) => void,
): Promise<void> {
  const manifest = readJsonIfExists<RunManifest>(join(runDir, 'manifest.json'));
  if (!manifest)
    throw new InvalidInputError('--run', [{ path: runDir, message: 'no manifest.json: not a run directory' }]);
  // Holding the run's lock keeps an eval from starting on it while its namespaces go (a running one: exit 1).
  const lock = await acquireRunLock(runDir, { nonce: randomBytes(4).toString('hex'), log: print });
  try {
    const engine = engines ? enginesFromEnv(engines, env) : enginesOfRun(manifest, env);
    const nonces = [
      ...(manifest.invocations ?? []).map((entry) => entry.nonce),
      ...(lock.takenOver ? [lock.takenOver.nonce] : []),
    ];
    if (!manifest.invocations)
      print(`${runDir}: its manifest predates nonces (no invocations list); nothing can be attributed to it`);
    if (!serverSide(engine))
      print('embedded engines keep nothing outside the eval process: nothing to remove on an engine');
    if (dryRun) {
      const found = (await listEngineNamespaces(engine)).filter((namespace) => nonces.includes(namespace.nonce));
      for (const namespace of found) print(`${namespace.engine}: would remove ${namespace.name}`);
      return;
    }
    for (const entry of await removeEngineNamespaces(engine, nonces)) print(removedLine(entry));
    if (existsSync(join(runDir, 'work'))) rmSync(join(runDir, 'work'), { recursive: true, force: true });
    print(`${runDir}: clean`);
  } finally {
    lock.release();
  }
}

async function cleanOrphans(
  engine: EngineSpec,
  roots: string[],
  includeUnknown: boolean,
  dryRun: boolean,
  print: (line: string) => void,
): Promise<void> {
  if (!serverSide(engine)) {
    print('embedded engines keep nothing outside the eval process: nothing to remove');
    return;
  }
  const plan = planOrphans(await listEngineNamespaces(engine), nonceOwners(runDirectoriesUnder(roots)));
  for (const entry of plan.running)
    print(`kept ${entry.namespaces.length} namespace(s) of nonce ${entry.nonce}: ${entry.reason}`);
  for (const entry of plan.unknown) {
    const verb = includeUnknown ? (dryRun ? 'would remove' : 'removing') : 'kept';
    print(
      `${verb} ${entry.namespaces.length} namespace(s) of nonce ${entry.nonce}: no run directory under ${roots.join(', ')} records it${includeUnknown ? '' : ' (pass the --out it ran with, or --include-unknown)'}`,
    );
  }
  const targets = [
    ...plan.remove,
    ...(includeUnknown ? plan.unknown.map((entry) => ({ ...entry, reason: 'owner unknown' })) : []),
  ];
  for (const entry of targets) {
    if (dryRun)
      print(
        `would remove ${entry.namespaces.map((namespace) => `${namespace.engine}:${namespace.name}`).join(', ')} (${entry.reason})`,
      );
    else print(`orphans of nonce ${entry.nonce}: ${entry.reason}`);
  }
  if (!dryRun)
    for (const entry of await removeEngineNamespaces(
      engine,
      targets.map((target) => target.nonce),
    ))
      print(removedLine(entry));
  if (targets.length === 0) print('no orphaned namespaces');
}

/** Entry point. Returns the exit code. */
export async function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  print: (line: string) => void = (line) => console.log(line),
): Promise<number> {
  try {
    const { values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        run: { type: 'string' },
        orphans: { type: 'boolean' },
        engine: { type: 'string' },
        out: { type: 'string', short: 'o', multiple: true },
        'include-unknown': { type: 'boolean' },
        'dry-run': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      print(USAGE);
      return 0;
    }
    if ((values.run === undefined) === !values.orphans)
      throw new EvalError('usage', `give exactly one of --run <id> and --orphans\n\n${USAGE}`);
    const roots = values.out ?? ['runs'];
    const engines =
      values.engine === undefined
        ? null
        : values.engine
            .split(',')
            .map((name) => name.trim())
            .filter(Boolean);
    if (values.run !== undefined) {
      if (roots.length !== 1) throw new EvalError('usage', '--run takes one --out');
      await cleanRun(resolve(roots[0]!, values.run), engines, env, values['dry-run'] ?? false, print);
      return 0;
    }
    if (!engines) throw new EvalError('usage', `--orphans needs --engine\n\n${USAGE}`);
    await cleanOrphans(
      enginesFromEnv(engines, env),
      roots,
      values['include-unknown'] ?? false,
      values['dry-run'] ?? false,
      print,
    );
    return 0;
  } catch (error) {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (isEntryPoint(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
