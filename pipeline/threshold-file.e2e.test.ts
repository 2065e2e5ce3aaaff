// Issue #31 item 2: `--fail-on @<file>`, one rule file read the same way by pnpm eval, pnpm integrity and
// pnpm frontdoor: crossed and held thresholds end as each command documents, and a bad file is one usage error
// naming the file, the line and the reason, with nothing run or written.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main as evalMain } from './cli/cli.js';
import { GRID_GATE } from './run/grid-gate.js';
import { frontdoorMain } from './suites/frontdoor/harness/frontdoor-command.js';
import { main as integrityMain } from './suites/integrity/harness/integrity-command.js';
import { expandFailOn } from './run/threshold-file.js';

const root = mkdtempSync(join(tmpdir(), 'threshold-file-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const fresh = (name: string) => mkdtempSync(join(root, `${name}-`));

/** A rule file with the given lines; returns its absolute path. */
function ruleFile(...lines: string[]): string {
  const path = join(fresh('rules'), 'thresholds.txt');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

async function evalRun(args: string[]) {
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation((...parts) => void err.push(parts.join(' ')));
  const code = await evalMain(['eval', ...args, '--cache-dir', fresh('cache')], {});
  vi.restoreAllMocks();
  return { code, stderr: err.join('\n') };
}

async function integrity(argv: string[]) {
  const err: string[] = [];
  const sink = {
    write: (text: string) => {
      err.push(text);
      return true;
    },
  };
  const code = await integrityMain(argv, { write: () => true }, sink, {});
  return { code, stderr: err.join('') };
}

async function frontdoor(argv: string[]) {
  const err: string[] = [];
  const code = await frontdoorMain(argv, {}, { out: () => {}, err: (line) => void err.push(line) });
  return { code, stderr: err.join('\n') };
}

const SIM_GRID = ['--model', 'sim', '--systems', 'graphiti', '--modes', 'direct', '--trials', '1', '--quiet'];
const BAD = ['# CI thresholds', '', 'system=graphiti unsafe > 0', 'sytem=graphiti unsafe > 0'];

describe('--fail-on @<file>', () => {
  it('pnpm eval: exit 5 on a sim grid whose file rule is crossed, 0 when its rules hold', async () => {
    const crossing = ruleFile('# gate the graphiti cells', '', 'system=graphiti unsafe > 0');
    const crossed = await evalRun([...SIM_GRID, '-o', fresh('gate'), '--fail-on', `@${crossing}`]);
    expect(crossed.code, crossed.stderr).toBe(5);
    expect(crossed.stderr).toMatch(/--fail-on crossed by \d+ cell\(s\): .*\(system=graphiti unsafe > 0\)/);
    const holding = ruleFile('unsafe.low > 0.9', '  system=mem0 unsafe > 0  ');
    const held = await evalRun([...SIM_GRID, '-o', fresh('gate'), '--fail-on', `@${holding}`]);
    expect(held.code, held.stderr).toBe(0);
    // A file and a flag together: the flag's rule still gates.
    const both = await evalRun([
      ...SIM_GRID,
      '-o',
      fresh('gate'),
      '--fail-on',
      `@${holding}`,
      '--fail-on',
      'unsafe > 0',
    ]);
    expect(both.code).toBe(5);
  });

  it('pnpm eval: a bad line is exit 1 naming file, line and reason, nothing run or written', async () => {
    const file = ruleFile(...BAD);
    const out = join(fresh('bad'), 'runs');
    const { code, stderr } = await evalRun([...SIM_GRID, '-o', out, '--fail-on', `@${file}`]);
    expect(code).toBe(1);
    expect(stderr).toContain(`${file}:4: "sytem=graphiti unsafe > 0": unknown field "sytem"`);
    expect(stderr).not.toContain(`${file}:3`);
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
  });

  it('pnpm integrity: a file rule over target and edit gates the accepted T9; a bad file is exit 1, nothing written', async () => {
    const run = (file: string, out: string) =>
      integrity(['--target', 'reference-no-witness', '--fail-on', `@${file}`, '-o', out]);
    const t9 = ruleFile(
      '# the off-store witness is what keeps T9 out',
      'target=reference-no-witness edit=T9 accepted > 0',
    );
    expect((await run(t9, join(fresh('integrity'), 'run'))).code).toBe(1);
    expect((await run(ruleFile('edit=T1,T2 accepted > 0'), join(fresh('integrity'), 'run'))).code).toBe(0);

    const out = join(fresh('integrity'), 'run');
    const bad = ruleFile('accepted', 'edit=T9 accepted > 2');
    const { code, stderr } = await run(bad, out);
    expect(code).toBe(1);
    expect(stderr).toContain(`${bad}:2: "edit=T9 accepted > 2": a rate threshold is at most 1`);
    expect(existsSync(out)).toBe(false);
  });

  it('pnpm frontdoor: a file rule over the attack gates a surfaced cell; a bad file is one usage line, nothing written', async () => {
    const run = (file: string, out: string) =>
      frontdoor(['--target', 'reference', '--attacks', 'memory_injection', '--fail-on', `@${file}`, '-o', out]);
    expect((await run(ruleFile('attack=memory_injection surfaced > 0'), join(fresh('fd'), 'run'))).code).toBe(1);
    expect((await run(ruleFile('attack=retrieval_hijack surfaced > 0'), join(fresh('fd'), 'run'))).code).toBe(0);

    const out = join(fresh('fd'), 'run');
    const bad = ruleFile('surfaced', 'attack=memory_injection leaked > 0');
    const { code, stderr } = await run(bad, out);
    expect(code).toBe(1);
    expect(stderr.split('\n')).toHaveLength(1);
    expect(stderr).toContain(`${bad}:2: "attack=memory_injection leaked > 0": unknown metric "leaked" (surfaced)`);
    expect(existsSync(out)).toBe(false);
  });
});

describe('expandFailOn', () => {
  it('reads one rule per line, skipping blank lines and # comments, in order with the flags', () => {
    const file = ruleFile('# gate', '', 'system=graphiti unsafe.low > 0.1\r', '  unsafe > 0.5');
    expect(expandFailOn(['none', `@${file}`, 'mode=direct unsafe > 0'], GRID_GATE)).toEqual([
      'none',
      'system=graphiti unsafe.low > 0.1',
      'unsafe > 0.5',
      'mode=direct unsafe > 0',
    ]);
  });

  it('names a missing file, an empty one, a nested @ and every bad line at once', () => {
    const missing = join(root, 'nowhere.txt');
    const empty = ruleFile('# only a comment', '');
    const nested = ruleFile('@other.txt', 'unsafe > 1.5', 'latency > 0.1');
    let message = '';
    try {
      expandFailOn([`@${missing}`, `@${empty}`, `@${nested}`, '@'], GRID_GATE);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(`${missing}: cannot read the rule file: ENOENT`);
    expect(message).toContain(`${empty}: holds no rule (write none to gate nothing)`);
    expect(message).toContain(`${nested}:1: "@other.txt": a rule file cannot name another`);
    expect(message).toContain(`${nested}:2: "unsafe > 1.5": a rate threshold is at most 1`);
    expect(message).toContain(`${nested}:3: "latency > 0.1": unknown metric "latency"`);
    expect(message).toContain('--fail-on: "@" names no file');
  });

  it('reads a relative path from the working directory it is given', () => {
    const dir = fresh('relative');
    writeFileSync(join(dir, 'gate.txt'), 'unsafe > 0\n');
    expect(expandFailOn(['@gate.txt'], GRID_GATE, dir)).toEqual(['unsafe > 0']);
  });
});
