// langmem's memory store manager (langmem 0.0.30 @ b5dbe4aa, knowledge/extraction.py MemoryStoreManager.invoke)
// with deletes off: search the namespace, let the extraction model consolidate, write patches and inserts.
import { isDeepStrictEqual } from 'node:util';
import { EvalError } from '#core/errors.js';
import type { ExistingMemory, ExtractionModel } from './extraction-model.js';
import type { LanggraphStore, PutOperation, SearchItem } from './langmem-store.js';

/** What one manager invocation wrote. */
export interface ManagerOutcome {
  /** Existing memories rewritten in place (same key, new content). */
  updated: string[];
  /** Keys of new memories. */
  inserted: string[];
}

/** Arguments of one `invoke({'messages': [{'role': 'user', 'content': message}]})`. */
export interface ManagerInvocation {
  store: LanggraphStore;
  namespace: readonly string[];
  extraction: ExtractionModel;
  /** The single user message (one natural-mode episode). */
  message: string;
  /** Store time of the writes. */
  at: Date;
  /** Key for the n-th new memory of this invocation (langmem uses uuid4; callers make it deterministic). */
  newKey: (index: number) => string;
  /** Memories offered to the model (`query_limit`, default 5). */
  queryLimit?: number;
}

/**
 * Runs the manager once. Without a query model, langmem searches with `get_dialated_windows(messages,
 * query_limit // 4)`, which for one message is that message's `pretty_repr()`; hits are sorted by score and cut
 * to `query_limit`. The model sees each hit's content and returns patches (by id) and new memories; langmem
 * writes `{"kind", "content": <model dump>}` back, so a patched item loses any other value field. A patch
 * whose content did not change is not written; a patch naming an unknown id becomes a new memory under that id.
 */
export async function invokeMemoryManager(invocation: ManagerInvocation): Promise<ManagerOutcome> {
  const { store, namespace, extraction, message, at, newKey } = invocation;
  const queryLimit = invocation.queryLimit ?? 5;
  const hits = (await store.search(namespace, { query: humanMessageRepr(message), limit: queryLimit })).slice(
    0,
    queryLimit,
  );
  const byKey = new Map(hits.map((hit) => [hit.key, hit]));
  const existing: ExistingMemory[] = hits.map((hit) => ({ id: hit.key, content: memoryText(hit) }));
  const { updates, inserts } = await extraction.consolidate({ existing, message });

  const writes = new Map<string, PutOperation>();
  const outcome: ManagerOutcome = { updated: [], inserted: [] };
  for (const update of updates) {
    const hit = byKey.get(update.id);
    const value = { kind: hit ? kindOf(hit) : 'Memory', content: { content: update.content } };
    if (hit && isDeepStrictEqual({ kind: hit.value.kind, content: hit.value.content }, value)) continue;
    writes.set(update.id, { namespace, key: update.id, value });
  }
  inserts.forEach((content, index) => {
    const key = newKey(index);
    writes.set(key, { namespace, key, value: { kind: 'Memory', content: { content } } });
  });
  for (const key of writes.keys()) (byKey.has(key) ? outcome.updated : outcome.inserted).push(key);
  await store.put([...writes.values()], at);
  return outcome;
}

/** langchain-core `HumanMessage.pretty_repr()`: an 80-column `=` title bar, a blank line, the content. */
export function humanMessageRepr(content: string): string {
  const title = ' Human Message ';
  const side = '='.repeat(Math.floor((80 - title.length) / 2));
  return `${side}${title}${side}${title.length % 2 === 1 ? '=' : ''}\n\n${content}`;
}

// langmem reads `item.value["kind"]` and `item.value["content"]` of every hit: a value without them (the
// paper's direct-mode `{content: text}` puts have no kind) raises KeyError there, so it fails here too.
function kindOf(hit: SearchItem): string {
  const { kind } = hit.value;
  if (typeof kind !== 'string') {
    throw new EvalError(
      'langmem-manager-value',
      `langmem manager: item ${hit.key} has no "kind" (langmem raises KeyError on such items)`,
    );
  }
  return kind;
}

function memoryText(hit: SearchItem): string {
  kindOf(hit);
  const { content } = hit.value;
  if (typeof content === 'string') return content;
  const inner = (content as { content?: unknown } | null)?.content;
  if (typeof inner === 'string') return inner;
  return JSON.stringify(content);
}
