// defineCommand and runAsEntryPoint: --help, a usage error, one `error:` line per failure, sync and async, the exit code.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defineCommand, type CommandMain } from './command.js';
import { EvalError, InvalidInputError } from './errors.js';

const USAGE = 'usage: pnpm hello <name> [--loud] [--times <n>]';
const OPTIONS = { loud: { type: 'boolean' }, times: { type: 'string' } } as const;

/** Calls a command with writers that record; `code` is awaited when the command is async. */
async function call<R extends number | Promise<number>>(main: CommandMain<R, []>, argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const returned = main(
    argv,
    (text) => out.push(text),
    (text) => err.push(text),
  );
  return { returned, code: await returned, out: out.join('\n'), err: err.join('\n') };
}

/** A sync command that greets its positional arguments; `boom` throws `thrown()`. */
function hello(
  thrown: () => unknown = () => new InvalidInputError('--times', [{ path: '', message: 'not a number' }]),
) {
  const runs: string[][] = [];
  const main = defineCommand({
    usage: USAGE,
    options: OPTIONS,
    allowPositionals: true,
    run({ values, positionals }, { out, usageError }) {
      runs.push(positionals);
      if (positionals.length === 0) return usageError('name someone');
      if (positionals[0] === 'boom') throw thrown();
      for (const name of positionals) out(values.loud ? `HELLO ${name.toUpperCase()}` : `hello ${name}`);
      return values.times === undefined ? 0 : Number(values.times);
    },
  });
  return { main, runs };
}

describe('defineCommand', () => {
  it('answers --help and -h with the usage on out, exit 0, without running', async () => {
    const { main, runs } = hello();
    for (const flag of ['--help', '-h'])
      expect(await call(main, ['ada', flag])).toEqual({ returned: 0, code: 0, out: USAGE, err: '' });
    expect(runs).toEqual([]);
  });

  it('turns an unknown flag, a flag without its value or an unexpected positional into error + usage on err, exit 1', async () => {
    const { main, runs } = hello();
    const unknown = await call(main, ['ada', '--bogus']);
    expect(unknown).toMatchObject({ code: 1, out: '' });
    expect(unknown.err).toMatch(
      /^error: Unknown option '--bogus'\.[^\n]*\nusage: pnpm hello <name> \[--loud\] \[--times <n>\]$/,
    );
    expect((await call(main, ['ada', '--times'])).err).toBe(
      `error: Option '--times <value>' argument missing\n${USAGE}`,
    );
    const closed = defineCommand({ usage: USAGE, options: OPTIONS, run: () => 0 });
    expect(await call(closed, ['ada'])).toMatchObject({
      code: 1,
      err: expect.stringMatching(/^error: Unexpected argument 'ada'/),
    });
    expect(runs).toEqual([]);
  });

  it('runs with the parsed flags and positionals and returns its code; usageError writes error + usage, exit 1', async () => {
    const { main } = hello();
    expect(await call(main, ['ada', 'bob', '--loud', '--times', '3'])).toEqual({
      returned: 3,
      code: 3,
      out: 'HELLO ADA\nHELLO BOB',
      err: '',
    });
    expect(await call(main, [])).toEqual({ returned: 1, code: 1, out: '', err: `error: name someone\n${USAGE}` });
  });

  it('writes an EvalError thrown by run as one error line, exit 1; anything else keeps its stack unless oneLineErrors is all', async () => {
    expect(await call(hello().main, ['boom'])).toEqual({
      returned: 1,
      code: 1,
      out: '',
      err: `error: ${new InvalidInputError('--times', [{ path: '', message: 'not a number' }]).message}`,
    });
    const bug = hello(() => new TypeError('x is undefined')).main;
    await expect(call(bug, ['boom'])).rejects.toThrow('x is undefined');
    const all = defineCommand({
      usage: USAGE,
      options: {},
      oneLineErrors: 'all',
      run() {
        throw new Error('disk full');
      },
    });
    expect(await call(all, [])).toEqual({ returned: 1, code: 1, out: '', err: 'error: disk full' });
  });

  it('returns a promise on every path when run is async, and a number when it is not', async () => {
    const main = defineCommand({
      usage: () => `${USAGE} (built when shown)`,
      options: OPTIONS,
      allowPositionals: true,
      blankLineBeforeUsage: true,
      async run({ positionals }, { out, usageError }) {
        await Promise.resolve();
        if (positionals[0] === 'boom') throw new EvalError('usage', 'no input');
        if (positionals[0] === 'bug') throw new RangeError('bug');
        if (positionals.length === 0) return usageError();
        out(positionals.join(' '));
        return 0;
      },
    });
    for (const argv of [['--help'], ['--bogus'], [], ['boom'], ['ada']])
      expect((await call(main, argv)).returned, argv.join(' ')).toBeInstanceOf(Promise);
    expect(await call(main, ['--help'])).toMatchObject({ code: 0, out: `${USAGE} (built when shown)` });
    expect((await call(main, ['--bogus'])).err).toMatch(/^error: Unknown option '--bogus'.*\n\nusage: pnpm hello /);
    expect(await call(main, [])).toMatchObject({ code: 1, err: `${USAGE} (built when shown)` });
    expect(await call(main, ['boom'])).toMatchObject({ code: 1, err: 'error: no input' });
    await expect(call(main, ['bug'])).rejects.toThrow(RangeError);
    expect(typeof hello().main(['--help'], () => {})).toBe('number');
  });

  it('passes the arguments after the writers on to run (an injected clock)', () => {
    const main = defineCommand({
      usage: USAGE,
      options: {},
      run: (_line, { out }, now: Date = new Date(0)) => {
        out(now.toISOString());
        return 0;
      },
    });
    const lines: string[] = [];
    expect(main([], (text) => lines.push(text), undefined, new Date('2026-01-02T03:04:05Z'))).toBe(0);
    main([], (text) => lines.push(text));
    expect(lines).toEqual(['2026-01-02T03:04:05.000Z', '1970-01-01T00:00:00.000Z']);
  });
});

describe('runAsEntryPoint', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-command-'));
  const commandUrl = pathToFileURL(join(import.meta.dirname, 'command.ts')).href;
  /** A command file run as a script: its exit code and output. */
  function script(name: string, body: string, args: string[]) {
    const file = join(dir, name);
    writeFileSync(file, `import { defineCommand, runAsEntryPoint } from ${JSON.stringify(commandUrl)};\n${body}`);
    const child = spawnSync(process.execPath, ['--import', 'tsx', file, ...args], { encoding: 'utf8' });
    return { status: child.status, stdout: child.stdout, stderr: child.stderr };
  }
  const body = (run: string) =>
    `export const main = defineCommand({ usage: 'usage: x', options: {}, allowPositionals: true, ${run} });\n` +
    'runAsEntryPoint(import.meta.url, main);\n';

  it('exits with the code of a sync or an async command started as the script, and does nothing when imported', () => {
    expect(script('sync.ts', body('run: ({ positionals }) => Number(positionals[0])'), ['3'])).toMatchObject({
      status: 3,
    });
    expect(script('async.ts', body('async run({ positionals }) { return Number(positionals[0]); }'), ['4'])).toEqual({
      status: 4,
      stdout: '',
      stderr: '',
    });
    expect(script('help.ts', body('run: () => 9'), ['--help'])).toEqual({
      status: 0,
      stdout: 'usage: x\n',
      stderr: '',
    });
    expect(script('bogus.ts', body('run: () => 9'), ['--bogus']).status).toBe(1);
    const imported = script('importer.ts', `import { main } from './sync.ts';\nconsole.log(typeof main);\n`, ['3']);
    expect(imported).toEqual({ status: 0, stdout: 'function\n', stderr: '' });
  });
});
