import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FrontdoorCell, FrontdoorResults } from '../../pipeline/index.js';
import { agmiFrontDoorMarkdown, compareFrontDoorWithAgmi, loadAgmiFrontDoor } from './agmi-frontdoor-comparison.js';
import { frontdoorSuiteReport } from './frontdoor-suite-report.js';

const scratch = mkdtempSync(join(tmpdir(), 'agmi-frontdoor-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const cell = (attack: string, verdict: FrontdoorCell['verdict'], fell: number): FrontdoorCell => ({
  attack: `${attack}@v1`,
  verdict,
  channels: { external: verdict },
  fixtures: { fell, total: 5 },
  detail: '',
  attackerLevel: 2,
  variants: ['base'],
  trials: 15,
});
const results = (ids: string[]): FrontdoorResults => ({
  version: 1,
  tool: 'stalebench frontdoor',
  createdAt: '2026-12-04T10:00:00.000Z',
  channels: ['external'],
  variants: ['base'],
  targets: ids.map((id) => ({
    id,
    version: `${id} 1.0`,
    embedder: 'all-MiniLM-L6-v2 (real)',
    summary: '',
    cells: [
      cell('memory_injection', 'surfaced', 5),
      cell('cross_session_bleed', 'kept out', 0),
      cell('retrieval_hijack', 'kept out', 0),
      cell('metadata_poisoning', 'n/a', 0),
    ],
  })),
});

describe("agmi's published front-door table beside ours", () => {
  it('holds the seven rows as printed', () => {
    const agmi = loadAgmiFrontDoor();
    expect(agmi.rows).toHaveLength(7);
    expect(agmi.rows.find((row) => row.row.startsWith('Letta'))?.cells.metadata_poisoning).toBe(
      'n/a, no metadata filter on search',
    );
  });

  it('compares the verdict word per attack; an n/a on either side is not compared; unmapped targets are left out', () => {
    const comparison = compareFrontDoorWithAgmi(
      results(['mem0', 'mem0-py@2.2.1', 'reference-defended']),
      loadAgmiFrontDoor(),
    );
    expect(comparison.targets.map((target) => target.target)).toEqual(['mem0-py@2.2.1', 'reference-defended']);
    // mem0-py: injection agrees, bleed agrees, hijack differs (agmi surfaced 4 of 5). reference-defended: injection
    // agrees (agent-laundered only), bleed and hijack agree (kept out).
    expect(comparison.counts).toEqual({ both: 6, agree: 5, disagree: 1 });
    expect(comparison.targets[0]?.cells[2]).toEqual({
      attack: 'retrieval_hijack',
      status: 'disagree',
      ours: 'kept out (0 of 5 fell)',
      agmi: 'surfaced (4 of 5)',
    });
    expect(comparison.targets[0]?.cells[3]?.status).toBe('not-compared');
    expect(agmiFrontDoorMarkdown(comparison)).toContain(
      '- retrieval_hijack: **differs** — ours kept out (0 of 5 fell); agmi surfaced (4 of 5)',
    );
  });

  it('pnpm report adds agmi.md only when the run measured one of its rows', () => {
    expect(Object.keys(frontdoorSuiteReport.render(results(['reference'])))).toEqual([
      'scorecard.md',
      'scorecard.html',
      'scorecard.json',
    ]);
    expect(frontdoorSuiteReport.render(results(['reference-defended']))['agmi.md']).toContain('agree 3, disagree 0');
  });

  it('refuses a cell outside the verdict words, or an attack the table does not have, naming file and field', () => {
    const good = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', '..', 'data', 'agmi', 'front-door.json'), 'utf8'),
    );
    const bad = structuredClone(good);
    bad.rows[0].cells.memory_injection = 'leaked';
    bad.rows[1].cells.made_up = 'surfaced';
    const path = join(scratch, 'bad.json');
    writeFileSync(path, JSON.stringify(bad));
    expect(() => loadAgmiFrontDoor(path)).toThrow(/bad\.json[\s\S]*rows\[0\]\.cells\.memory_injection/);
    bad.rows[0].cells.memory_injection = 'surfaced';
    writeFileSync(path, JSON.stringify(bad));
    expect(() => loadAgmiFrontDoor(path)).toThrow(/rows\[1\]\.cells\.made_up: not one of the table's attacks/);
  });
});
