// `pnpm run view [run ...]`: browse run directories (their cells, units and transcripts) on 127.0.0.1, or write the same
// pages for sharing with --static <dir>.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineCommand, runAsEntryPoint, type CommandIo, type CommandLine } from '#core/command.js';
import { startViewServer } from './view-server.js';
import { createViewSite } from './view-site.js';

const USAGE = `usage: pnpm run view [<run-dir>|<dir of runs>...] [--port <n>] [--static <dir>]
  a read-only browser over run directories (default: every run under ./runs): the run list (status, models, spec,
  done/planned, errors, verify-run state), per run its cells (k/n unsafe, Wilson 95 % intervals) and units,
  filterable and sortable, and per unit its transcript (the exact messages, the retrieved records with the revoked
  ones marked, the reply, the parsed action, each defence's verdict, cost and latency), and two runs side by side
  (pnpm compare's cells, with links to both transcripts). Manual: analysis/view/README.md
  --port <n>        serve on 127.0.0.1:<n> (default 4173; 0 = any free port); prints the URL; Ctrl+C stops
  --static <dir>    write the same pages to <dir> (index.html, one page per run and per unit; compare.html when two
                    runs are given) and exit`;

const OPTIONS = { port: { type: 'string' }, static: { type: 'string' } } as const;

/** The run directories named: a run directory as is, a directory of runs as its runs, anything else as is (listed with its error). */
export function runDirsOf(paths: readonly string[]): string[] {
  return paths.flatMap((path) => {
    const dir = resolve(path);
    if (existsSync(join(dir, 'manifest.json'))) return [dir];
    try {
      if (!statSync(dir).isDirectory()) return [dir];
      const runs = readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'manifest.json')))
        .map((e) => join(dir, e.name))
        .sort();
      return runs.length > 0 ? runs : [dir];
    } catch {
      return [dir];
    }
  });
}

/** Entry point; `stop` (tests) ends the server, else Ctrl+C does. Returns the exit code. */
export const main = defineCommand({
  usage: USAGE,
  options: OPTIONS,
  allowPositionals: true,
  run: view,
});

async function view(
  { values, positionals }: CommandLine<typeof OPTIONS>,
  { out, usageError }: CommandIo,
  stop?: AbortSignal,
): Promise<number> {
  const port = values.port === undefined ? 4173 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    return usageError(`--port: not a port number: ${values.port}`);
  const dirs = runDirsOf(positionals.length > 0 ? positionals : ['runs']);
  const site = createViewSite(dirs);
  for (const entry of site.entries) if (entry.readError !== null) out(`unreadable: ${entry.readError}`);
  if (values.static !== undefined) {
    const { files } = await site.writeStatic(resolve(values.static));
    out(`wrote ${files} file(s) for ${dirs.length} run(s): open ${join(resolve(values.static), 'index.html')}`);
    return 0;
  }
  const server = await startViewServer(site, port);
  out(`pnpm run view: ${server.url} (${dirs.length} run(s), read-only; Ctrl+C stops)`);
  await new Promise<void>((done) => {
    if (stop) stop.addEventListener('abort', () => done(), { once: true });
    else process.once('SIGINT', () => done());
  });
  await server.close();
  return 0;
}

runAsEntryPoint(import.meta.url, main);
