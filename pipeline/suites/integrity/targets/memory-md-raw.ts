// Raw access to agent memory files (MEMORY.md, AGENTS.md): one memory per line, edited as file bytes, never the tool.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { changedNumber } from '../harness/seed-plan.js';
import { canonicalJson, parseBody } from '../../../../backends/store-tools/canonical-json.js';
import type { ContextName, RawAccess, RawRecord } from './integrity-target.js';
import { directorySnapshot } from './raw-files.js';

/** `- <text> <!-- id=<slot> <label>=<value>… -->`, the line the memory-blackbox adapter writes. */
const LINE = /^- (?<text>.*) <!-- id=(?<slot>\S+)(?<labels>(?: [^=\s]+=\S*)*) -->$/;

interface Memory {
  slot: string;
  text: string;
  labels: Record<string, string>;
}

function parseLine(line: string, file: string, index: number): Memory {
  const match = LINE.exec(line);
  if (!match?.groups) throw new Error(`${file}:${index + 1}: not a memory line: ${JSON.stringify(line)}`);
  const labels = Object.fromEntries(
    (match.groups.labels ?? '')
      .trim()
      .split(' ')
      .filter(Boolean)
      .map((pair) => pair.split('=', 2) as [string, string]),
  );
  return { slot: match.groups.slot as string, text: match.groups.text as string, labels };
}

function formatLine(memory: Memory): string {
  const labels = Object.keys(memory.labels)
    .sort()
    .map((key) => ` ${key}=${memory.labels[key]}`)
    .join('');
  return `- ${memory.text} <!-- id=${memory.slot}${labels} -->`;
}

/** The order key of a slot `A-003`: its number. */
const ordinal = (slot: string): number => Number(slot.split('-').at(-1));

/**
 * Raw access over memory files in `storeDir`, one per context (`owners`: `MEMORY.md`, `AGENTS.md`). A record's
 * slot is the id in its label comment, its owner the file, its position the slot's number; the body is its text
 * and labels, so moving it keeps the slot. Every write rewrites the file and logs the line it changed. T8 relabels
 * `source=web` → `source=user`; T9 copies the whole `store/` directory (both files; the tool's ledger and key live in
 * its profile outside it, the trusted state no edit touches).
 */
export function memoryMdRawAccess(
  files: { storeDir: string; owners: Record<ContextName, string> },
  log: (command: string) => void,
): RawAccess {
  const ownerOf = (record: RawRecord): string => record.owner;
  const pathOf = (owner: string): string => join(files.storeDir, owner);
  const lines = async (owner: string): Promise<string[]> => {
    const text = await readFile(pathOf(owner), 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    return text.split('\n').filter((line) => line.trim() !== '');
  };
  const save = (owner: string, content: string[]): Promise<void> =>
    writeFile(pathOf(owner), content.map((line) => `${line}\n`).join(''));
  const indexOf = (content: string[], owner: string, slot: string): number => {
    const index = content.findIndex((line, at) => parseLine(line, owner, at).slot === slot);
    if (index < 0) throw new Error(`store/${owner}: no memory ${slot}`);
    return index;
  };
  const rewrite = async (record: RawRecord, change: (memory: Memory) => Memory): Promise<void> => {
    const owner = ownerOf(record);
    const content = await lines(owner);
    const index = indexOf(content, owner, record.slot);
    content[index] = formatLine(change(parseLine(content[index] as string, owner, index)));
    log(`file store/${owner}: replace line ${index + 1} with ${content[index]}`);
    await save(owner, content);
  };
  return {
    async list(context) {
      const owner = files.owners[context];
      return (await lines(owner)).map((line, index) => {
        const memory = parseLine(line, owner, index);
        return {
          slot: memory.slot,
          owner,
          position: ordinal(memory.slot),
          text: memory.text,
          body: canonicalJson({ text: memory.text, labels: memory.labels }),
          labels: memory.labels,
        };
      });
    },
    async writeBody(record, body) {
      const moved = parseBody(body) as { text: string; labels: Record<string, string> };
      await rewrite(record, () => ({ slot: record.slot, text: moved.text, labels: moved.labels }));
    },
    async remove(record) {
      const owner = ownerOf(record);
      const content = await lines(owner);
      const index = indexOf(content, owner, record.slot);
      log(`file store/${owner}: delete line ${index + 1} (${content[index]})`);
      content.splice(index, 1);
      await save(owner, content);
    },
    async changeMeaning(record) {
      await rewrite(record, (memory) => ({ ...memory, text: changedNumber(memory.text).text }));
    },
    async forge(tip) {
      const owner = ownerOf(tip);
      const content = await lines(owner);
      const template = parseLine(content[indexOf(content, owner, tip.slot)] as string, owner, 0);
      const prefix = tip.slot.slice(0, tip.slot.lastIndexOf('-') + 1);
      const slot = `${prefix}${String(ordinal(tip.slot) + 1).padStart(3, '0')}`;
      content.push(formatLine({ ...template, slot, text: changedNumber(template.text).text }));
      log(`file store/${owner}: append line ${content.length}: ${content.at(-1)}`);
      await save(owner, content);
    },
    async relabel(record) {
      await rewrite(record, (memory) => ({ ...memory, labels: { ...memory.labels, source: 'user' } }));
    },
    snapshot: () => directorySnapshot(files.storeDir, 'store', log),
  };
}
