// The project's import graph (static, type-only and dynamic imports alike) and its cycles, read with TypeScript's scanner.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** File → the project files it imports, as paths relative to the root with `/` separators. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

const SKIPPED = new Set(['node_modules', '.git', '.cache', 'data', 'runs']);

/** Every `.ts` file under `folders` (recursively, skipping node_modules and data). */
function sourceFiles(root: string, folders: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && !SKIPPED.has(entry.name)) walk(join(dir, entry.name));
      else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
        files.push(join(dir, entry.name));
    }
  };
  for (const folder of folders) walk(join(root, folder));
  return files;
}

const toKey = (root: string, file: string) => relative(root, file).split(sep).join('/');

/** Every import specifier of each `.ts` file under `folders` (static, type-only and dynamic), as written. */
function readSpecifiers(root: string, folders: readonly string[]): Map<string, string[]> {
  const specifiers = new Map<string, string[]>();
  for (const file of sourceFiles(root, folders)) {
    specifiers.set(
      file,
      ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((entry) => entry.fileName),
    );
  }
  return specifiers;
}

/** The package's subpath imports (package.json `imports`, e.g. `#core/*` → `./pipeline/core/*`), as prefix pairs. */
function subpathImports(root: string): [alias: string, target: string][] {
  const manifest = join(root, 'package.json');
  if (!existsSync(manifest)) return [];
  const { imports = {} } = JSON.parse(readFileSync(manifest, 'utf8')) as {
    imports?: Record<string, string>;
  };
  return Object.entries(imports).map(([alias, target]) => [alias.replace(/\*$/, ''), target.replace(/\*$/, '')]);
}

/** The project file a specifier names (relative, or a subpath import such as `#core/errors.js`), else null (a package). */
function projectTarget(
  root: string,
  file: string,
  specifier: string,
  aliases: readonly [string, string][],
): string | null {
  const path = specifier.replace(/\.js$/, '.ts');
  if (specifier.startsWith('.')) return toKey(root, resolve(dirname(file), path));
  const alias = aliases.find(([prefix]) => specifier.startsWith(prefix));
  return alias ? toKey(root, resolve(root, alias[1] + path.slice(alias[0].length))) : null;
}

/** Every import specifier of each `.ts` file under `folders`, as written (for rules about how a file imports). */
export function readImportSpecifiers(root: string, folders: readonly string[]): ImportGraph {
  const written = new Map<string, string[]>();
  for (const [file, imported] of readSpecifiers(root, folders)) written.set(toKey(root, file), [...new Set(imported)]);
  return written;
}

/**
 * Reads the import graph of the `.ts` files under `folders`. Relative specifiers and the package's subpath imports
 * (`#core/…`, `#python-compat/…`; packages are not project files); `./x.js` resolves to `x.ts` as NodeNext does. `import type` counts: a type-only cycle is still two
 * modules that cannot be understood apart.
 *
 * @example readImportGraph(process.cwd(), ['pipeline', 'analysis']).get('pipeline/run/run.ts')
 */
export function readImportGraph(root: string, folders: readonly string[]): ImportGraph {
  const graph = new Map<string, string[]>();
  const aliases = subpathImports(root);
  for (const [file, imported] of readSpecifiers(root, folders)) {
    const targets = imported.flatMap((specifier) => projectTarget(root, file, specifier, aliases) ?? []);
    graph.set(toKey(root, file), [...new Set(targets)].sort());
  }
  return graph;
}

/**
 * The packages and built-ins each `.ts` file under `folders` imports (every specifier that is neither relative nor a
 * subpath import `#…`), keyed
 * like the import graph.
 *
 * @example readPackageImports(process.cwd(), ['pipeline/python-compat']).get('pipeline/python-compat/python-uuid.ts') // ['node:crypto']
 */
export function readPackageImports(root: string, folders: readonly string[]): ImportGraph {
  const packages = new Map<string, string[]>();
  for (const [file, imported] of readSpecifiers(root, folders))
    packages.set(toKey(root, file), [...new Set(imported.filter((specifier) => !/^[.#]/.test(specifier)))].sort());
  return packages;
}

/**
 * Every import cycle, one per strongly connected component of more than one file (or a file importing itself),
 * each as one closed path through it, e.g. `['a.ts', 'b.ts', 'a.ts']`. Tarjan's algorithm.
 */
export function importCycles(graph: ImportGraph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components.map((component) => cycleThrough(graph, component));
}

/** A shortest closed path from the component's first file back to itself, staying inside the component. */
function cycleThrough(graph: ImportGraph, component: readonly string[]): string[] {
  const members = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head += 1) {
    const node = queue[head]!;
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let step: string | undefined = node; step !== undefined && step !== start; step = previous.get(step))
          path.splice(1, 0, step);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}
