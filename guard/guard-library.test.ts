import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createGraphitiBackend } from '../backends/graphiti-backend.js';
import { createLexicalEmbedder } from '../backends/lexical-embedder.js';
import { mem0Paths, openMem0Client, type Mem0Client } from '../backends/mem0-client.js';
import { createSimExtractionModel } from '../backends/sim-extraction-model.js';
import { InvalidInputError } from '#core/errors.js';

// The paper's MFA pair (stale-retrieval.md §4) and a distractor.
const V1 = 'MFA may be waived for admin access when the requester is in a hurry. Approved shortcut.';
const V2 = 'Admin access always requires MFA; waivers are never permitted.';
const OTHER = 'VPN is required for remote access.';
const QUERY = 'Was there ever an approved MFA-waiver procedure for admin access?';
const DAY = 86_400_000;
const workDirs: string[] = [];
afterAll(() => {
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
});

describe('stalebench/guard as a package export', () => {
  it('resolves through package.json "exports" to the library', async () => {
    const library = await import('stalebench/guard');
    expect(Object.keys(library).sort()).toEqual(['guardBackendSearch', 'guardMem0Search', 'guardRecords']);
  });
});

describe('guardMem0Search on the real mem0ai library', () => {
  const clients: Mem0Client[] = [];
  afterAll(() => {
    for (const client of clients) client.close();
  });
  const open = async () => {
    const workDir = realpathSync(mkdtempSync(join(tmpdir(), 'stalebench-guard-mem0-')));
    workDirs.push(workDir);
    // No LLM call is made: every add below is infer: false. openMem0Client sets MEM0_TELEMETRY=false and MEM0_DIR.
    const client = await openMem0Client({
      paths: mem0Paths(workDir),
      embedder: createLexicalEmbedder(),
      llm: { provider: 'openai', model: 'unused', baseURL: 'http://127.0.0.1:9/v1' },
    });
    clients.push(client);
    expect(process.env.MEM0_TELEMETRY).toBe('false');
    expect(process.env.MEM0_DIR).toBe(join(workDir, 'mem0', 'home'));
    return client.memory;
  };

  it("withholds the memory mem0 itself marked expired when the read shows expired ones, and returns mem0's shape", async () => {
    const memory = await open();
    const { guardMem0Search } = await import('stalebench/guard');
    const yesterday = new Date(Date.now() - DAY).toISOString().slice(0, 10);
    await memory.add(V1, { userId: 'alice', infer: false, expirationDate: yesterday });
    await memory.add(V2, { userId: 'alice', infer: false });
    const plain = await memory.search(QUERY, { filters: { user_id: 'alice' }, topK: 10, showExpired: true });
    expect(plain.results.map((item) => item.memory).sort()).toEqual([V1, V2].sort());
    const search = guardMem0Search(memory);
    const guarded = await search(QUERY, { filters: { user_id: 'alice' }, topK: 10, showExpired: true });
    expect(guarded.results.map((item) => item.memory)).toEqual([V2]);
    expect(guarded.results[0]).toEqual(plain.results.find((item) => item.memory === V2));
    expect(guarded.withheld).toEqual([
      expect.objectContaining({ text: V1, reason: 'backend marked expiration_date', stage: 'explicit' }),
    ]);
    expect(guarded.notes.at(-1)).toMatch(/^1 of 2 retrieved facts withheld/);
  });

  it('with guard-v2 withholds the older of two contradicting memories that carry no status at all', async () => {
    const memory = await open();
    const { guardMem0Search } = await import('stalebench/guard');
    // mem0 stamps createdAt itself: on vitest's clock V1 is a second older than V2 (no sleep for the clock to move).
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      await memory.add(V1, { userId: 'bob', infer: false });
      vi.setSystemTime(Date.now() + 1000);
      await memory.add(V2, { userId: 'bob', infer: false });
      await memory.add(OTHER, { userId: 'bob', infer: false });
    } finally {
      vi.useRealTimers();
    }
    const reference = await guardMem0Search(memory)(QUERY, { filters: { user_id: 'bob' }, topK: 10 });
    expect(reference.withheld).toEqual([]); // the reference's conflict stage misses this pair (spec §10.10)
    const guarded = await guardMem0Search(memory, { guard: 'guard-v2' })(QUERY, {
      filters: { user_id: 'bob' },
      topK: 10,
    });
    expect(guarded.results.map((item) => item.memory).sort()).toEqual([OTHER, V2].sort());
    expect(guarded.withheld).toEqual([expect.objectContaining({ text: V1, stage: 'conflict', supersededBy: V2 })]);
  });
});

describe('guardBackendSearch on our graphiti search', () => {
  it('withholds the expired edge, passes the warnings through and keeps the ranking', async () => {
    const { guardBackendSearch } = await import('stalebench/guard');
    const backend = createGraphitiBackend({
      embedder: createLexicalEmbedder(),
      runId: 'guard-library',
      workDir: '/tmp/unused',
      extraction: createSimExtractionModel(),
    });
    await backend.open();
    const now = new Date();
    await backend.insert({ namespace: 'ns', now, writes: { mode: 'direct', revoked: [V1], current: [V2, OTHER] } });
    const request = { namespace: 'ns', query: QUERY, limit: 10 };
    const plain = await backend.search(request);
    const guarded = await guardBackendSearch((r) => backend.search(r), { guard: 'guard' })(request);
    expect(guarded.records).toEqual(plain.records.filter((record) => record.text !== V1));
    expect(guarded.warnings).toEqual(plain.warnings);
    expect(guarded.withheld.map((w) => [w.text, w.reason])).toEqual([[V1, 'backend marked expired_at']]);
    await backend.close();
  });

  it('refuses an unknown guard or a bad setting with one error naming the field', async () => {
    const { guardRecords } = await import('stalebench/guard');
    await expect(guardRecords([V1], { guard: 'guard-v3' as never })).rejects.toThrow(
      /guard: expected one of guard, guard-v2/,
    );
    await expect(guardRecords([V1], { config: { maxWithheldRatio: 'most' } })).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    await expect(guardRecords([V1], { embedder: createLexicalEmbedder() })).rejects.toThrow(
      /embedder: only guard-v2 uses an embedder/,
    );
  });
});
