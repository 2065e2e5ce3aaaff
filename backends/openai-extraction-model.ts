// Extraction model over any OpenAI-compatible chat-completions endpoint, with our own prompts and zod-checked JSON.
import OpenAI, { APIConnectionError, APIError } from 'openai';
import { z } from 'zod';
import { BackendUnavailableError, EvalError, ProviderError } from '#core/errors.js';
import { DEFAULT_RETRY_POLICY, RetriesExhaustedError, withRetries, type RetryPolicy } from '#core/retry-policy.js';
import type { ExistingMemory, ExtractionModel } from './extraction-model.js';
import { classifyOpenAIFailure } from './openai-retry.js';

/** Settings of `createOpenAIExtractionModel`. */
export interface OpenAIExtractionModelSettings {
  /** The model alias sent as `model`, unchanged. */
  model: 'gpt-5-nano' | 'gpt-4o-mini' | (string & {});
  /** API base URL including `/v1`; the SDK default when absent. */
  baseURL?: string;
  /** API key; the SDK reads `OPENAI_API_KEY` when absent. Never logged or put in errors. */
  apiKey?: string;
  /** A ready client (tests, shared pools); `baseURL` and `apiKey` are then ignored. */
  client?: OpenAI;
  /** Ask for `response_format: {type: 'json_object'}` (default true); turn off for servers that reject it. */
  jsonMode?: boolean;
  /** The shared retry ladder (pipeline/core/retry-policy.ts); the SDK's own retries are off. */
  retry?: RetryPolicy;
  /** Injected for tests: the wait between attempts. */
  sleep?: (ms: number) => Promise<void>;
}

/** A reply that is not the JSON an operation asked for. Carries the operation, the raw reply and every problem. */
export class ExtractionResponseError extends EvalError {
  readonly model: string;
  readonly operation: string;
  readonly reply: string;
  constructor(model: string, operation: string, reply: string, problem: string) {
    super(
      'extraction-response',
      `${model} ${operation}: unusable reply (${problem}); reply began: ${JSON.stringify(reply.slice(0, 200))}`,
    );
    this.model = model;
    this.operation = operation;
    this.reply = reply;
  }
}

const isoDate = z.string().refine((value) => !Number.isNaN(Date.parse(value)), 'not an ISO-8601 date');
const idList = z.array(z.union([z.string(), z.number().int()]).transform(String));
const SCHEMAS = {
  extractFacts: z.object({ facts: z.array(z.string()) }),
  extractEdges: z.object({
    edges: z.array(
      z.object({
        source_entity: z.string().min(1),
        target_entity: z.string().min(1),
        relation_type: z.string().min(1),
        fact: z.string().min(1),
        valid_at: isoDate.nullable().default(null),
        invalid_at: isoDate.nullable().default(null),
      }),
    ),
  }),
  resolveEdge: z.object({ duplicate_ids: idList, contradicted_ids: idList }),
  consolidate: z.object({
    updates: z.array(z.object({ id: z.union([z.string(), z.number()]).transform(String), content: z.string().min(1) })),
    inserts: z.array(z.string()),
  }),
};
type Operation = keyof typeof SCHEMAS;

const JSON_ONLY = 'Answer with one JSON object and nothing else.';
const SYSTEM: Record<Operation, string> = {
  extractFacts: `You turn a text into a list of short, self-contained factual statements. Keep every name, number and condition; do not add anything the text does not say. ${JSON_ONLY} Shape: {"facts": ["..."]}.`,
  extractEdges: [
    'You build a knowledge graph. From the CURRENT EPISODE, list each relationship that links two different named entities',
    '(a document, a system, a team, a person, a product). Each relationship has: the two entity names exactly as the episode names',
    'them, a relation type in SCREAMING_SNAKE_CASE, and the fact as one sentence that keeps every detail of the source.',
    'PREVIOUS EPISODES are context only; never extract from them. Dates: valid_at is when the fact became true, invalid_at when it',
    'stopped; both ISO-8601 UTC with Z. A fact stated as currently holding is valid from the REFERENCE TIME. Resolve relative dates',
    `against the REFERENCE TIME. Use null where the episode gives no time. ${JSON_ONLY}`,
    'Shape: {"edges": [{"source_entity": "...", "target_entity": "...", "relation_type": "...", "fact": "...", "valid_at": "..." | null, "invalid_at": "..." | null}]}.',
  ].join(' '),
  resolveEdge: [
    'You compare a NEW FACT with stored facts, each given with an id. duplicate_ids: ids from SAME-ENTITY FACTS that state the same',
    'information as the new fact (a different number, date, scope or condition is NOT a duplicate). contradicted_ids: ids from EITHER',
    'list that cannot be true together with the new fact, for example an older rule the new fact replaces. A fact about something',
    `else is neither. ${JSON_ONLY} Shape: {"duplicate_ids": ["..."], "contradicted_ids": ["..."]}.`,
  ].join(' '),
  consolidate: [
    'You maintain a memory store. Given the stored MEMORIES (with ids) and a NEW MESSAGE, decide how the store changes. When the',
    'message changes, corrects or supersedes a memory, rewrite that memory in place (updates, with its id and the new full text).',
    'Information not covered by any memory becomes a new memory (inserts). Memories are never deleted; leave unaffected memories',
    `out. ${JSON_ONLY} Shape: {"updates": [{"id": "...", "content": "..."}], "inserts": ["..."]}.`,
  ].join(' '),
};

const listOf = (memories: readonly ExistingMemory[]): string =>
  memories.length === 0
    ? '(none)'
    : memories.map((memory) => `- id ${JSON.stringify(memory.id)}: ${memory.content}`).join('\n');

/**
 * Creates the `openai:<model>` extraction model. Every operation is one chat completion at temperature 0 (the
 * paper's langmem extractor ran at 0), retried on the shared ladder (429, 5xx, timeouts; an unreachable server once). A reply that is not the asked-for JSON
 * raises `ExtractionResponseError`; a failed request raises `ProviderError` or `BackendUnavailableError`.
 *
 * @example
 * const extraction = createOpenAIExtractionModel({ model: 'gpt-5-nano', baseURL: process.env.OPENAI_BASE_URL, apiKey });
 * const edges = await extraction.extractEdges({ episode, referenceTime: new Date(), previousEpisodes: [] });
 */
export function createOpenAIExtractionModel(settings: OpenAIExtractionModelSettings): ExtractionModel {
  const id = `openai:${settings.model}`;
  let client = settings.client;

  const openClient = (): OpenAI =>
    (client ??= new OpenAI({ baseURL: settings.baseURL, apiKey: settings.apiKey, maxRetries: 0 }));

  async function ask<O extends Operation>(operation: O, user: string): Promise<z.output<(typeof SCHEMAS)[O]>> {
    const ready = openClient();
    const body = {
      model: settings.model,
      temperature: 0,
      messages: [
        { role: 'system' as const, content: SYSTEM[operation] },
        { role: 'user' as const, content: user },
      ],
      ...(settings.jsonMode === false ? {} : { response_format: { type: 'json_object' as const } }),
    };
    let reply: string;
    try {
      const completion = await withRetries(() => ready.chat.completions.create(body), {
        policy: settings.retry ?? DEFAULT_RETRY_POLICY,
        classify: classifyOpenAIFailure,
        ...(settings.sleep ? { sleep: settings.sleep } : {}),
      });
      reply = completion.choices[0]?.message.content ?? '';
    } catch (failure) {
      const attempts = failure instanceof RetriesExhaustedError ? failure.attempts : 1;
      const error = failure instanceof RetriesExhaustedError ? failure.cause : failure;
      if (error instanceof APIConnectionError)
        throw new BackendUnavailableError(id, ready.baseURL, 'start the model server or fix the base URL', {
          cause: error,
        });
      if (error instanceof APIError)
        throw new ProviderError(`${id} ${operation}: ${error.message}`, error.status, attempts, { cause: error });
      throw error;
    }
    let parsed: unknown;
    try {
      // Tolerate a Markdown code fence around the object; anything else is an error, never an empty answer.
      parsed = JSON.parse(reply.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
    } catch {
      throw new ExtractionResponseError(id, operation, reply, reply.trim() === '' ? 'empty reply' : 'not JSON');
    }
    const result = SCHEMAS[operation].safeParse(parsed);
    if (!result.success)
      throw new ExtractionResponseError(
        id,
        operation,
        reply,
        z
          .prettifyError(result.error)
          .replace(/\n\s*→ at /g, ' at ')
          .replace(/\n/g, '; '),
      );
    return result.data as z.output<(typeof SCHEMAS)[O]>;
  }

  const date = (value: string | null): Date | null => (value === null ? null : new Date(value));
  return {
    id,
    simulated: false,
    chatEndpoint: () => ({ baseURL: settings.baseURL ?? null, model: settings.model, apiKey: settings.apiKey }),
    connection() {
      // The client's own resolution (settings, else OPENAI_BASE_URL / OPENAI_API_KEY): where its calls would go.
      const ready = openClient();
      return { baseURL: ready.baseURL, model: settings.model, apiKey: ready.apiKey };
    },
    async extractFacts(text) {
      return (await ask('extractFacts', `TEXT:\n${text}`)).facts;
    },
    async extractEdges({ episode, referenceTime, previousEpisodes }) {
      const previous =
        previousEpisodes.length === 0
          ? '(none)'
          : previousEpisodes.map((text, index) => `[${index}] ${text}`).join('\n');
      const user = `PREVIOUS EPISODES:\n${previous}\n\nCURRENT EPISODE:\n${episode}\n\nREFERENCE TIME: ${referenceTime.toISOString()}`;
      const { edges } = await ask('extractEdges', user);
      return edges.map((edge) => ({
        source: edge.source_entity,
        target: edge.target_entity,
        relation: edge.relation_type,
        fact: edge.fact,
        validAt: date(edge.valid_at),
        invalidAt: date(edge.invalid_at),
      }));
    },
    async resolveEdge({ fact, duplicateCandidates, invalidationCandidates }) {
      const user = `SAME-ENTITY FACTS:\n${listOf(duplicateCandidates)}\n\nOTHER FACTS:\n${listOf(invalidationCandidates)}\n\nNEW FACT:\n${fact}`;
      const answer = await ask('resolveEdge', user);
      return { duplicates: answer.duplicate_ids, contradicted: answer.contradicted_ids };
    },
    async consolidate({ existing, message }) {
      return ask('consolidate', `MEMORIES:\n${listOf(existing)}\n\nNEW MESSAGE:\n${message}`);
    },
  };
}
