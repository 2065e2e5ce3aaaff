// `pnpm stores list | install <env>… | install --all`: the heavy Python stores' venvs, installed on first use.
import { join } from 'node:path';
import { installStoreEnv, missingStoreEnv, STORE_ENVS } from '../../backends/python/store-envs.js';
import { defineCommand, runAsEntryPoint, type CommandIo, type CommandLine } from '#core/command.js';

const USAGE = `usage: pnpm stores list
       pnpm stores install <env>… | --all
  The heavy Python stores (Letta, PostgreSQL and Redis savers, the tamper-evidence packages, the paper's libraries)
  each run in a venv of their own under .cache/python-stores/, from exact pins in backends/python/envs/<env>.txt.
  bash .ci/install does not install them; a run that needs one says which command installs it. CI installs all.
exit codes: 0 done · 1 usage, an unknown environment, or an install that failed`;

const OPTIONS = { all: { type: 'boolean' } } as const;

/**
 * Entry point; returns the exit code.
 *
 * @example main(['install', 'letta'])
 */
export const main = defineCommand({ usage: USAGE, options: OPTIONS, allowPositionals: true, run: stores });

const ROOT = join(import.meta.dirname, '..', '..');

function stores(parsed: CommandLine<typeof OPTIONS>, { out, err, usageError }: CommandIo, root = ROOT): number {
  const [verb, ...ids] = parsed.positionals;
  if (verb === 'list' && ids.length === 0 && !parsed.values.all) {
    for (const [id, spec] of Object.entries(STORE_ENVS)) {
      const missing = missingStoreEnv(root, id);
      out(
        `${id.padEnd(28)} ${missing ? 'not installed' : 'installed    '}  ${spec.installTime.padEnd(12)} ${spec.holds}`,
      );
    }
    return 0;
  }
  if (verb !== 'install') return usageError(verb ? `unknown verb "${verb}"` : undefined);
  if ((parsed.values.all === true) === ids.length > 0) return usageError('give the environments to install, or --all');
  const chosen = parsed.values.all ? Object.keys(STORE_ENVS) : ids;
  const unknown = chosen.filter((id) => !Object.hasOwn(STORE_ENVS, id));
  if (unknown.length > 0)
    return usageError(
      `unknown store environment ${unknown.join(', ')}; available: ${Object.keys(STORE_ENVS).join(', ')}`,
    );
  let failed = 0;
  for (const id of chosen) {
    const started = Date.now();
    const problem = installStoreEnv(root, id, out);
    if (problem) {
      err(`error: ${problem}`);
      failed += 1;
    } else out(`${id}: ready (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  return failed > 0 ? 1 : 0;
}

runAsEntryPoint(import.meta.url, main);
