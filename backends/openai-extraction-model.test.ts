import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { BackendUnavailableError, ProviderError } from '#core/errors.js';
import {
  startOpenAICompatibleServer,
  type ScriptedReply,
  type TestServer,
} from '../pipeline/test-support/openai-compatible-server.js';
import { createOpenAIExtractionModel, ExtractionResponseError } from './openai-extraction-model.js';

const REFERENCE = new Date('2026-09-01T12:00:00.000Z');
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function model(reply: (index: number) => ScriptedReply, jsonMode?: boolean) {
  server = await startOpenAICompatibleServer((_request, index) => reply(index));
  const extraction = createOpenAIExtractionModel({
    model: 'extractor-test',
    baseURL: server.baseURL,
    apiKey: 'test-key',
    ...(jsonMode === undefined ? {} : { jsonMode }),
  });
  return { extraction, requests: server.requests };
}
const json = (value: unknown): ScriptedReply => ({ content: JSON.stringify(value) });

describe('openai extraction model', () => {
  it('extracts edges at temperature 0 in JSON mode, with the reference time and previous episodes in the prompt', async () => {
    const { extraction, requests } = await model(() =>
      json({
        edges: [
          {
            source_entity: 'Standard A',
            target_entity: 'the Pipeline',
            relation_type: 'REQUIRES',
            fact: 'Standard A requires two reviewers for the Pipeline.',
            valid_at: '2026-09-01T12:00:00Z',
            invalid_at: null,
          },
          {
            source_entity: 'Standard A',
            target_entity: 'the Pipeline',
            relation_type: 'ALLOWED',
            fact: 'One reviewer was allowed.',
            valid_at: '2024-01-01T00:00:00Z',
            invalid_at: '2026-09-01T12:00:00Z',
          },
        ],
      }),
    );
    expect(extraction).toMatchObject({ id: 'openai:extractor-test', simulated: false });
    const edges = await extraction.extractEdges({
      episode: 'Standard A has been revised.',
      referenceTime: REFERENCE,
      previousEpisodes: ['Standard A, issued in 2024.'],
    });
    expect(edges).toEqual([
      {
        source: 'Standard A',
        target: 'the Pipeline',
        relation: 'REQUIRES',
        fact: 'Standard A requires two reviewers for the Pipeline.',
        validAt: REFERENCE,
        invalidAt: null,
      },
      {
        source: 'Standard A',
        target: 'the Pipeline',
        relation: 'ALLOWED',
        fact: 'One reviewer was allowed.',
        validAt: new Date('2024-01-01T00:00:00Z'),
        invalidAt: REFERENCE,
      },
    ]);
    const [request] = requests;
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer test-key');
    expect(request?.body).toMatchObject({
      model: 'extractor-test',
      temperature: 0,
      response_format: { type: 'json_object' },
    });
    const [system, user] = request?.body.messages ?? [];
    expect(system?.role).toBe('system');
    expect(system?.content).toContain('valid from the REFERENCE TIME');
    expect(user?.content).toBe(
      'PREVIOUS EPISODES:\n[0] Standard A, issued in 2024.\n\nCURRENT EPISODE:\nStandard A has been revised.\n\nREFERENCE TIME: 2026-09-01T12:00:00.000Z',
    );
  });

  it('resolves an edge against both candidate lists and returns ids as strings', async () => {
    const { extraction, requests } = await model(() => json({ duplicate_ids: [], contradicted_ids: [0, '2'] }));
    const answer = await extraction.resolveEdge({
      fact: 'Two reviewers are required.',
      duplicateCandidates: [
        { id: '0', content: 'One reviewer suffices.' },
        { id: '1', content: 'Reviews are logged.' },
      ],
      invalidationCandidates: [{ id: '2', content: 'Single approval is enough.' }],
    });
    expect(answer).toEqual({ duplicates: [], contradicted: ['0', '2'] });
    expect(requests[0]?.body.messages?.[1]?.content).toBe(
      'SAME-ENTITY FACTS:\n- id "0": One reviewer suffices.\n- id "1": Reviews are logged.\n\nOTHER FACTS:\n- id "2": Single approval is enough.\n\nNEW FACT:\nTwo reviewers are required.',
    );
    expect(requests[0]?.body.messages?.[0]?.content).toContain('EITHER');
  });

  it('extracts facts and consolidates without deletes; tolerates a code fence; jsonMode can be turned off', async () => {
    const replies: ScriptedReply[] = [
      { content: '```json\n{"facts": ["MFA is required."]}\n```' },
      json({ updates: [{ id: 'm1', content: 'MFA is always required.' }], inserts: ['VPN is required.'] }),
    ];
    const { extraction, requests } = await model((index) => replies[index] ?? json({}), false);
    expect(await extraction.extractFacts('MFA is required.')).toEqual(['MFA is required.']);
    expect(
      await extraction.consolidate({
        existing: [{ id: 'm1', content: 'MFA may be waived.' }],
        message: 'MFA is always required; VPN too.',
      }),
    ).toEqual({
      updates: [{ id: 'm1', content: 'MFA is always required.' }],
      inserts: ['VPN is required.'],
    });
    expect(requests[0]?.body).not.toHaveProperty('response_format');
    expect(requests[1]?.body.messages?.[0]?.content).toContain('never deleted');
    expect(requests[1]?.body.messages?.[1]?.content).toBe(
      'MEMORIES:\n- id "m1": MFA may be waived.\n\nNEW MESSAGE:\nMFA is always required; VPN too.',
    );
  });

  it('raises ExtractionResponseError on prose, empty or schema-violating replies, never an empty answer', async () => {
    const replies: ScriptedReply[] = [
      { content: 'I found two edges.' },
      { content: '' },
      json({ edges: [{ source_entity: 'A', fact: 'x', valid_at: 'last week' }] }),
    ];
    const { extraction } = await model((index) => replies[index] ?? json({}));
    const input = { episode: 'e', referenceTime: REFERENCE, previousEpisodes: [] };
    await expect(extraction.extractEdges(input)).rejects.toThrow(
      /extractEdges: unusable reply \(not JSON\); reply began: "I found two edges."/,
    );
    await expect(extraction.extractEdges(input)).rejects.toThrow(/empty reply/);
    const error = await extraction.extractEdges(input).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExtractionResponseError);
    expect((error as Error).message).toMatch(/edges\[0\]\.target_entity/);
    expect((error as Error).message).toMatch(/edges\[0\]\.valid_at/);
  });

  it('retries on the shared ladder: 429 and 5xx up to maxAttempts (Retry-After honoured), a 400 never; an injected client is used as is', async () => {
    const slept: number[] = [];
    const retry = { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 5_000, jitterMs: 0 };
    server = await startOpenAICompatibleServer((_request, index) =>
      index === 0
        ? { status: 429, error: { message: 'slow down' }, headers: { 'retry-after-ms': '1234' } }
        : index === 1
          ? json({ facts: ['a'] })
          : index < 5
            ? { status: 503, error: { message: 'boom' } }
            : { status: 400, error: { message: 'bad request' } },
    );
    const settings = {
      model: 'extractor-test',
      baseURL: server.baseURL,
      apiKey: 'test-key',
      retry,
      sleep: async (ms: number) => void slept.push(ms),
    };
    // A 429 then an answer: two requests, the wait the server asked for.
    expect(await createOpenAIExtractionModel(settings).extractFacts('x')).toEqual(['a']);
    expect(slept).toEqual([1234]);
    // 503 on every attempt: maxAttempts requests, then ProviderError with the attempts it took.
    const error = await createOpenAIExtractionModel(settings)
      .extractFacts('x')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 503, attempts: 3 });
    expect(server.requests).toHaveLength(5);
    // A 400 is final: one request; an injected client (its own retries off) goes up the same ladder.
    const injected = createOpenAIExtractionModel({
      model: 'other',
      retry,
      client: new OpenAI({ baseURL: server.baseURL, apiKey: 'k', maxRetries: 0 }),
    });
    await expect(injected.extractFacts('x')).rejects.toMatchObject({ status: 400, attempts: 1 });
    expect(server.requests).toHaveLength(6);
  });

  it('retries an unreachable endpoint once, quickly, then raises BackendUnavailableError', async () => {
    server = await startOpenAICompatibleServer(() => json({ facts: [] }));
    const { baseURL } = server;
    await server.close();
    server = undefined;
    const slept: number[] = [];
    const extraction = createOpenAIExtractionModel({
      model: 'm',
      baseURL,
      apiKey: 'k',
      sleep: async (ms) => void slept.push(ms),
    });
    await expect(extraction.extractFacts('x')).rejects.toBeInstanceOf(BackendUnavailableError);
    expect(slept).toEqual([1000]);
  });
});
