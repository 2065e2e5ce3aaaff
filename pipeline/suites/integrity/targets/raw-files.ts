// Generic file tooling for raw edits: JSON-lines and JSON-object files edited in place, whole-directory copies (T9).
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import type { JsonValue, RawSnapshot } from './integrity-target.js';

/** A JSON object as one line holds it. */
export type JsonLine = Record<string, JsonValue>;

/** A JSON-lines file read and rewritten with plain file operations; every write is logged as the command it is. */
export interface JsonlFile {
  /** Every line, parsed; a missing file has none. Throws naming the file and line for a line that is not a JSON object. */
  read(): Promise<JsonLine[]>;
  /** Replaces line `index` (0-based) with `value` serialised as one line (key order kept). */
  replace(index: number, value: JsonLine): Promise<void>;
  /** Deletes line `index`. */
  remove(index: number): Promise<void>;
  /** Appends one line. */
  append(value: JsonLine): Promise<void>;
}

/**
 * Opens a JSON-lines file for raw editing. `label` names it in logged commands (e.g. `store/records.jsonl`).
 *
 * @example
 * const file = jsonlFile('/tmp/cell/store/records.jsonl', 'records.jsonl', console.log);
 * await file.replace(2, { ...(await file.read())[2], content: 'changed' });
 */
export function jsonlFile(path: string, label: string, log: (command: string) => void): JsonlFile {
  const lines = async (): Promise<string[]> => {
    const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    return text.split('\n').filter((line) => line !== '');
  };
  const save = async (content: string[]): Promise<void> => writeFile(path, content.map((line) => `${line}\n`).join(''));
  return {
    async read() {
      return (await lines()).map((line, index) => {
        const value = JSON.parse(line) as unknown;
        if (value === null || typeof value !== 'object' || Array.isArray(value))
          throw new Error(`${path}:${index + 1}: not a JSON object`);
        return value as JsonLine;
      });
    },
    async replace(index, value) {
      const content = await lines();
      if (index < 0 || index >= content.length) throw new RangeError(`${path}: no line ${index + 1}`);
      content[index] = JSON.stringify(value);
      log(`file ${label}: replace line ${index + 1} with ${content[index]}`);
      await save(content);
    },
    async remove(index) {
      const content = await lines();
      if (index < 0 || index >= content.length) throw new RangeError(`${path}: no line ${index + 1}`);
      log(`file ${label}: delete line ${index + 1} (${content[index]})`);
      content.splice(index, 1);
      await save(content);
    },
    async append(value) {
      const content = await lines();
      content.push(JSON.stringify(value));
      log(`file ${label}: append line ${content.length}: ${content.at(-1)}`);
      await save(content);
    },
  };
}

/**
 * T9's copy of a whole store directory (every file in it, sidecars included): `cp -a` out now, and on restore
 * `rm -rf` the live directory and copy the older one back. Anything kept outside `dir` is not copied.
 */
export async function directorySnapshot(
  dir: string,
  label: string,
  log: (command: string) => void,
): Promise<RawSnapshot> {
  const copy = `${dir}.snapshot`;
  await rm(copy, { recursive: true, force: true });
  await cp(dir, copy, { recursive: true, preserveTimestamps: true });
  log(`cp -a ${label} ${label}.snapshot`);
  return {
    async restore() {
      await rm(dir, { recursive: true, force: true });
      await cp(copy, dir, { recursive: true, preserveTimestamps: true });
      log(`rm -rf ${label} && cp -a ${label}.snapshot ${label}`);
    },
  };
}

/** A JSON file holding one object (entry id → entry), read and rewritten with plain file operations. */
export interface JsonObjectFile {
  /** The whole object; a missing file is an empty one. Throws naming the file when it is not a JSON object. */
  read(): Promise<Record<string, JsonValue>>;
  /** Sets (adds or replaces) one member. */
  set(key: string, value: JsonValue): Promise<void>;
  /** Deletes one member; throws when it is absent. */
  remove(key: string): Promise<void>;
}

/**
 * Opens a JSON-object file for raw editing, rewritten indented by two spaces (as Python's `json.dump(indent=2)`
 * writes it). `label` names it in logged commands.
 *
 * @example
 * const file = jsonObjectFile('/tmp/cell/store/memory_store.json', 'store/memory_store.json', console.log);
 * await file.remove('ctx-A::04');
 */
export function jsonObjectFile(path: string, label: string, log: (command: string) => void): JsonObjectFile {
  const read = async (): Promise<Record<string, JsonValue>> => {
    const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '{}';
      throw error;
    });
    const value = JSON.parse(text) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new Error(`${path}: not a JSON object`);
    return value as Record<string, JsonValue>;
  };
  const save = (content: Record<string, JsonValue>): Promise<void> => writeFile(path, JSON.stringify(content, null, 2));
  return {
    read,
    async set(key, value) {
      const content = await read();
      content[key] = value;
      log(`file ${label}: set ${JSON.stringify(key)} to ${JSON.stringify(value)}`);
      await save(content);
    },
    async remove(key) {
      const content = await read();
      if (!Object.hasOwn(content, key)) throw new RangeError(`${path}: no member ${JSON.stringify(key)}`);
      log(`file ${label}: delete ${JSON.stringify(key)} (${JSON.stringify(content[key])})`);
      delete content[key];
      await save(content);
    },
  };
}
