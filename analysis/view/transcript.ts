// One unit's transcript page: the exact messages, the read in rank order (revoked and withheld marked), the reply, the
// parsed action and why, each defence's verdict, cost and latency.
import type { MemoryRecord } from '../../backends/memory-backend.js';
import {
  costOf,
  messagesOf,
  parseActionStrict,
  priceOf,
  sha256,
  type PriceTable,
  type ProbeRecord,
  type UnitRecord,
} from '../../pipeline/index.js';
import type { Scenario } from '../../scenarios/scenario.js';
import type { ExposureRuleOf } from '../rescore-inputs.js';
import { escapeHtml, frame, verifyWarning } from './pages.js';
import type { RunEntry } from './run-catalog.js';
import { outcomeOf } from './unit-index.js';
import { findRunKind } from '../run-kinds/index.js';

/** What a grid transcript is rendered from. */
export interface GridTranscriptInput {
  entry: RunEntry;
  record: UnitRecord;
  /** The 1-based line of the record in records.jsonl. */
  line: number;
  /** The unit's scenario, or why it is not available (its sha256 differs from the manifest's, ...). */
  scenario: Scenario | { error: string };
  probe: ProbeRecord | undefined;
  rule: ExposureRuleOf | undefined;
  prices: PriceTable;
  /** The batch prices (data/prices.json's batch tier): a reply a Batch API job answered (`--batch`) costs these. */
  batchPrices?: PriceTable;
}

const pre = (text: string, id?: string) => `<pre${id ? ` id="${id}"` : ''}>${escapeHtml(text)}</pre>`;
const json = (value: unknown) => JSON.stringify(value, null, 2);

/** Why a stored label says revoked: the status field and its value, or the lexical rule. */
function revokedBecause(record: MemoryRecord, rule: ExposureRuleOf | undefined): string {
  if (rule?.rule === 'status')
    return `revoked by field ${rule.field} = ${JSON.stringify(record.fields[rule.field] ?? null)}`;
  if (rule?.rule === 'lexical') return "revoked by the lexical rule (the text asserts v1's content words, §7.2)";
  if (rule?.rule === 'oracle') return "revoked by the store's own revocation state (oracle rule)";
  return 'revoked (stored label)';
}

/** The parser's reason in words (paper parser, stale-retrieval.md §6.3). */
function parserReason(text: string, parsed: string | null, actions: readonly string[]): string {
  if (parsed === null)
    return text.trim() === ''
      ? 'empty reply: a parse failure (in n, never unsafe)'
      : 'no allowed action in the JSON "action" field nor in the reply text: a parse failure (in n, never unsafe)';
  return parseActionStrict(text, actions) === parsed
    ? `the JSON "action" field is exactly ${parsed}`
    : `${parsed} found by the paper parser (an "action" field containing it, else its earliest mention in the text)`;
}

/** The read the unit's arm used, in rank order, each with its label and what became of it. */
function readTable(input: GridTranscriptInput): string {
  const { record, probe, rule } = input;
  const filtered = record.context.read === 'filtered' && probe?.filteredRead != null;
  const read = (filtered ? probe?.filteredRead : probe?.defaultRead) ?? record.context.records;
  const labels = (filtered ? probe?.filteredLabels : probe?.defaultLabels) ?? record.context.labels;
  const traces = [
    ...(record.context.guard ? [['stale-retrieval guard', record.context.guard] as const] : []),
    ...Object.entries(record.context.screens ?? {}),
  ];
  const withheld = new Map<string, string>();
  for (const [defence, trace] of traces)
    for (const w of trace.withheld) withheld.set(w.text, `withheld by ${defence}: ${w.reason} (stage ${w.stage})`);
  const handed = new Set(record.context.records.map((r) => `${r.id}\u0000${r.text}`));
  const rows = read.map((r, i) => {
    const revoked = labels[i] === true;
    const fate = handed.has(`${r.id}\u0000${r.text}`)
      ? 'handed to the model'
      : (withheld.get(r.text) ?? 'not handed to the model');
    return `<tr class="read-row${revoked ? ' revoked' : ''}${fate.startsWith('withheld') ? ' withheld' : ''}"><td>${i + 1}</td><td>${escapeHtml(r.text)}</td><td>${revoked ? `<span class="revoked-tag">REVOKED</span> ${escapeHtml(revokedBecause(r, rule))}` : 'current'}</td><td>${escapeHtml(fate)}</td><td>${pre(json({ id: r.id, ...r.fields }))}</td></tr>`;
  });
  return `<table id="read-table"><thead><tr><th>rank</th><th>text</th><th>label</th><th>defences</th><th>metadata</th></tr></thead><tbody>${rows.join('')}</tbody></table>
<p class="notes">${filtered ? 'The filtered read (store filter)' : 'The default read'}${probe ? ` of probe ${escapeHtml(`${probe.system}/${probe.mode}/${probe.scenario}`)}` : ' (no probe found: the stored context)'}; the context held a revoked record: ${record.context.exposed ? 'yes' : 'no'}.</p>`;
}

/** The exact messages, rebuilt from the stored context (`messagesOf`), with their hash checked against the record's. */
function messagesSection(input: GridTranscriptInput): string {
  const { record, scenario } = input;
  if ('error' in scenario)
    return `<p class="warning">The messages cannot be rebuilt: ${escapeHtml(scenario.error)}</p>`;
  const messages = messagesOf(record, scenario);
  const same = sha256(JSON.stringify(messages)) === record.promptSha256;
  const check = same
    ? `<p class="notes" id="prompt-check">sha256 of these messages = the stored promptSha256 ${escapeHtml(record.promptSha256.slice(0, 16))}…: they are the ones sent.</p>`
    : `<p class="warning" id="prompt-check">These messages, rebuilt from the stored context, do NOT hash to the stored promptSha256: the run's prompts are not this code's (pnpm rescore --check names the difference).</p>`;
  return `${messages.map((m, i) => `<h3>${escapeHtml(m.role)}</h3>${pre(m.content, `message-${i}`)}`).join('')}${check}`;
}

/** Cost and latency of the unit's call. */
function costLine(input: GridTranscriptInput): string {
  const { record, prices } = input;
  const batched = record.reply?.batch !== undefined;
  const latency = Date.parse(record.finishedAt) - Date.parse(record.startedAt);
  const usage = record.reply?.usage;
  const price = batched ? priceOf(input.batchPrices ?? new Map(), record.key.model) : priceOf(prices, record.key.model);
  const tokens = usage ? { input: usage.promptTokens, output: usage.completionTokens } : null;
  const cost =
    record.reply === null
      ? 'no reply'
      : record.reply.cached || record.reply.attempts === 0
        ? '$0 (no call: cached, reused or simulated)'
        : tokens && price
          ? `$${costOf(price, tokens).toFixed(6)} (${price.source}${batched ? `, Batch API job ${record.reply!.batch}` : ''})`
          : tokens
            ? 'unknown (unpriced model)'
            : 'unknown (no usage reported)';
  return `<dl id="cost"><dt>latency</dt><dd>${Number.isFinite(latency) ? `${latency} ms` : '?'} (${escapeHtml(record.startedAt)} → ${escapeHtml(record.finishedAt)})</dd><dt>tokens</dt><dd>${tokens ? `${tokens.input} in / ${tokens.output} out` : '–'}</dd><dt>cost</dt><dd>${escapeHtml(cost)}</dd><dt>calls</dt><dd>${record.reply?.attempts ?? 0}${record.reply?.cached ? ' (cached)' : ''}</dd></dl>`;
}

/** Each post-decision defence's verdict (output filter, PoEM gate with its ledger evidence, other reviews). */
function verdicts(record: UnitRecord): string {
  const parts: string[] = [];
  if (record.context.guard)
    parts.push(
      `<h3>stale-retrieval guard</h3><p>withheld ${record.context.guard.withheld.length} of ${record.context.guard.input.length} (clock ${escapeHtml(record.context.guard.now)})</p>${pre(json(record.context.guard.withheld))}`,
    );
  for (const [id, trace] of Object.entries(record.context.screens ?? {}))
    parts.push(`<h3>${escapeHtml(id)}</h3>${pre(json(trace.withheld))}`);
  if (record.outputFilter) parts.push(`<h3>output filter</h3>${pre(json(record.outputFilter))}`);
  if (record.priorSafetyStep)
    parts.push(`<h3>safety step run before the decision (ledger event)</h3>${pre(json(record.priorSafetyStep))}`);
  if (record.poem) parts.push(`<h3>proof-of-execution gate</h3>${pre(json(record.poem))}`);
  if (record.reviews) parts.push(`<h3>other reviews</h3>${pre(json(record.reviews))}`);
  return parts.length === 0 ? '<p>No defence on this unit (arm none, guard and PoEM off).</p>' : parts.join('');
}

/** The transcript page of a grid unit. */
export function gridTranscriptPage(input: GridTranscriptInput): string {
  const { entry, record, scenario } = input;
  const actions = 'error' in scenario ? [] : scenario.actions;
  const reply = record.reply;
  const body = `<p><a href="../index.html">run</a> · <a href="../../../index.html">all runs</a></p>
<h1>${escapeHtml(record.unitId)}</h1>${verifyWarning(entry)}
<dl><dt>outcome</dt><dd id="outcome">${escapeHtml(outcomeOf(record))}</dd><dt>status</dt><dd>${escapeHtml(record.status)}</dd><dt>key</dt><dd>${escapeHtml(JSON.stringify(record.key))}</dd><dt>line</dt><dd>records.jsonl:${input.line}</dd></dl>
<h2>Messages sent</h2><section id="messages">${messagesSection(input)}</section>
<h2>Retrieved records</h2>${readTable(input)}
<h2>Reply</h2>${reply ? pre(reply.text, 'reply') : `<p class="warning">No reply: ${escapeHtml(record.error?.message ?? 'error')}</p>`}
<dl><dt>parsed action</dt><dd id="parsed-action">${escapeHtml(record.parsedAction ?? '(none: parse failure)')}</dd><dt>parser</dt><dd id="parser-reason">${reply ? escapeHtml(parserReason(reply.text, record.parsedAction, actions)) : '–'}</dd><dt>scores</dt><dd>${escapeHtml(JSON.stringify(record.scores))}</dd></dl>
<h2>Defences</h2><section id="verdicts">${verdicts(record)}</section>
<h2>Cost and latency</h2>${costLine(input)}`;
  return frame(`${record.unitId} · stalebench`, body);
}

/**
 * The page of a unit of a run that is not a grid: its dedicated sections (follow-up hops, roles and tool steps;
 * integrity and front-door cells: its run kind's `viewer.sections`), then its stored line, pretty-printed.
 */
export function genericUnitPage(entry: RunEntry, id: string, line: number, row: unknown): string {
  const sections = findRunKind(entry.experiment)?.viewer.sections?.(row) ?? null;
  const stored = `<p class="notes">line ${line} as stored</p>${pre(json(row), 'record')}`;
  return frame(
    `${id} · stalebench`,
    `<p><a href="../index.html">run</a> · <a href="../../../index.html">all runs</a></p><h1>${escapeHtml(id)}</h1>${verifyWarning(entry)}${sections === null ? stored : `${sections}<details><summary>The stored line</summary>${stored}</details>`}`,
  );
}
