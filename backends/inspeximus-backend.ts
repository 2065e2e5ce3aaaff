// inspeximus (PyPI) measured through its own API in a Python process: keyed, unkeyed and keyed-read-with-history.
import { join } from 'node:path';
import { EvalError } from '#core/errors.js';
import { INSPEXIMUS_PIN, INSPEXIMUS_VERSION } from './inspeximus-version.js';
import {
  directoryName,
  NOT_SUPERSEDED,
  recallOptions,
  toInspeximusRecord,
  toStoredRecord,
  type ListedItem,
  type RecallItem,
} from './inspeximus-records.js';
import { insertPlan, type InspeximusWrites } from './inspeximus-writes.js';
import type {
  BackendDescription,
  BackendSettings,
  InsertReport,
  MemoryBackend,
  RecordedWarning,
  SystemId,
} from './memory-backend.js';
import { createPythonMemoryProcess, packageProblemOnce } from './python/python-memory-process.js';
import { refuseProvenance } from './provenance.js';

// Issue #19 item 1 covers graphiti; inspeximus's own derivation tracking (stale_derived) is not wired to derivedFrom.
const NO_PROVENANCE = "a journal's derivedFrom is not mapped onto inspeximus derivations here";

/** `unkeyed` = `inspeximus`, `keyed` = `inspeximus-keyed`, `keyed-history` = `inspeximus-hist`. */
export type InspeximusVariant = 'unkeyed' | 'keyed' | 'keyed-history';

/** Settings of the inspeximus backends. */
export type InspeximusSettings = BackendSettings & {
  /** Which configuration. */
  variant: InspeximusVariant;
  /** Repository root holding `.cache/python/venv` and the driver; defaults to this checkout. */
  root?: string;
};

const ADAPTER = 'inspeximus_memory';
const PROJECT_ROOT = join(import.meta.dirname, '..');
const VARIANTS: Record<
  InspeximusVariant,
  { id: SystemId; writes: InspeximusWrites; includeSuperseded: boolean; summary: string }
> = {
  unkeyed: {
    id: 'inspeximus',
    writes: 'unkeyed',
    includeSuperseded: false,
    summary: 'v1 and v2 as ordinary memories (no key); default read recall(query, k)',
  },
  keyed: {
    id: 'inspeximus-keyed',
    writes: 'keyed',
    includeSuperseded: false,
    summary: 'v1 then v2 under one key (its correction path); default read recall(query, k)',
  },
  'keyed-history': {
    id: 'inspeximus-hist',
    writes: 'keyed',
    includeSuperseded: true,
    summary: 'v1 then v2 under one key; read recall(query, k, include_superseded=True)',
  },
};

/** Null when the venv holds the pinned inspeximus, else the error naming what is missing (checked once per process). */
export const inspeximusProblem = packageProblemOnce(
  { system: 'inspeximus', adapter: ADAPTER, pin: INSPEXIMUS_PIN },
  PROJECT_ROOT,
);

/**
 * Creates one inspeximus configuration. Every namespace is its own store (`memory.db` under `workDir`) in one Python
 * process per backend, with no embedder (the library's default: lexical recall); the library's HOME is a private
 * directory, so its user config is empty and its defaults apply. Writes are `insertPlan`'s library calls; the keyed
 * configurations then check with `history(key)` that every revoked fact ended superseded, and throw otherwise. Reads
 * are `recall(query, k = limit)`; the store filter (every configuration) is `include_superseded=False,
 * suppress_stale_values=True`. Exposure is labelled lexically, like the other systems without a status the paper read.
 *
 * @example
 * const backend = createInspeximusBackend({ embedder, extraction, runId: 'r1', workDir: '/tmp/r1', variant: 'keyed' });
 * await backend.open();
 * await backend.insert({ namespace: 'mfa_waiver_access', now, writes: { mode: 'direct', revoked: [v1], current: [v2] } });
 * const { records } = await backend.search({ namespace: 'mfa_waiver_access', query, limit: 10 });
 */
export function createInspeximusBackend(settings: InspeximusSettings): MemoryBackend {
  const variant = VARIANTS[settings.variant];
  const python = createPythonMemoryProcess({
    system: variant.id,
    adapter: ADAPTER,
    pin: INSPEXIMUS_PIN,
    root: settings.root ?? PROJECT_ROOT,
    workDir: join(settings.workDir, directoryName(settings.runId)),
  });
  const namespaceOf = (namespace: string) => directoryName(namespace);
  // The run's embedder, extraction model and server engines live in this process; the library uses none of them.
  const servers = [settings.engine?.graph.id, settings.engine?.vector.id].filter(
    (id) => id !== undefined && id !== 'embedded',
  );
  const unused = (mode: 'direct' | 'natural'): RecordedWarning[] => [
    {
      type: 'unsupported',
      feature: 'embedder',
      message: `inspeximus recalls lexically without an embedder (its default); the run's embedder ${settings.embedder.id} is not used`,
    },
    ...(mode === 'natural'
      ? [
          {
            type: 'unsupported' as const,
            feature: 'extraction model',
            message: `inspeximus stores episodes verbatim (no LLM on its write path); ${settings.extraction.id} is not used`,
          },
        ]
      : []),
    ...(servers.length > 0
      ? [
          {
            type: 'unsupported' as const,
            feature: 'storage engine',
            message: `inspeximus keeps its own SQLite store per namespace; ${servers.join(' and ')} is not used`,
          },
        ]
      : []),
  ];

  const description: BackendDescription = {
    summary: `inspeximus ${INSPEXIMUS_VERSION} (PyPI) in a Python process, lexical recall (no embedder), one store per namespace: ${variant.summary}`,
    modes: { direct: { supported: true }, natural: { supported: true } },
    exposure: { rule: 'lexical' },
    storeFilter: NOT_SUPERSEDED,
    statusFields: ['superseded', 'invalidated_at', 'key', 'stale_derived'],
  };

  return {
    id: variant.id,
    description,
    async open() {
      await python.open();
    },
    async insert(request): Promise<InsertReport> {
      refuseProvenance(variant.id, request, NO_PROVENANCE);
      const plan = insertPlan(request, variant.writes);
      const result = await python.request<{
        ids: string[];
        stored: number;
        history: Record<string, { id: string; status: string }[]>;
      }>('insert', namespaceOf(request.namespace), { steps: plan.steps, extractor: plan.extractor });
      if (plan.correctedKey !== null) {
        const statusOf = new Map((result.history[plan.correctedKey] ?? []).map((entry) => [entry.id, entry.status]));
        result.ids.slice(0, plan.revokedCount).forEach((id, index) => {
          if (statusOf.get(id) !== 'superseded') {
            const text = request.writes.mode === 'direct' ? request.writes.revoked[index] : id;
            throw new EvalError(
              'inspeximus-correction-not-applied',
              `${variant.id}: after the writes under key "${plan.correctedKey}", history() holds the revoked fact "${text}" as ${statusOf.get(id) ?? 'absent'}, not superseded`,
            );
          }
        });
      }
      return {
        stored: result.stored,
        extractor: plan.extractor ? `inspeximus.${plan.extractor}` : 'none',
        warnings: [...unused(request.writes.mode), ...python.takeNotes()],
      };
    },
    async search(request) {
      refuseProvenance(variant.id, request, NO_PROVENANCE);
      const options = recallOptions(variant.id, request, variant.includeSuperseded);
      const result = await python.request<{ records: RecallItem[]; invalidated_at: Record<string, number | null> }>(
        'search',
        namespaceOf(request.namespace),
        { query: request.query, k: request.limit, options },
      );
      return {
        records: result.records.map((item) => toInspeximusRecord(item, result.invalidated_at[item.id])),
        warnings: python.takeNotes(),
      };
    },
    async listRecords(namespace) {
      const result = await python.request<{ records: ListedItem[] }>('list', namespaceOf(namespace));
      return result.records.map(toStoredRecord);
    },
    async reset(namespace) {
      await python.reset(namespaceOf(namespace));
    },
    async close() {
      await python.close();
    },
  };
}
