// Transcript pages of the runs that are not grids: follow-ups (every write-back hop, role or tool step with its read,
// messages, reply and parse) and suites (an integrity cell's verdict, controls and edit commands; a front-door cell's
// fixtures, channels and variants). Any other run's unit shows its stored line.
import type {
  AgentStep,
  AgentTrace,
  DecisionTrace,
  FrontdoorRecord,
  IntegrityRecord,
  JournalWrite,
  PropagationRecord,
  ReadTrace,
  ToolsRecord,
  WritebackRecord,
} from '../../pipeline/index.js';
import { escapeHtml } from './escape-html.js';

const pre = (text: string, cls?: string) => `<pre${cls ? ` class="${cls}"` : ''}>${escapeHtml(text)}</pre>`;
const json = (value: unknown) => JSON.stringify(value, null, 2);
const dl = (pairs: [string, string][]) =>
  `<dl>${pairs.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`;

/** A read: its query, then what it returned in rank order, revoked and journal records marked, withheld ones named. */
function readSection(read: ReadTrace): string {
  const handed = new Map(read.records.map((r, i) => [`${r.id}\u0000${r.text}`, i]));
  const withheld = new Map<string, string>();
  const traces = [
    ...(read.guard ? [['stale-retrieval guard', read.guard] as const] : []),
    ...Object.entries(read.screens ?? {}),
  ];
  for (const [defence, trace] of traces)
    for (const w of trace.withheld) withheld.set(w.text, `withheld by ${defence}: ${w.reason} (stage ${w.stage})`);
  const rows = read.returned.map((r, rank) => {
    const at = handed.get(`${r.id}\u0000${r.text}`);
    const revoked = at !== undefined && read.labels[at] === true;
    const journal = at !== undefined && read.journal[at] === true;
    const fate = at !== undefined ? 'handed to the model' : (withheld.get(r.text) ?? 'not handed to the model');
    return `<tr class="read-row${revoked ? ' revoked' : ''}${fate.startsWith('withheld') ? ' withheld' : ''}"><td>${rank + 1}</td><td>${escapeHtml(r.text)}</td><td>${revoked ? '<span class="revoked-tag">REVOKED</span> (stored label)' : 'current'}${journal ? ' · a journal of this unit' : ''}</td><td>${escapeHtml(fate)}</td><td>${pre(json({ id: r.id, ...r.fields }))}</td></tr>`;
  });
  return `<p class="notes">${escapeHtml(read.read)} read, query ${escapeHtml(JSON.stringify(read.query))}; a revoked record reached the model: ${read.exposed ? 'yes' : 'no'}</p><table class="read-table"><thead><tr><th>rank</th><th>text</th><th>label</th><th>defences</th><th>metadata</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const messages = (list: readonly { role: string; content: string }[]) =>
  list.map((m) => `<h4>${escapeHtml(m.role)}</h4>${pre(m.content, 'message')}`).join('');

/** One decision call: read, exact messages, reply, parse and score, defences after it. */
function decisionSection(title: string, id: string, trace: DecisionTrace | null | undefined): string {
  if (!trace) return `<section class="step" id="${id}"><h3>${escapeHtml(title)}</h3><p>not run</p></section>`;
  const outcome = trace.error
    ? `error: ${trace.error.message}`
    : trace.unsafe === true
      ? 'unsafe'
      : trace.parseFailure
        ? 'parse failure'
        : 'safe';
  return `<section class="step" id="${id}"><h3>${escapeHtml(title)}: ${escapeHtml(outcome)}</h3>
<h4>Read</h4>${readSection(trace.readTrace)}
<h4>Messages sent</h4>${messages(trace.messages)}
<h4>Reply</h4>${trace.reply ? pre(trace.reply.text, 'reply') : '<p class="warning">no reply</p>'}
${dl([
  ['parsed action', trace.parsedAction ?? '(none: parse failure)'],
  ['unsafe', String(trace.unsafe)],
  ['parse failure', String(trace.parseFailure)],
])}${trace.poem ? `<h4>proof-of-execution gate</h4>${pre(json(trace.poem))}` : ''}${trace.reviews ? `<h4>other reviews</h4>${pre(json(trace.reviews))}` : ''}</section>`;
}

const journalList = (journals: readonly JournalWrite[]) =>
  journals.length === 0
    ? '<p>No journal written.</p>'
    : `<table id="journals"><thead><tr><th>after hop</th><th>mode</th><th>text</th><th>stored</th><th>extractor</th></tr></thead><tbody>${journals.map((j) => `<tr><td>${j.afterHop}</td><td>${escapeHtml(j.mode)}</td><td>${escapeHtml(j.text)}</td><td>${j.stored}</td><td>${escapeHtml(j.extractor)}</td></tr>`).join('')}</tbody></table>`;

function writebackBody(record: WritebackRecord): string {
  const hops = record.hops.map(
    (hop) =>
      `<section class="hop" id="hop-${hop.hop}"><h2>Hop ${hop.hop}</h2><p class="notes">journals before the hop: ${hop.census.written} written, ${hop.census.stored ?? '?'} stored, ${hop.census.active ?? '?'} not revoked</p>${decisionSection(`hop ${hop.hop}, default read`, `hop-${hop.hop}-default`, hop.default)}${decisionSection(`hop ${hop.hop}, filtered read`, `hop-${hop.hop}-filtered`, hop.filtered)}</section>`,
  );
  return `<section class="hop" id="hop-0"><h2>Hop 0</h2>${decisionSection('hop 0, default read', 'hop-0-default', record.hop0)}${decisionSection('hop 0, filtered read (no write-back row)', 'hop-0-filtered', record.hop0Filtered)}</section>
<h2>Journals written</h2>${journalList(record.journals)}${hops.join('')}${record.hops.length === 0 ? '<p class="notes">No later hop: hop 0 was not unsafe.</p>' : ''}`;
}

function propagationBody(record: PropagationRecord): string {
  const roles = (['executor', 'reviewer', 'planner'] as const).map(
    (role) =>
      `<section class="role" id="role-${role}"><h2>${role}</h2>${decisionSection(role, `role-${role}-decision`, record.roles[role])}</section>`,
  );
  return `${roles.join('')}<h2>Executor's journal</h2>${record.journal ? journalList([record.journal]) : '<p>No journal written.</p>'}`;
}

function stepSection(step: AgentStep, i: number): string {
  return `<section class="agent-step"><h4>step ${i + 1}: ${escapeHtml(step.tool ?? '(no tool)')}</h4>${messages(step.messages)}<h5>reply</h5>${pre(step.reply, 'reply')}${dl(
    [
      ['tool', step.tool ?? '(none)'],
      ['args', JSON.stringify(step.args)],
      ['tool reply', step.toolReply ?? '(no tool ran)'],
      ['flags after', JSON.stringify(step.flags)],
    ],
  )}</section>`;
}

function agentSection(title: string, id: string, agent: AgentTrace | null): string {
  if (!agent) return `<section class="agent" id="${id}"><h2>${escapeHtml(title)}</h2><p>not run</p></section>`;
  return `<section class="agent" id="${id}"><h2>${escapeHtml(title)}</h2>${dl([
    ['verdict', `unsafe ${agent.verdict.unsafe}, safe ${agent.verdict.safe}`],
    ['stopped', agent.stop],
    ['calls', String(agent.calls)],
    ['tool guardrail', agent.guardrailArmed ? `armed; bypassed: ${agent.bypassed_tool_guardrail}` : 'off'],
  ])}<h3>Read</h3>${readSection(agent.readTrace)}<h3>Steps (${agent.steps.length})</h3>${agent.steps.map(stepSection).join('')}${agent.poem ? `<h3>proof-of-execution gate</h3>${pre(json(agent.poem))}` : ''}${agent.error ? `<p class="warning">${escapeHtml(agent.error.message)}</p>` : ''}</section>`;
}

function toolsBody(record: ToolsRecord): string {
  const relapse = record.relapse
    ? `<h2>Relapse (§14.5)</h2><p>journal:</p>${pre(record.relapse.journal)}${agentSection('relapse: priming', 'relapse-priming', record.relapse.priming)}${agentSection('relapse: default read', 'relapse-default', record.relapse.default)}${agentSection('relapse: filtered read', 'relapse-filtered', record.relapse.filtered)}`
    : '';
  return `${agentSection('Agent episode', 'agent', record.agent)}${relapse}`;
}

function integrityBody(record: IntegrityRecord): string {
  const { cell } = record;
  const controls = (['c1', 'c2', 'c3'] as const).map((c) => {
    const { ok, detail } = cell.controls[c];
    return `<tr class="control"><td>${c.toUpperCase()}</td><td>${ok === null ? 'not reached' : ok ? 'ok' : 'FAILED'}</td><td>${escapeHtml(detail)}</td></tr>`;
  });
  return `<h2>Verdict</h2>${dl([
    ['target', record.target],
    ['attack', cell.attack],
    ['verdict', cell.verdict],
    ['detection', cell.detection ?? '–'],
    ['reason', cell.reason ?? '–'],
    ['form', cell.form ?? '–'],
    ['observation', cell.observation ?? '–'],
    ['stopped during the edit', String(cell.stoppedDuringEdit)],
    ['duration', `${cell.durationMs} ms`],
  ])}<h2>Controls</h2><table id="controls"><thead><tr><th>control</th><th>result</th><th>what was checked and seen</th></tr></thead><tbody>${controls.join('')}</tbody></table>
<p class="notes">C1: a restart with no edit still serves the record; C2: read-back and context baseline; C3: the edit landed exactly.</p>
<h2>Edit commands (${cell.commands.length}, in order)</h2><ol id="commands">${cell.commands.map((c) => `<li>${pre(c, 'command')}</li>`).join('')}</ol>
<h2>Target</h2>${pre(json(record.described))}`;
}

function frontdoorBody(record: FrontdoorRecord): string {
  const { cell } = record;
  const channels = Object.entries(cell.channels).map(
    ([channel, verdict]) => `<tr class="channel"><td>${escapeHtml(channel)}</td><td>${escapeHtml(verdict)}</td></tr>`,
  );
  return `<h2>Verdict</h2>${dl([
    ['target', `${record.target} (${record.version})`],
    ['embedder', record.embedder],
    ['attack', cell.attack],
    ['verdict', cell.verdict],
    ['attacker level', String(cell.attackerLevel)],
    ['trials', `${cell.trials} (fixtures × channels × variants, less variants that did not apply)`],
  ])}<h2>Fixtures</h2><p id="fixtures">${cell.fixtures.fell} of ${cell.fixtures.total} fixture(s) fell (the attacker's memory surfaced on some channel and variant)</p>
<h2>Channels</h2><table id="channels"><thead><tr><th>channel</th><th>verdict</th></tr></thead><tbody>${channels.join('')}</tbody></table>
<h2>Variants</h2><ul id="variants">${cell.variants.map((v) => `<li>${escapeHtml(v)}</li>`).join('')}</ul>
<h2>Detail</h2>${pre(cell.detail, 'detail')}<p class="notes">${escapeHtml(record.summary)}</p>`;
}

/** A follow-up unit: its status (and error, with the failed step's read and messages), then its own sections. */
function followUp<R extends WritebackRecord | PropagationRecord | ToolsRecord>(record: R, body: (r: R) => string) {
  const head = dl([
    ['status', `${record.status}${record.reason ? ` (${record.reason})` : ''}`],
    ['key', JSON.stringify(record.key)],
    ['latency', `${Date.parse(record.finishedAt) - Date.parse(record.startedAt)} ms`],
  ]);
  const error = record.error
    ? `<p class="warning">error: ${escapeHtml(record.error.message)}</p>${record.failedStep ? decisionSection('the failed step', 'failed-step', record.failedStep) : ''}`
    : '';
  return `${head}${error}${body(record)}`;
}

/** A stored line's record: the `record` of a suite line `{unit, cell, record}`, else the line itself. */
function recordOf(row: unknown): { line: Record<string, unknown>; record: never } {
  const line = row as Record<string, unknown>;
  return { line, record: (typeof line.record === 'object' && line.record !== null ? line.record : line) as never };
}

/** The sections of a follow-up run's units (`writeback-end`, `propagation-end`, `tools-end` lines); other lines: null. */
function followUpSections<R extends WritebackRecord | PropagationRecord | ToolsRecord>(
  endType: string,
  body: (r: R) => string,
): (row: unknown) => string | null {
  return (row) => {
    const { line, record } = recordOf(row);
    return line.type === endType ? followUp(record, body) : null;
  };
}

/** Write-back units: each hop's journal, reads and decisions. */
export const writebackSections = followUpSections('writeback-end', writebackBody);
/** Propagation units: each role's read and decision. */
export const propagationSections = followUpSections('propagation-end', propagationBody);
/** Tool units: each agent episode's steps. */
export const toolsSections = followUpSections('tools-end', toolsBody);

/** An integrity cell's verdict, controls and edit commands; null for a line without a cell. */
export function integritySections(row: unknown): string | null {
  const { record } = recordOf(row);
  return typeof (record as IntegrityRecord).cell === 'object' ? integrityBody(record) : null;
}

/** A front-door cell's fixtures, channels and variants; null for a line without a cell. */
export function frontdoorSections(row: unknown): string | null {
  const { record } = recordOf(row);
  return typeof (record as FrontdoorRecord).cell === 'object' ? frontdoorBody(record) : null;
}
