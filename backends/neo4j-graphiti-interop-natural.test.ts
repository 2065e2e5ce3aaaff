// Interop (c): graphiti-core 0.31.2 ingests ep0 (its own bulk save), stalebench ingests ep1 on top: no duplicate
// nodes, Graphiti's properties kept, only the invalidated edge changes, and graphiti-core still loads the whole graph.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { episodesFor } from '../pipeline/suites/grid/episodes.js';
import { loadScenarios } from '../scenarios/index.js';
import { createGraphitiBackend, groupId } from './graphiti-backend.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import type { MemoryBackend } from './memory-backend.js';
import { createNeo4jGraphStore, type Neo4jGraphStore } from './neo4j-graph-store.js';
import { createSimExtractionModel } from './sim-extraction-model.js';
import {
  embeddingTable,
  rawGroup,
  setupGraphitiInterop,
  stalebenchProperties,
  type InteropRead,
} from './test-support/graphiti-interop.js';
import type { ProvidedNeo4jServer } from './test-support/neo4j-global-setup.js';

const provided: ProvidedNeo4jServer | undefined = inject('neo4j');
const server = provided ? { uri: provided.uri, user: provided.user, password: provided.password } : undefined;
const interop = server ? await setupGraphitiInterop() : { skip: 'no Neo4j server (run pnpm run test:neo4j)' };
if ('skip' in interop) console.log(`[graphiti interop (c)] skipped: ${interop.skip}`);

const NOW = new Date('2026-09-01T12:00:00.000Z');
const RUN = 'interop_natural';
const embedder = createLexicalEmbedder();
const plain = (value: unknown): unknown =>
  value !== null && typeof value === 'object' && 'toString' in value && !Array.isArray(value) ? String(value) : value;
const snapshot = (properties: Record<string, unknown> | undefined) =>
  Object.fromEntries(Object.entries(properties ?? {}).map(([key, value]) => [key, plain(value)]));

describe.skipIf('skip' in interop)(
  'stalebench ingests on top of a graph graphiti-core wrote (issue #17, interop c)',
  () => {
    let store: Neo4jGraphStore;
    let backend: MemoryBackend;
    beforeAll(async () => {
      store = createNeo4jGraphStore(server!);
      backend = createGraphitiBackend({
        embedder,
        runId: RUN,
        workDir: '/tmp/unused',
        extraction: createSimExtractionModel(),
        store,
      });
      await backend.open();
    });
    afterAll(async () => {
      await backend?.close();
      await store?.close();
    });

    it("reuses Graphiti's entities, keeps every property Graphiti wrote, and retires v1 by setting its dates only", async () => {
      if ('skip' in interop) return;
      const retired: string[] = [];
      for (const scenario of await loadScenarios()) {
        const group = groupId(RUN, scenario.id);
        const [ep0, ep1] = episodesFor(scenario, NOW);
        // What add_episode saves for ep0 when its LLM extracts what the sim extractor does (DOC → SUBJECT, one edge per rule).
        const drafts = await createSimExtractionModel().extractEdges({
          episode: ep0!.text,
          referenceTime: ep0!.referenceTime,
          previousEpisodes: [],
        });
        const [doc = '', subject = ''] = [drafts[0]?.source, drafts[0]?.target];
        expect(drafts.every((draft) => draft.source === doc && draft.target === subject)).toBe(true);
        const write = {
          op: 'write_episode',
          group,
          now: new Date(NOW.getTime() - 90 * 86_400_000).toISOString(),
          episode: {
            name: ep0!.name,
            content: ep0!.text,
            source: 'text',
            source_description: 'policy feed',
            reference_time: ep0!.referenceTime.toISOString(),
          },
          nodes: [
            { key: 'doc', name: doc },
            { key: 'subject', name: subject },
          ],
          edges: drafts.map((draft, index) => ({
            key: `e${index}`,
            source: 'doc',
            target: 'subject',
            name: draft.relation,
            fact: draft.fact,
            valid_at: draft.validAt?.toISOString() ?? null,
            invalid_at: null,
          })),
        };
        const [written] = await interop.run({
          neo4j: server!,
          embeddings: await embeddingTable(embedder, [doc, subject, ...drafts.map((draft) => draft.fact)]),
          steps: [write],
        });
        expect(written).not.toHaveProperty('error');
        const before = await rawGroup(server!, group);

        await backend.insert({ namespace: scenario.id, now: NOW, writes: { mode: 'natural', episodes: [ep1!] } });
        const after = await rawGroup(server!, group);
        const entities = [...after.nodes.values()].filter((node) => node.labels.includes('Entity'));
        // No duplicates: still exactly Graphiti's two entities, under Graphiti's uuids.
        expect(entities.map((node) => node.properties.uuid).sort()).toEqual(
          [(written as Record<string, string>).doc, (written as Record<string, string>).subject].sort(),
        );
        // Graphiti's nodes unchanged; its edges unchanged except the dates of the edges ep1 retired.
        for (const [uuid, node] of before.nodes)
          expect({ uuid, properties: snapshot(after.nodes.get(uuid)?.properties) }).toEqual({
            uuid,
            properties: snapshot(node.properties),
          });
        for (const [uuid, relationship] of before.relationships) {
          const now = snapshot(after.relationships.get(uuid)?.properties);
          const was = snapshot(relationship.properties);
          const changed = Object.keys({ ...was, ...now })
            .filter((key) => JSON.stringify(was[key]) !== JSON.stringify(now[key]))
            .sort();
          expect({ uuid, changed }).toEqual({
            uuid,
            changed: changed.length === 0 ? [] : ['expired_at', 'invalid_at'],
          });
          if (changed.length > 0) retired.push(`${scenario.id}: ${String(was.fact)}`);
          expect(Object.keys(now)).toEqual(expect.arrayContaining(Object.keys(was))); // reference_time, source_node_uuid, ... kept
        }
        // ep1's MENTIONS point at Graphiti's entities, and graphiti-core loads the whole graph again.
        const [read] = await interop.run({ neo4j: server!, embeddings: {}, steps: [{ op: 'read', group }] });
        expect(read).not.toHaveProperty('error');
        const loaded = read as InteropRead;
        expect(loaded.episodes.map((episode) => episode.name).sort()).toEqual([ep0!.name, ep1!.name].sort());
        expect(new Set(loaded.mentions.map((mention) => mention.target_node_uuid))).toEqual(
          new Set(entities.map((node) => String(node.properties.uuid))),
        );
        expect(loaded.nodes).toHaveLength(2);
        await backend.reset(scenario.id);
      }
      console.log(
        `[graphiti interop (c)] ${retired.length} Graphiti-written edges retired by stalebench's ep1: ${retired.join(' | ')}`,
      );
      expect(retired.length).toBeGreaterThan(0);
      expect(await stalebenchProperties(server!)).toEqual([]);
    }, 300_000);
  },
);
