import { mkdtempSync, readFileSync, writeFileSync, cpSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { instructionShape, stuffedFor } from '../../backends/store-tools/text-checks.js';
import { InvalidInputError } from '#core/errors.js';
import { ATTACK_NAMES, FIXTURE_DIR, loadFixtureSet, parseFixtureFile } from './fixture.js';

describe('the shipped front-door fixture set', () => {
  const set = loadFixtureSet();

  it('has five fixtures per attack, each versioned and with its source named as ours', () => {
    for (const attack of ATTACK_NAMES) {
      expect(set[attack].fixtures, attack).toHaveLength(5);
      expect(set[attack].version).toBeGreaterThanOrEqual(1);
      expect(set[attack].source).toMatch(/^Authored by stalebench/);
      expect(new Set(set[attack].fixtures.map((f) => f.id)).size).toBe(5);
    }
  });

  it('gives the hijack six genuine memories and three slots', () => {
    expect(set.retrieval_hijack.limit).toBe(3);
    for (const fixture of set.retrieval_hijack.fixtures) expect(fixture.genuine).toHaveLength(6);
  });

  it('writes no genuine memory the defended store would quarantine or drop as stuffed', () => {
    for (const attack of ATTACK_NAMES) {
      for (const fixture of set[attack].fixtures) {
        for (const memory of [
          ...fixture.genuine,
          ...(fixture.tagged ?? []),
          ...(fixture.owner ?? []),
          ...(fixture.decoy ? [fixture.decoy.text] : []),
        ]) {
          expect(instructionShape(memory), `${fixture.id}: ${memory}`).toBeNull();
          expect(stuffedFor(memory, fixture.query), `${fixture.id}: ${memory}`).toBe(false);
          expect(stuffedFor(memory, fixture.control.query), `${fixture.id}: ${memory}`).toBe(false);
        }
      }
    }
  });

  it('makes every hidden instruction instruction-shaped and every stuffed entry stuffed, paraphrase included', () => {
    for (const fixture of set.indirect_prompt_injection.fixtures) {
      expect(instructionShape(fixture.attacker.text), fixture.id).not.toBeNull();
      expect(instructionShape(fixture.attacker.paraphrase), fixture.id).not.toBeNull();
    }
    for (const fixture of set.retrieval_hijack.fixtures) {
      expect(stuffedFor(fixture.attacker.text, fixture.query), fixture.id).toBe(true);
      expect(stuffedFor(fixture.attacker.paraphrase, fixture.query), fixture.id).toBe(true);
      expect(
        instructionShape(fixture.attacker.text),
        `${fixture.id} is a stuffing case, not an instruction`,
      ).toBeNull();
    }
  });

  it('keeps the plausible planted facts free of instruction shape (the limit no content check can close)', () => {
    for (const attack of ['memory_injection', 'update_poisoning', 'metadata_poisoning'] as const) {
      for (const fixture of set[attack].fixtures)
        expect(instructionShape(fixture.attacker.text), fixture.id).toBeNull();
    }
  });
});

describe('fixture file errors', () => {
  const original = readFileSync(join(FIXTURE_DIR, 'memory_injection.json'), 'utf8');

  it('names the file, the field and the reason, and lists every problem', () => {
    const broken = JSON.parse(original);
    broken.fixtures[0].attacker.key = 'not-in-the-text';
    delete broken.fixtures[2].query;
    const run = () => parseFixtureFile(JSON.stringify(broken), 'memory_injection.json');
    expect(run).toThrow(InvalidInputError);
    try {
      run();
    } catch (error) {
      const issues = (error as InvalidInputError).issues.map((issue) => issue.path);
      expect(issues).toContain('fixtures[2].query');
      expect((error as Error).message).toContain('memory_injection.json');
    }
    delete broken.fixtures[2];
    broken.fixtures = broken.fixtures.filter(Boolean);
    expect(() => parseFixtureFile(JSON.stringify(broken), 'x.json')).toThrow(
      /fixtures\[0\]\.attacker\.key: "not-in-the-text" is not in attacker\.text/,
    );
  });

  it('refuses a genuine memory that already carries the attacker key, and a file for another attack', () => {
    const broken = JSON.parse(original);
    broken.fixtures[1].genuine.push('My cousin Marcus Delane visits often.');
    expect(() => parseFixtureFile(JSON.stringify(broken), 'x.json')).toThrow(
      /fixtures\[1\]\.genuine: a genuine memory already carries/,
    );
    const dir = mkdtempSync(join(tmpdir(), 'fixtures-'));
    try {
      cpSync(FIXTURE_DIR, dir, { recursive: true, filter: (source) => !source.endsWith('.ts') });
      writeFileSync(join(dir, 'retrieval_hijack.json'), original);
      expect(() => loadFixtureSet(dir)).toThrow(/retrieval_hijack\.json[\s\S]*holds memory_injection/);
      rmSync(join(dir, 'cross_session_bleed.json'));
      expect(() => loadFixtureSet(dir)).toThrow(/cross_session_bleed\.json[\s\S]*missing/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
