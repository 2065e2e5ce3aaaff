// Front-door target `letta-archival`: Letta 0.16.8's archival memory (PyPI letta), one agent per user, in a Python
// process (store environment `letta`), Letta embedding through its own OpenAI client at a loopback bridge.
import { join } from 'node:path';
import { UnsupportedFeatureError } from '#core/errors.js';
import { startEmbedderBridge, type EmbedderBridge } from '../../../../backends/embedder-bridge.js';
import type { BackendSettings, MemoryBackend, MemoryRecord } from '../../../../backends/memory-backend.js';
import { refuseProvenance } from '../../../../backends/provenance.js';
import { createPythonMemoryProcess } from '../../../../backends/python/python-memory-process.js';
import { refuseMetadataFilter, unstoredMetadataWarnings } from '../../../../backends/write-metadata.js';

/** The letta release the `letta` store environment pins (backends/python/envs/letta.txt). */
export const LETTA_PIN = { name: 'letta', version: '0.16.8' } as const;

const ID = 'letta-archival';
const NO_METADATA =
  "Letta's insert_passage takes the text and plain string tags only: passages carry no writer metadata";
const NO_FILTER =
  "no metadata filter on search: Letta's archival search filters by plain string tags and dates, and passages carry no metadata";
const NOT_HERE = 'Letta archival memory has no validity fields to filter on and no provenance';

/** One result of Letta's archival search (`search_agent_archival_memory_async`) or passage listing. */
interface LettaPassage {
  id: string;
  content: string;
  timestamp?: string;
  tags?: string[];
}

const toRecord = (passage: LettaPassage): MemoryRecord => ({
  id: passage.id,
  text: passage.content,
  fields: { timestamp: passage.timestamp ?? null, tags: JSON.stringify(passage.tags ?? []) },
});

/**
 * Creates `letta-archival` (backends/python/store_adapters/letta_archival_memory.py): each namespace is a Letta user
 * with one agent; a write is `PassageManager.insert_passage(agent_state, text, actor)` (what the archival_memory_insert
 * tool calls), a read `AgentManager.search_agent_archival_memory_async(agent_id, actor, query, top_k)` (what the
 * archival_memory_search tool calls), ranked by pgvector over the vectors Letta requested itself. The agent's
 * EmbeddingConfig points at a loopback OpenAI-compatible bridge that answers with the run's embedder, so the row ranks
 * by the run's embedder (real or the lexical stand-in, and labelled so). Writer metadata is not stored (a recorded
 * warning); a metadata-filtered read is `n/a` (agmi's row: "n/a, no metadata filter on search"). The store is the
 * pgserver wheel's PostgreSQL 16.2 in the work directory.
 *
 * @example const backend = createLettaArchivalBackend({ embedder, extraction, runId: 'r1', workDir: '/tmp/r1' });
 */
export function createLettaArchivalBackend(settings: BackendSettings & { root?: string }): MemoryBackend {
  let bridge: EmbedderBridge | undefined;
  let python: ReturnType<typeof createPythonMemoryProcess> | undefined;
  const live = () => {
    if (!python) throw new UnsupportedFeatureError(ID, 'use before open', 'call open() first');
    return python;
  };
  return {
    id: ID,
    description: {
      summary: `letta ${LETTA_PIN.version} (PyPI) archival memory in a Python process on PostgreSQL 16.2 (pgserver), one agent per user; write PassageManager.insert_passage, read AgentManager.search_agent_archival_memory_async(top_k); Letta embeds through its OpenAI client at a loopback bridge to ${settings.embedder.id}`,
      modes: {
        direct: { supported: true },
        natural: { supported: false, reason: 'the archival insert is verbatim; an agent turn would need a model' },
      },
      exposure: { rule: 'lexical' },
      storeFilter: null,
      statusFields: [],
    },
    async open() {
      if (python) return;
      bridge = await startEmbedderBridge(settings.embedder);
      python = createPythonMemoryProcess({
        system: ID,
        adapter: 'letta_archival_memory',
        pin: LETTA_PIN,
        root: settings.root ?? join(import.meta.dirname, '..', '..', '..', '..'),
        env: 'letta',
        config: {
          embedding_endpoint: bridge.baseURL,
          embedding_model: bridge.model,
          dimensions: settings.embedder.dimensions,
        },
        workDir: join(settings.workDir, ID),
        timeoutMs: 300_000,
      });
      try {
        await python.open();
      } catch (error) {
        await bridge.close();
        bridge = undefined;
        python = undefined;
        throw error;
      }
    },
    async insert(request) {
      refuseProvenance(ID, request, NOT_HERE);
      const { writes } = request;
      if (writes.mode !== 'direct')
        throw new UnsupportedFeatureError(ID, 'natural mode', 'the archival insert is verbatim');
      if (writes.revoked.length > 0)
        throw new UnsupportedFeatureError(ID, 'revoked facts', 'archival passages have no validity fields');
      const steps = writes.current.map((text) => ({ insert: { text } }));
      const result = await live().request<{ ids: string[]; stored: number }>('insert', request.namespace, { steps });
      return {
        stored: result.stored,
        extractor: 'none',
        warnings: [...unstoredMetadataWarnings(request, NO_METADATA), ...live().takeNotes()],
      };
    },
    async search(request) {
      refuseProvenance(ID, request, NOT_HERE);
      refuseMetadataFilter(ID, request, NO_FILTER);
      if (request.filter !== undefined) throw new UnsupportedFeatureError(ID, 'filter', NOT_HERE);
      const found = await live().request<{ records: LettaPassage[] }>('search', request.namespace, {
        query: request.query,
        k: request.limit,
        options: {},
      });
      return { records: found.records.map(toRecord), warnings: live().takeNotes() };
    },
    async listRecords(namespace) {
      const { records } = await live().request<{ records: LettaPassage[] }>('list', namespace);
      return records.map((passage) => ({ record: toRecord(passage), revoked: false }));
    },
    async reset(namespace) {
      await live().reset(namespace);
    },
    async close() {
      try {
        await python?.close();
      } finally {
        await bridge?.close();
        python = undefined;
        bridge = undefined;
      }
    },
  };
}
