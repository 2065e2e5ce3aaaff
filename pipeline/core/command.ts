// One command-line command's boilerplate: strict flags, `--help`, a usage error, one `error:` line per failure, exit.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isEntryPoint } from './entry-point.js';
import { EvalError } from './errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;
type WithHelp<O extends Options> = O & { help: { type: 'boolean'; short: 'h' } };
const HELP = { help: { type: 'boolean', short: 'h' } } as const;

/** Where a command writes one piece of text (`console.log`, `console.error`, or a test's array). */
export type Write = (text: string) => void;

/** The command line as parsed: the flags (`help` included) and the positional arguments. */
export interface CommandLine<O extends Options> {
  values: ReturnType<typeof parseArgs<{ options: WithHelp<O>; strict: true }>>['values'];
  positionals: string[];
}

/** What a command's `run` writes through. */
export interface CommandIo {
  out: Write;
  err: Write;
  /** Writes `error: <message>` and the usage to `err` (the usage alone with no message); returns the exit code 1. */
  usageError(message?: string): 1;
}

/** A command: its usage, its flags, and what it does once the command line parsed. */
export interface CommandSpec<O extends Options, R extends number | Promise<number>, Extra extends unknown[]> {
  /** The `--help` text, also written after a usage error; a function when it is built when shown. */
  usage: string | (() => string);
  /** The flags (node's `parseArgs` options, strict); `--help, -h` is added. */
  options: O;
  /** Whether positional arguments are taken (default false: one is a usage error, as in `parseArgs`). */
  allowPositionals?: boolean;
  /** A blank line between a usage error's message and the usage (default: none). */
  blankLineBeforeUsage?: boolean;
  /**
   * Which errors `run` throws become one `error: <message>` line and the exit code 1: `'eval'` (default) an
   * `EvalError` only, anything else being a bug that keeps its stack; `'all'` every error.
   */
  oneLineErrors?: 'eval' | 'all';
  /** Does the work and returns the exit code; declare it `async` when it awaits (the command then returns a promise). */
  run(line: CommandLine<O>, io: CommandIo, ...extra: Extra): R;
}

/** A command's entry point: the arguments after the command name, the writers (tests pass their own), extras. */
export type CommandMain<R extends number | Promise<number>, Extra extends unknown[]> = (
  argv: readonly string[],
  out?: Write,
  err?: Write,
  ...extra: Extra
) => R;

/**
 * Builds a command's `main`: parses `argv` strictly (an unknown flag, a missing flag value or an unexpected
 * positional argument is `error: <what>` and the usage on `err`, exit 1), answers `--help`/`-h` with the usage on
 * `out` (exit 0), then runs `run`; an error it throws is one `error: <message>` line on `err` and exit 1 (see
 * `oneLineErrors`). `main` returns a number when `run` does, a promise when `run` is `async`.
 *
 * @example
 * export const main = defineCommand({
 *   usage: 'usage: pnpm hello <name> [--loud]',
 *   options: { loud: { type: 'boolean' } },
 *   allowPositionals: true,
 *   run({ values, positionals: [name] }, { out, usageError }) {
 *     if (name === undefined) return usageError('name someone');
 *     out(values.loud ? `HELLO ${name.toUpperCase()}` : `hello ${name}`);
 *     return 0;
 *   },
 * });
 */
export function defineCommand<
  const O extends Options,
  R extends number | Promise<number>,
  Extra extends unknown[] = [],
>(spec: CommandSpec<O, R, Extra>): CommandMain<R, Extra> {
  const isAsync = spec.run.constructor.name === 'AsyncFunction';
  const usage = () => (typeof spec.usage === 'string' ? spec.usage : spec.usage());
  const oneLine = (error: unknown) => spec.oneLineErrors === 'all' || error instanceof EvalError;
  return (argv, out = console.log, err = console.error, ...extra) => {
    // An exit before `run` is a number, or a resolved promise when `run` is async: `main` returns one kind only.
    const exit = (code: number) => (isAsync ? Promise.resolve(code) : code) as R;
    const usageError = (message?: string): 1 => {
      err(message === undefined ? usage() : `error: ${message}${spec.blankLineBeforeUsage ? '\n\n' : '\n'}${usage()}`);
      return 1;
    };
    const failed = (error: unknown): number => {
      if (!oneLine(error)) throw error;
      err(`error: ${(error as Error).message}`);
      return 1;
    };
    let line: CommandLine<O>;
    try {
      line = parseArgs({
        args: [...argv],
        options: { ...spec.options, ...HELP },
        strict: true,
        allowPositionals: spec.allowPositionals === true,
      }) as CommandLine<O>;
    } catch (error) {
      return exit(usageError((error as Error).message));
    }
    if ((line.values as { help?: boolean }).help) {
      out(usage());
      return exit(0);
    }
    try {
      const code = spec.run(line, { out, err, usageError }, ...(extra as Extra));
      return (code instanceof Promise ? code.catch(failed) : code) as R;
    } catch (error) {
      return exit(failed(error));
    }
  };
}

/**
 * Runs `main` on the process's arguments when `moduleUrl` (the caller's `import.meta.url`) is the script Node was
 * started with, and exits with its code.
 *
 * @example runAsEntryPoint(import.meta.url, main);
 */
export function runAsEntryPoint(moduleUrl: string, main: (argv: readonly string[]) => number | Promise<number>): void {
  if (!isEntryPoint(moduleUrl)) return;
  const code = main(process.argv.slice(2));
  if (typeof code === 'number') process.exit(code);
  void code.then((value) => process.exit(value));
}
