// Test support: a private copy of the source tree (node_modules linked, never the checkout) to which a test adds a
// part — one file and its registry line — and on which it runs the real commands as child processes.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** The checkout this file lives in. */
const ROOT = resolve(import.meta.dirname, '..', '..');

/** What a command printed and how it exited. */
export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The command scripts of package.json a copy can run (`pnpm <name>` = `tsx <file>`). */
const COMMANDS = {
  eval: ['pipeline/cli/cli.ts', 'eval'],
  rescore: ['analysis/rescore-command.ts'],
  report: ['analysis/report-command.ts'],
  'verify-run': ['analysis/verify-run-command.ts'],
  action: ['pipeline/ci/action-steps.ts'],
} as const;

/** A registry line: `entry` inserted right before the one line equal to `before` (trimmed), `importLine` after line 1. */
export interface RegistryLine {
  importLine?: string;
  entry: string;
  before: string;
}

/**
 * Everything one "add a …" change is, as a test makes it (pipeline/test-support/throwaway-parts/): its new files and
 * its registry lines. Nothing else of the tree is edited.
 */
export interface SourcePart {
  /** What it adds, for messages (`a suite`). */
  readonly name: string;
  /** New files, each by its path from the root. */
  readonly files: readonly { readonly path: string; readonly text: string }[];
  /** Lines added to registry files, in order. */
  readonly registryLines: readonly { readonly file: string; readonly line: RegistryLine }[];
}

/** A copy of the source tree in a temporary directory. */
export interface SourceCopy {
  /** Root of the copy. */
  dir: string;
  /** Writes a new file (path relative to the root; a new folder is made); refuses to overwrite one. */
  addFile(path: string, text: string): void;
  /**
   * Adds a registry line: `entry` as a new line right before the one line of `file` that equals `before` (trimmed),
   * and `importLine`, if given, after the file's first line (its purpose header). Throws unless `before` occurs once.
   */
  addRegistryLine(file: string, line: RegistryLine): void;
  /** Adds a part: its files, then its registry lines. */
  addPart(part: SourcePart): void;
  /** Runs `pnpm <command> <args>` on the copy (a child node process with tsx, no network needed for `--model sim`). */
  run(command: keyof typeof COMMANDS, args: readonly string[]): Promise<CommandResult>;
  /** `tsc --noEmit` over the copy's tsconfig: the added part type-checks with everything else. */
  typecheck(): Promise<CommandResult>;
  /**
   * How the copy's source (the folders tsconfig.json type-checks) differs from this checkout's: files only in the copy,
   * only in the checkout, and in both with other bytes; each sorted, as `/`-separated paths from the root.
   */
  differences(): { added: string[]; removed: string[]; changed: string[] };
  /** Deletes the copy. */
  remove(): void;
}

/** Every file under the folders tsconfig.json type-checks in the tree at `root` (run outputs and caches aside), sorted. */
function sourceFiles(root: string): string[] {
  const { include } = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')) as { include: string[] };
  return include
    .flatMap((folder) =>
      readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/')),
    )
    .filter((path) => !/(^|\/)(runs|work|\.stalebench-cache|__pycache__)\//.test(path))
    .sort();
}

/** Runs node with `args` in `cwd` (CI=1) and collects what it printed. */
export function runNode(cwd: string, args: readonly string[]): Promise<CommandResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: { ...process.env, CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('error', fail);
    child.on('exit', (code) => done({ code, stdout, stderr }));
  });
}

/**
 * Copies the folders `tsconfig.json` includes, `data/`, `package.json` and `tsconfig.json` into a fresh temporary
 * directory and links `node_modules`. Nothing the checkout holds is ever edited.
 *
 * @example const copy = copySourceTree(); copy.addFile('pipeline/defences/x.ts', text); await copy.run('eval', [...]);
 */
export function copySourceTree(): SourceCopy {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-source-'));
  const { include } = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] };
  for (const folder of [...include, 'data']) {
    cpSync(join(ROOT, folder), join(dir, folder), {
      recursive: true,
      filter: (source) => !/[\\/](runs|work|\.stalebench-cache|__pycache__)$/.test(source),
    });
  }
  for (const file of ['package.json', 'tsconfig.json']) cpSync(join(ROOT, file), join(dir, file));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const copy: SourceCopy = {
    dir,
    addFile(path, text) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text, { flag: 'wx' });
    },
    addRegistryLine(file, line) {
      const path = join(dir, file);
      const lines = readFileSync(path, 'utf8').split('\n');
      const at = lines.flatMap((text, index) => (text.trim() === line.before.trim() ? [index] : []));
      if (at.length !== 1) throw new Error(`${file}: expected one line "${line.before}", found ${at.length}`);
      lines.splice(at[0]!, 0, line.entry);
      if (line.importLine !== undefined) lines.splice(1, 0, line.importLine);
      writeFileSync(path, lines.join('\n'));
    },
    addPart(part) {
      for (const file of part.files) copy.addFile(file.path, file.text);
      for (const { file, line } of part.registryLines) copy.addRegistryLine(file, line);
    },
    run(command, args) {
      const [script, ...prefix] = COMMANDS[command];
      return runNode(dir, ['--import', 'tsx', join(dir, script), ...prefix, ...args]);
    },
    typecheck() {
      return runNode(dir, [
        join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
        '--noEmit',
        '-p',
        join(dir, 'tsconfig.json'),
      ]);
    },
    differences() {
      const before = sourceFiles(ROOT);
      const after = sourceFiles(dir);
      const read = (root: string, path: string) => readFileSync(join(root, path), 'utf8');
      return {
        added: after.filter((path) => !before.includes(path)),
        removed: before.filter((path) => !after.includes(path)),
        changed: before.filter((path) => after.includes(path) && read(ROOT, path) !== read(dir, path)),
      };
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return copy;
}
