// The throwaway memory system "add a backend" adds (test only): one file (backends/notebook-backend.ts), one line in
// the system registry (backends/index.ts), and its test, the shared conformance suite (backends/notebook-backend.test.ts).
import type { SourcePart } from '../source-copy.js';

/** What the notebook says of itself: the summary every surface (--help, the manifest) shows. */
export const NOTEBOOK_SUMMARY =
  'notebook (test only): a list of facts ranked by the shared embedder; expired_at marks revoked';

/** Why it has no natural mode: the reason the grid prints for its n/a cells. */
export const NOTEBOOK_NO_NATURAL = 'the notebook stores the facts it is given and has no ingestion of episodes';

/**
 * The one file: facts in process, per namespace; a revoked fact keeps its text and carries `expired_at` (as Graphiti's
 * edges do), so the default read serves it and the store filter `expired_at IS NULL` removes it.
 */
const BACKEND_FILE = `// A throwaway memory system (test only): a notebook of facts, ranked by cosine similarity under the shared embedder.
import { randomUUID } from 'node:crypto';
import { compileFilterPredicate } from './filter-predicate.js';
import type {
  BackendSettings,
  FieldValue,
  InsertReport,
  InsertRequest,
  MemoryBackend,
  MemoryRecord,
  SearchRequest,
  SearchResult,
} from './memory-backend.js';
import { refuseProvenance } from './provenance.js';

const DAY = 86_400_000;

interface Entry {
  record: MemoryRecord;
  vector: number[];
}

const cosine = (a: readonly number[], b: readonly number[]): number => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
};

export function createNotebookBackend(settings: BackendSettings): MemoryBackend {
  const pages = new Map<string, Entry[]>();
  let open = false;
  const page = (namespace: string): Entry[] => {
    if (!open) throw new Error('notebook: call open() first');
    const key = \`\${settings.runId}/\${namespace}\`;
    let entries = pages.get(key);
    if (!entries) pages.set(key, (entries = []));
    return entries;
  };
  const write = async (namespace: string, text: string, fields: Record<string, FieldValue>) => {
    const [vector] = await settings.embedder.embed([text]);
    page(namespace).push({ record: { id: randomUUID(), text, fields }, vector: vector! });
  };
  return {
    id: 'notebook',
    description: {
      summary: ${JSON.stringify(NOTEBOOK_SUMMARY)},
      modes: {
        direct: { supported: true },
        natural: { supported: false, reason: ${JSON.stringify(NOTEBOOK_NO_NATURAL)} },
      },
      exposure: { rule: 'status', field: 'expired_at' },
      storeFilter: { expired_at: [[{ operator: 'IS NULL' }]] },
      statusFields: ['expired_at'],
    },
    async open() {
      open = true;
    },
    async insert(request: InsertRequest): Promise<InsertReport> {
      refuseProvenance('notebook', request, 'the notebook keeps no provenance');
      const { namespace, now, writes } = request;
      if (writes.mode !== 'direct') throw new Error(\`notebook: \${${JSON.stringify(NOTEBOOK_NO_NATURAL)}}\`);
      const metadata = request.metadata ?? {};
      const created = (days: number) => new Date(now.getTime() - days * DAY).toISOString();
      for (const text of writes.revoked)
        await write(namespace, text, { ...metadata, created_at: created(90), expired_at: created(1) });
      for (const text of writes.current) await write(namespace, text, { ...metadata, created_at: created(1), expired_at: null });
      return { stored: page(namespace).length, extractor: 'none', warnings: [] };
    },
    async search(request: SearchRequest): Promise<SearchResult> {
      refuseProvenance('notebook', request, 'the notebook keeps no provenance');
      const [query] = await settings.embedder.embed([request.query]);
      const passes = request.filter ? compileFilterPredicate(request.filter) : () => true;
      const wanted = Object.entries(request.metadataFilter ?? {});
      const ranked = page(request.namespace)
        .filter(({ record }) => passes(record.fields as Record<string, string | null>))
        .filter(({ record }) => wanted.every(([key, value]) => record.fields[key] === value))
        .map((entry) => ({ entry, score: cosine(query!, entry.vector) }))
        .sort((a, b) => b.score - a.score);
      return { records: ranked.slice(0, request.limit).map(({ entry }) => entry.record), warnings: [] };
    },
    async reset(namespace: string) {
      page(namespace).length = 0;
    },
    async close() {
      open = false;
      pages.clear();
    },
  };
}
`;

/** Its test: the conformance suite every memory system passes (backends/memory-backend.conformance.ts). */
const TEST_FILE = `import { createLexicalEmbedder } from './lexical-embedder.js';
import { runBackendConformance } from './memory-backend.conformance.js';
import { createNotebookBackend } from './notebook-backend.js';
import { createSimExtractionModel } from './sim-extraction-model.js';

runBackendConformance({
  name: 'notebook',
  create: () =>
    createNotebookBackend({
      embedder: createLexicalEmbedder(),
      extraction: createSimExtractionModel(),
      runId: 'conformance',
      workDir: '.',
    }),
});
`;

/** Its registry line: a lazy factory, as every system's (it joins the default grid like the paper's systems). */
const REGISTRY_LINE = {
  entry: `  notebook: factory({ summary: ${JSON.stringify(NOTEBOOK_SUMMARY).replaceAll('"', "'")}, args: NO_ARGS, create: async (_args, settings: BackendSettings) => (await import('./notebook-backend.js')).createNotebookBackend(settings) }),`,
  before: "'graphiti-py': {",
};

/** One file, its test and one registry line: 3 files touched. */
export const NOTEBOOK_BACKEND: SourcePart = {
  name: 'a memory system',
  files: [
    { path: 'backends/notebook-backend.ts', text: BACKEND_FILE },
    { path: 'backends/notebook-backend.test.ts', text: TEST_FILE },
  ],
  registryLines: [{ file: 'backends/index.ts', line: REGISTRY_LINE }],
};
