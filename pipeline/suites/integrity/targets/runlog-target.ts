// Target `runlog`: a run directory's JSON-lines unit records, written and read through the run-log format seam.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { UnitRecord } from '../../../run-log/run-log.js';
import { changedNumber } from '../harness/seed-plan.js';
import { canonicalJson, parseBody } from '../../../../backends/store-tools/canonical-json.js';
import type {
  ContextName,
  IntegrityTarget,
  JsonValue,
  RawAccess,
  RawRecord,
  SeedRecord,
  TargetDescription,
} from './integrity-target.js';
import { directorySnapshot, jsonlFile, type JsonlFile, type JsonLine } from './raw-files.js';
import { UNCHAINED_RUN_LOG, type RunLogFormat } from './runlog-format.js';

const RUNS: Record<ContextName, string> = { A: 'run-a', B: 'run-b' };
const FIXED = new Set(['unitId', 'key', 'startedAt']);

type Context = { records?: { text?: string; fields?: Record<string, JsonValue> }[] };
const memoryOf = (line: JsonLine): { text?: string; fields?: Record<string, JsonValue> } =>
  ((line.context as Context | undefined)?.records ?? [])[0] ?? {};

const toRaw = (context: ContextName, line: JsonLine): RawRecord => ({
  slot: `${RUNS[context]}:${String(line.unitId)}`,
  owner: RUNS[context],
  position: String(line.startedAt),
  text: String(memoryOf(line).text ?? ''),
  body: canonicalJson(Object.fromEntries(Object.entries(line).filter(([key]) => !FIXED.has(key)))),
  labels: { source: memoryOf(line).fields?.source ?? null, finishedAt: line.finishedAt ?? null },
});

/** A unit record holding one seeded memory as the context a decision saw. */
function unitRecord(record: SeedRecord, index: number, at: Date): UnitRecord {
  const key = {
    scenario: `integrity-${index}`,
    system: 'integrity',
    mode: 'direct' as const,
    arm: 'none' as UnitRecord['key']['arm'],
    model: 'sim',
    trial: 0,
    guard: false,
    poem: false,
  };
  return {
    version: 2,
    type: 'decision-end',
    unitId: `integrity-${index}/integrity/direct/none/sim/0`,
    key,
    status: 'ok',
    startedAt: at.toISOString(),
    finishedAt: new Date(at.getTime() + 500).toISOString(),
    context: {
      read: 'default',
      records: [{ id: `memory-${index}`, text: record.text, fields: { ...record.labels } }],
      labels: [false],
      exposed: false,
      extractor: 'none',
    },
    promptSha256: '0'.repeat(64),
    reply: null,
    parsedAction: null,
    scores: { unsafe: null, parseFailure: false },
  };
}

/**
 * Creates `runlog` on a run-log format (default: today's unchained one). A context is one run directory; a record
 * is one unit line of `records.jsonl`, its content the memory the decision saw (`context.records[0].text`). When the
 * hash-chained format lands, pass it here (one registry line) and the same edits measure it.
 *
 * @example const target = createRunlogTarget(UNCHAINED_RUN_LOG);
 */
export function createRunlogTarget(format: RunLogFormat = UNCHAINED_RUN_LOG): IntegrityTarget {
  const description: TargetDescription = {
    label: `stalebench run log (${format.id})`,
    model: false,
    versions: { 'stalebench run log': format.id },
    store: `one run directory per context: manifest.json + records.jsonl (node:fs, Node ${process.versions.node})`,
    config: {
      'integrity features': format.audit ? 'format verifier (audit)' : 'none',
      'read path': 'loadRun (analysis/load-run.ts), as rescore and report read runs',
    },
    detection: format.audit ? 'audit' : 'read',
    contexts: 2,
    tooling: 'line edits of run-a/records.jsonl and run-b/records.jsonl (node:fs); cp of the run directories (T9)',
  };
  return {
    id: 'runlog',
    describe: async () => description,
    async createStore({ dir, log }) {
      const runsDir = join(dir, 'runs');
      for (const run of Object.values(RUNS)) mkdirSync(join(runsDir, run), { recursive: true });
      const files: Record<ContextName, JsonlFile> = {
        A: jsonlFile(join(runsDir, RUNS.A, 'records.jsonl'), `${RUNS.A}/records.jsonl`, log),
        B: jsonlFile(join(runsDir, RUNS.B, 'records.jsonl'), `${RUNS.B}/records.jsonl`, log),
      };
      const locate = async (record: RawRecord) => {
        const context: ContextName = record.owner === RUNS.A ? 'A' : 'B';
        const lines = await files[context].read();
        const index = lines.findIndex((line) => toRaw(context, line).slot === record.slot);
        if (index < 0) throw new Error(`no unit line ${record.slot}`);
        return { file: files[context], index, line: lines[index] as JsonLine };
      };
      const withMemory = (
        line: JsonLine,
        change: (memory: Record<string, JsonValue>) => Record<string, JsonValue>,
      ): JsonLine => {
        const context = line.context as { records: Record<string, JsonValue>[] };
        return {
          ...line,
          context: {
            ...context,
            records: [change(context.records[0] ?? {}), ...context.records.slice(1)],
          } as JsonValue,
        };
      };
      const raw: RawAccess = {
        list: async (context) => (await files[context].read()).map((line) => toRaw(context, line)),
        async writeBody(record, body) {
          const { file, index, line } = await locate(record);
          await file.replace(index, {
            ...parseBody(body),
            unitId: line.unitId ?? null,
            key: line.key ?? null,
            startedAt: line.startedAt ?? null,
          });
        },
        async remove(record) {
          const { file, index } = await locate(record);
          await file.remove(index);
        },
        async changeMeaning(record) {
          const { file, index, line } = await locate(record);
          await file.replace(
            index,
            withMemory(line, (memory) => ({ ...memory, text: changedNumber(String(memory.text)).text })),
          );
        },
        async forge(tip) {
          const { file, line } = await locate(tip);
          const at = new Date(Date.parse(String(line.startedAt)) + 1000);
          const forged = withMemory(
            {
              ...line,
              unitId: `${String(line.unitId)}-1`,
              startedAt: at.toISOString(),
              finishedAt: new Date(at.getTime() + 500).toISOString(),
            },
            (memory) => ({ ...memory, text: changedNumber(String(memory.text)).text }),
          );
          await file.append(forged);
        },
        async relabel(record) {
          const { file, index, line } = await locate(record);
          await file.replace(
            index,
            withMemory(line, (memory) => ({
              ...memory,
              fields: { ...(memory.fields as Record<string, JsonValue>), source: 'user' },
            })),
          );
        },
        snapshot: () => directorySnapshot(runsDir, 'runs', log),
      };
      return {
        raw,
        async start() {
          return {
            async seed(context, records) {
              const runDir = join(runsDir, RUNS[context]);
              const existing = existsSync(join(runDir, 'manifest.json')) ? format.load(runDir).length : 0;
              const base = Date.now();
              records.forEach((record, index) => {
                format.append(runDir, unitRecord(record, existing + index, new Date(base + (existing + index) * 1000)));
              });
            },
            async read(context) {
              return {
                status: 'served',
                texts: format
                  .load(join(runsDir, RUNS[context]))
                  .map((unit) => String(unit.context.records[0]?.text ?? '')),
              };
            },
            ...(format.audit
              ? {
                  audit: async (context: ContextName) => {
                    const problem = format.audit?.(join(runsDir, RUNS[context])) ?? null;
                    return problem === null ? { ok: true as const } : { ok: false as const, reason: problem };
                  },
                }
              : {}),
            async stop() {},
          };
        },
        async dispose() {},
      };
    },
  };
}
