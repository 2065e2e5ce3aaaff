// `pnpm notebook <name> <run-dir...> [--out FILE]`: runs one literate analysis on run directories and prints its Markdown.
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadAnalysedRun } from '../analysis/compare-command.js';
import { checkRunsForReading } from '../analysis/verify-runs.js';
import { notebook as defenceComparison } from './defence-comparison.js';
import { notebook as guardThresholdSensitivity } from './guard-threshold-sensitivity.js';
import type { Notebook } from './notebook.js';
import { notebook as table6 } from './table-6.js';
import { defineCommand, runAsEntryPoint, type CommandIo, type CommandLine } from '#core/command.js';
import { makeDirectory } from '#core/make-directory.js';

/** Every notebook, one line each; the name is the file name. */
export const NOTEBOOKS: readonly Notebook[] = [guardThresholdSensitivity, defenceComparison, table6];

function listing(): string {
  const width = Math.max(...NOTEBOOKS.map((n) => n.name.length));
  return [
    'usage: pnpm notebook <name> <run-dir> [<run-dir>...] [--out FILE] [--no-verify]',
    '  each run is verified (pnpm verify-run) and its stored scores recomputed from its replies first (refused when',
    '  they disagree); --no-verify reads runs as stored',
    '',
    'notebooks:',
    ...NOTEBOOKS.map((n) => `  ${n.name.padEnd(width)}  ${n.question}`),
  ].join('\n');
}

const OPTIONS = { out: { type: 'string', short: 'o' }, 'no-verify': { type: 'boolean' } } as const;

/**
 * Entry point; resolves to the exit code: 0 ok, 1 no or unknown notebook (the list is printed), no run directory, or a
 * directory that is not a run. Reads run directories only: no network, no backend, no model.
 *
 * @example main(['table-6', 'runs/sim_8e9e3bd3', '--out', 'table-6.md'])
 */
export const main = defineCommand({
  usage: listing,
  options: OPTIONS,
  allowPositionals: true,
  blankLineBeforeUsage: true,
  oneLineErrors: 'all',
  run: runNotebook,
});

async function runNotebook(parsed: CommandLine<typeof OPTIONS>, { out, err, usageError }: CommandIo): Promise<number> {
  const [name, ...runDirs] = parsed.positionals;
  const notebook = NOTEBOOKS.find((n) => n.name === name);
  if (!notebook) return usageError(name === undefined ? 'name a notebook' : `unknown notebook "${name}"`);
  if (runDirs.length === 0) return usageError(`${notebook.name} needs at least one run directory`);
  if (!(await checkRunsForReading(runDirs, { noVerify: parsed.values['no-verify'] === true, err }))) return 1;
  const markdown = notebook.render(runDirs.map(loadAnalysedRun));
  out(markdown);
  if (parsed.values.out !== undefined) {
    const path = resolve(parsed.values.out);
    makeDirectory(dirname(path));
    writeFileSync(path, `${markdown}\n`);
  }
  return 0;
}

runAsEntryPoint(import.meta.url, main);
