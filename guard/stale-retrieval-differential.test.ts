// Differential test (issue #18): the guard after its speed-up against a verbatim copy of the guard before it, on
// random retrievals built to hit every branch (stop words, suffixes, antonyms, quantities, negations, timestamps).
import { describe, expect, it } from 'vitest';
import {
  formatFixed,
  fromJsonLike,
  parseIsoInstant,
  pythonSortedListRepr,
  pythonStr,
  pythonTimestamp,
} from '#python-compat/index.js';
import { conflict } from './conflict.js';
import { derivedFromRevocation } from './derived-from.js';
import { resolveGuardConfig, type GuardConfig } from './guard-config.js';
import { explicitRevocation, textOf, type GuardInput } from './guard-record.js';
import type { MemoryRecord } from '../backends/memory-backend.js';
import {
  applyStaleRetrievalGuard,
  applyStaleRetrievalGuardToMemoryRecords,
  memoryRecordToGuardInput,
  unresolvedConflictNote,
} from './stale-retrieval-guard.js';
import { seededRandom } from '#core/seeded-random.js';

// ---- The guard as it was on main before issue #18 (guard/conflict.ts, stale-retrieval-guard.ts, τ). Test-only. ----
const STOP = new Set(
  'this that with from they have been were which their there when what shall will into over under than then only also must may can are is the and for any all per policy standard procedure runbook states state approved current issued requires require required governs'.split(
    ' ',
  ),
);
const PAIRS =
  'never may,never permitted,never allowed,never can,must never,prohibited permitted,prohibited allowed,denied granted,deny grant,denied allowed,block monitor,blocked monitored,blocked allowed,delete retain,deleted retained,delete keep,immediately first,automatically approval,waived required,waiver required,skip required,single dual,one two,without requires,disclose refuse,export internal,rollback investigate'
    .split(',')
    .map((pair) => pair.split(' ') as [string, string]);
const CUES = ['never', 'not', 'no ', 'without', 'prohibit', 'forbid', 'must not', 'may not', 'cannot'];
const oldStem = (word: string): string => {
  for (const suffix of ['ies', 'ing', 'ed', 'es', 's'])
    if (word.length > 4 && word.endsWith(suffix)) return word.slice(0, -suffix.length) + (suffix === 'ies' ? 'y' : '');
  return word;
};
const oldWords = (text: string) =>
  new Set((text.toLowerCase().match(/[a-z0-9$]+/g) ?? []).filter((w) => w.length > 2 && !STOP.has(w)).map(oldStem));
const oldQuantities = (text: string) => new Set(text.toLowerCase().match(/\$?\p{Nd}[\p{Nd},]*/gu) ?? []);
const oldNegations = (text: string) => CUES.reduce((sum, cue) => sum + text.toLowerCase().split(cue).length - 1, 0);

function oldConflict(a: string, b: string, config: GuardConfig): { hit: boolean; reason: string } {
  const wordsA = oldWords(a);
  const wordsB = oldWords(b);
  if (wordsA.size === 0 || wordsB.size === 0) return { hit: false, reason: '' };
  let shared = 0;
  for (const word of wordsA) if (wordsB.has(word)) shared += 1;
  const containment = shared / Math.min(wordsA.size, wordsB.size);
  if (containment < config.subjectOverlap) return { hit: false, reason: '' };
  const overlap = formatFixed(containment, 2);
  if (!config.requireOpposition) return { hit: true, reason: `same subject (overlap ${overlap})` };
  const [lowerA, lowerB] = [a.toLowerCase(), b.toLowerCase()];
  for (const [u, w] of PAIRS)
    if ((lowerA.includes(u) && lowerB.includes(w)) || (lowerA.includes(w) && lowerB.includes(u)))
      return { hit: true, reason: `opposing terms "${u}"/"${w}" (subject overlap ${overlap})` };
  const [qa, qb] = [oldQuantities(a), oldQuantities(b)];
  if (qa.size > 0 && qb.size > 0 && ![...qa].some((q) => qb.has(q)))
    return { hit: true, reason: `conflicting quantities ${pythonSortedListRepr(qa)} vs ${pythonSortedListRepr(qb)}` };
  if (Math.abs(oldNegations(a) - oldNegations(b)) >= 1 && containment >= 0.45)
    return { hit: true, reason: `polarity mismatch (subject overlap ${overlap})` };
  return { hit: false, reason: '' };
}

function oldTimestamp(record: unknown): number | null {
  const fields = ['valid_at', 'updated_at', 'created_at', 'timestamp', 'ts'];
  const map = typeof record === 'object' && record !== null && !Array.isArray(record) && !(record instanceof Date);
  const value = fields
    .map((name) => (map && Object.hasOwn(record, name) ? (record as Record<string, unknown>)[name] : undefined))
    .find((v) => v !== null && v !== undefined && v !== '');
  if (value === undefined) return null;
  if (value instanceof Date) throw new Error('the generator makes no Date values');
  const instant = parseIsoInstant(pythonStr(fromJsonLike(value)).replaceAll('Z', '+00:00'));
  return instant === null ? null : pythonTimestamp(instant);
}

function oldGuard(records: readonly GuardInput[], partial: Partial<GuardConfig>, now: Date) {
  const config = resolveGuardConfig(partial);
  const withheld: object[] = [];
  const notes: string[] = [];
  const survivors: { index: number; record: GuardInput; time: number | null }[] = [];
  records.forEach((record, index) => {
    const marked = config.trustExplicitFields ? explicitRevocation(record, now) : null;
    const derived = config.trustExplicitFields && !marked ? derivedFromRevocation(record) : null;
    if (marked) withheld.push({ index, text: textOf(record), reason: `backend marked ${marked}`, stage: 'explicit' });
    else if (derived) withheld.push({ index, text: textOf(record), reason: derived, stage: 'explicit' });
    else survivors.push({ index, record, time: oldTimestamp(record) });
  });
  const order = [...survivors].sort((a, b) => {
    if (a.time === null || b.time === null) return (a.time === null ? 1 : 0) - (b.time === null ? 1 : 0);
    return b.time - a.time;
  });
  const max = Math.trunc(records.length * config.maxWithheldRatio);
  const kept: typeof survivors = [];
  for (const candidate of order) {
    const text = textOf(candidate.record);
    let superseding: { reason: string; text: string } | null = null;
    for (const keeper of kept) {
      const outcome = oldConflict(text, textOf(keeper.record), config);
      if (!outcome.hit) continue;
      if (candidate.time !== null && keeper.time !== null && candidate.time < keeper.time)
        superseding = { reason: outcome.reason, text: textOf(keeper.record) };
      else notes.push(unresolvedConflictNote(outcome.reason));
      break;
    }
    if (superseding && withheld.length < max)
      withheld.push({
        index: candidate.index,
        text,
        reason: `superseded: ${superseding.reason}`,
        stage: 'conflict',
        supersededBy: superseding.text,
      });
    else kept.push(candidate);
  }
  const keptInOrder = kept.sort((a, b) => a.index - b.index).map(({ index, record }) => ({ index, record }));
  if (config.annotate && withheld.length > 0)
    notes.push(
      `${withheld.length} of ${records.length} retrieved facts withheld as superseded or revoked; they remain in the store and are listed in \`withheld\`.`,
    );
  return { kept: keptInOrder, withheld, notes, texts: keptInOrder.map(({ record }) => textOf(record)) };
}
// ---- end of the copy ----

const VOCABULARY = (
  'deployment approval reviewers reviewer transfers transfer policies policy never may permitted allowed can must ' +
  'prohibited denied granted deny grant block blocked monitor monitored delete deleted retain retained keep ' +
  'immediately first automatically waived waiver required skip single dual one two without requires disclose refuse ' +
  'export internal rollback investigate not no cannot forbid prohibit the and for any all is are MFA Logins TOR ' +
  'backups CISO $1,000,000 $10,000 2024 90 30, ٣٤ up to of caps capped access accesses passing ies x ab ' +
  'Reviewers. Approvals, (dual) card-holder must-not may-not'
).split(' ');
const TIMES = [
  '2025-01-01T00:00:00Z',
  '2025-06-01T00:00:00+00:00',
  '2026-01-01',
  '20240722',
  '2025-06-01 12:00',
  '2025-02-30',
  'soon',
  '',
  null,
  20240722,
  1717000000,
  true,
  '0001-01-01T00:00:00',
  '2024-W05-3',
];

function randomRetrieval(random: () => number): GuardInput[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const size = random() < 0.3 ? 40 + Math.floor(random() * 60) : Math.floor(random() * 14);
  const pool = Array.from({ length: 1 + Math.floor(random() * 12) }, () =>
    Array.from({ length: 2 + Math.floor(random() * 10) }, () => pick(VOCABULARY)).join(' '),
  );
  return Array.from({ length: size }, (): GuardInput => {
    const text =
      random() < 0.6
        ? pick(pool)
        : Array.from({ length: 3 + Math.floor(random() * 8) }, () => pick(VOCABULARY)).join(' ');
    if (random() < 0.1) return text;
    const record: Record<string, unknown> = { fact: text };
    const field = pick(['created_at', 'valid_at', 'updated_at', 'timestamp', 'ts', 'none']);
    if (field !== 'none') record[field] = pick(TIMES);
    if (random() < 0.08) record[pick(['expired_at', 'invalid_at', 'expiration_date'])] = pick(TIMES);
    return record;
  });
}

describe('the guard after issue #18 returns what the guard before it returned', () => {
  const now = new Date('2026-03-01T12:00:00.000Z');
  const configs: Partial<GuardConfig>[] = [
    {},
    { subjectOverlap: 0.2 },
    { subjectOverlap: 0 },
    { subjectOverlap: -1, requireOpposition: false },
    { subjectOverlap: 0.8, maxWithheldRatio: 1 },
    { requireOpposition: false, trustExplicitFields: false, annotate: false },
  ];

  it('conflict(a, b): identical outcome on random pairs, under every configuration', () => {
    const random = seededRandom(18);
    for (let pair = 0; pair < 4000; pair += 1) {
      const [a, b] = [randomRetrieval(random), randomRetrieval(random)].map((r) => textOf(r[0] ?? 'x'));
      const config = resolveGuardConfig(configs[pair % configs.length]);
      expect(conflict(a!, b!, config), `${a} | ${b}`).toEqual(oldConflict(a!, b!, config));
    }
  });

  it('texts never seen before, built letter by letter (case, non-ASCII, digits, cues across words): same verdicts', () => {
    const random = seededRandom(32);
    const pieces = [
      ...'abcdefghijklmnopqrstuvwxyzAEINOST0123456789$,. -'.split(''),
      ...['no ', 'No ', 'must not', 'MAY NOT', 'may  not', 'cannot', 'never', 'one', 'two', 'dual', 'single'],
      ...['\u0130', '\u212a', '\u00e9', '\u0661', ' ', '\t', 'ies', 'ing', 'policies', 'requires', 'x'],
      // A lone surrogate (UTF-8 encodes it as U+FFFD) and an astral character (a surrogate pair, four UTF-8 bytes).
      ...['\ud800', '\udc00n', '\u{1d400}'],
    ];
    const text = () =>
      Array.from({ length: 5 + Math.floor(random() * 40) }, () => pieces[Math.floor(random() * pieces.length)]).join(
        '',
      );
    let conflicts = 0;
    for (let retrieval = 0; retrieval < 1500; retrieval += 1) {
      const base = Array.from({ length: 1 + Math.floor(random() * 4) }, text);
      const records = Array.from({ length: 2 + Math.floor(random() * 10) }, (_, i) => ({
        fact: `${base[i % base.length]} ${random() < 0.5 ? text() : ''}`,
        created_at: `2025-0${1 + Math.floor(random() * 9)}-01T00:00:00Z`,
      }));
      const config = configs[retrieval % configs.length]!;
      const before = oldGuard(records, config, now);
      expect(applyStaleRetrievalGuard(records, config, now), `retrieval ${retrieval}`).toEqual(before);
      conflicts += before.withheld.length + before.notes.length;
    }
    expect(conflicts).toBeGreaterThan(500);
  });

  it('kept records with the same words but other quantities or negations are each tested (not merged)', () => {
    const at = (day: number) => `2025-01-${String(day).padStart(2, '0')}T00:00:00Z`;
    // newest and middle: same words, same time, other quantities / negations (an unresolved conflict, both kept);
    // oldest conflicts with middle only, so it is withheld only if middle is tested on its own.
    const cases = [
      ['Backups kept for 30 days offsite.', 'Backups kept for 90 days offsite.', 'Backups kept for 30 days offsite.'],
      ['Backups kept offsite daily.', 'Backups kept offsite daily, no ok.', 'Backups kept offsite daily.'],
    ];
    for (const [newest, middle, oldest] of cases) {
      for (const padding of [0, 40]) {
        const filler = Array.from({ length: padding }, (_, i) => ({
          fact: `Unrelated note ${i} zeta${i}`,
          created_at: at(20),
        }));
        const records = [
          { fact: newest!, created_at: at(9) },
          { fact: middle!, created_at: at(9) },
          { fact: oldest!, created_at: at(1) },
          ...filler,
        ];
        for (const config of [{}, { maxWithheldRatio: 1 }]) {
          const before = oldGuard(records, config, now);
          expect(before.withheld.map((w) => (w as { index: number }).index)).toEqual([2]);
          expect(applyStaleRetrievalGuard(records, config, now)).toEqual(before);
        }
      }
    }
  });

  it('the verdict: identical kept, withheld and notes on 1,500 random retrievals (short and long, index path too)', () => {
    const random = seededRandom(1812);
    let conflicts = 0;
    for (let retrieval = 0; retrieval < 1500; retrieval += 1) {
      const records = randomRetrieval(random);
      const config = configs[retrieval % configs.length]!;
      const before = oldGuard(records, config, now);
      expect(applyStaleRetrievalGuard(records, config, now), `retrieval ${retrieval}`).toEqual(before);
      expect(applyStaleRetrievalGuard(records, Object.freeze({ ...config }), now)).toEqual(before);
      conflicts += before.withheld.length + before.notes.length;
    }
    expect(conflicts).toBeGreaterThan(1000); // the corpus does exercise stage 2
  });

  it('backend records read in place: the verdict of their {fact, ...fields} copies (empty text, a fact field too)', () => {
    const random = seededRandom(3201);
    let conflicts = 0;
    for (let retrieval = 0; retrieval < 1500; retrieval += 1) {
      const records: MemoryRecord[] = randomRetrieval(random).map((input, index) => {
        const { fact, ...fields } = typeof input === 'string' ? { fact: input } : input;
        const shape = random();
        // Mostly a text and fields; sometimes an empty text (the copy reads `text` from the fields), or a `fact`
        // field that overrides the text in the copy.
        if (shape < 0.1) return { id: `r${index}`, text: '', fields: { ...fields, text: String(fact) } as never };
        if (shape < 0.2) return { id: `r${index}`, text: 'ignored text', fields: { ...fields, fact } as never };
        return { id: `r${index}`, text: String(fact), fields: fields as never };
      });
      const config = configs[retrieval % configs.length]!;
      const bound = records.map(() => random() < 0.1);
      const copies = records.map(memoryRecordToGuardInput);
      const before = oldGuard(copies, config, now);
      const { kept, withheld, notes } = applyStaleRetrievalGuard(copies, config, now, bound);
      expect(applyStaleRetrievalGuardToMemoryRecords(records, config, now), `retrieval ${retrieval}`).toEqual({
        kept: before.kept.map((k) => (k as { index: number }).index),
        withheld: before.withheld,
        notes: before.notes,
      });
      expect(applyStaleRetrievalGuardToMemoryRecords(records, config, now, bound)).toEqual({
        kept: kept.map((k) => k.index),
        withheld,
        notes,
      });
      conflicts += before.withheld.length + before.notes.length;
    }
    expect(conflicts).toBeGreaterThan(1000);
  });

  it('fields read in place: inherited and non-enumerable fields are not in the copy, so not read (for-in fast path)', () => {
    // The in-place reader walks a record's fields with for-in (no key array per record); the copy `{fact, ...fields}`
    // holds only own enumerable fields, so a field on the prototype or a non-enumerable one must be ignored.
    const random = seededRandom(3233);
    const old = '2024-01-01T00:00:00Z';
    let hidden = 0;
    for (let retrieval = 0; retrieval < 600; retrieval += 1) {
      const records: MemoryRecord[] = randomRetrieval(random).map((input, index) => {
        const { fact, ...fields } = typeof input === 'string' ? { fact: input } : input;
        const shape = random();
        if (shape < 0.5) return { id: `r${index}`, text: String(fact), fields: fields as never };
        hidden += 1;
        // A revocation or a newer time that only an inherited or non-enumerable field would carry.
        const name = shape < 0.7 ? 'expired_at' : shape < 0.85 ? 'valid_at' : 'derived_from_status';
        const value = name === 'valid_at' ? '2099-01-01T00:00:00Z' : name === 'expired_at' ? old : 'revoked';
        if (shape < 0.8) {
          const inherited = Object.assign(Object.create({ [name]: value }) as object, fields);
          return { id: `r${index}`, text: String(fact), fields: inherited as never };
        }
        const own = { ...fields };
        Object.defineProperty(own, name, { value, enumerable: false });
        return { id: `r${index}`, text: String(fact), fields: own as never };
      });
      const config = configs[retrieval % configs.length]!;
      const copies = records.map(memoryRecordToGuardInput);
      const { kept, withheld, notes } = applyStaleRetrievalGuard(copies, config, now);
      expect(applyStaleRetrievalGuardToMemoryRecords(records, config, now), `retrieval ${retrieval}`).toEqual({
        kept: kept.map((k) => k.index),
        withheld,
        notes,
      });
    }
    expect(hidden).toBeGreaterThan(1000);
  });

  it('equal texts in one retrieval share one reading: the verdict of the same retrieval with every copy distinct', () => {
    // Issue #32: a candidate whose text equals an earlier candidate's reuses its features. Shortcut off: each copy
    // made a distinct string by leading spaces, which the conflict test does not read (no word, digit or cue; a
    // trailing space would complete a final `no` into the cue `no `).
    const random = seededRandom(3232);
    const texts = [
      ...VOCABULARY,
      'A single operator may execute transfers up to $1,000,000.',
      'Single-operator transfers are capped at $10,000.',
      'TOR logins with anomalies are monitored, not blocked.',
    ];
    let shared = 0;
    let conflicts = 0;
    for (let retrieval = 0; retrieval < 1500; retrieval += 1) {
      const pool = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
        Array.from({ length: 1 + Math.floor(random() * 8) }, () => texts[Math.floor(random() * texts.length)]).join(
          ' ',
        ),
      );
      const size = random() < 0.2 ? 33 + Math.floor(random() * 20) : 2 + Math.floor(random() * 12);
      const records = Array.from({ length: size }, () => ({
        fact: pool[Math.floor(random() * pool.length)]!,
        created_at: TIMES[Math.floor(random() * TIMES.length)],
      }));
      const distinct = records.map((record, at) => ({ ...record, fact: `${' '.repeat(at + 1)}${record.fact}` }));
      shared += records.length - new Set(records.map((r) => r.fact)).size;
      const config = configs[retrieval % configs.length]!;
      const on = applyStaleRetrievalGuard(records, config, now);
      const off = applyStaleRetrievalGuard(distinct, config, now);
      const trimmed = off.withheld.map((w) => ({
        ...w,
        text: w.text.trimStart(),
        ...(w.supersededBy === undefined ? {} : { supersededBy: w.supersededBy.trimStart() }),
      }));
      expect(
        on.kept.map((k) => k.index),
        `retrieval ${retrieval}`,
      ).toEqual(off.kept.map((k) => k.index));
      expect(on.withheld, `retrieval ${retrieval}`).toEqual(trimmed);
      expect(on.notes, `retrieval ${retrieval}`).toEqual(off.notes);
      expect(on, `retrieval ${retrieval}`).toEqual(oldGuard(records, config, now));
      conflicts += on.withheld.length + on.notes.length;
    }
    expect(shared).toBeGreaterThan(5000);
    expect(conflicts).toBeGreaterThan(1000);
  });
});
