// Bad command lines: one clear error per problem, named by the flag the user typed, before anything runs.
import { mkdtempSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { specFromArgs } from './cli.js';
import { InvalidInputError } from '#core/errors.js';
import { nearestFlag } from './cli-flags.js';

function issuesOf(argv: string[]): { path: string; message: string }[] {
  try {
    specFromArgs(argv, {});
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return [...(error as InvalidInputError).issues];
  }
  throw new Error(`expected ${argv.join(' ')} to be refused`);
}

describe('bad flags', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'stalebench-cli-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a fractional or non-numeric count names the flag and the value (not "expected number, received string")', () => {
    expect(issuesOf(['--model', 'sim', '--trials', '2.5'])).toEqual([
      { path: '--trials', message: 'must be a whole number (got "2.5")' },
    ]);
    expect(issuesOf(['--model', 'sim', '-j', 'many'])).toEqual([
      { path: '--concurrency', message: 'must be a whole number (got "many")' },
    ]);
  });

  it('--request-timeout out of range is named in the seconds the user typed, not the milliseconds of the spec', () => {
    for (const value of ['0', '0.05', '7200'])
      expect(issuesOf(['--model', 'sim', '--request-timeout', value])).toEqual([
        { path: '--request-timeout', message: `must be 0.1 to 3600 seconds (got "${value}")` },
      ]);
    expect(specFromArgs(['--model', 'sim', '--request-timeout', '0.1'], {}).control.requestTimeoutMs).toBe(100);
    expect(specFromArgs(['--model', 'sim', '--request-timeout', '3600'], {}).control.requestTimeoutMs).toBe(3_600_000);
  });

  it('a negative count is a range error on the flag, not "argument is ambiguous"', () => {
    expect(issuesOf(['--model', 'sim', '--trials', '-3'])).toEqual([
      { path: '--trials', message: expect.stringMatching(/>=1/) },
    ]);
  });

  it('a missing --model says what to give, together with every other problem', () => {
    const issues = issuesOf(['--trials', '0', '--modes', 'sideways']);
    expect(issues.map((issue) => issue.path)).toEqual(['--model', '--modes', '--trials']);
    expect(issues[0]!.message).toMatch(/sim for the offline simulator/);
  });

  it('a misspelled flag suggests the nearest one; a stray word and a flag without value are named', () => {
    expect(issuesOf(['--model', 'sim', '--trails', '3'])).toEqual([
      { path: '--trails', message: expect.stringContaining('did you mean --trials?') },
    ]);
    expect(issuesOf(['--model', 'sim', '--sytems', 'graphiti'])[0]!.message).toContain('did you mean --systems?');
    expect(issuesOf(['--model', 'sim', '--zzzzzz'])[0]!.message).not.toContain('did you mean');
    expect(issuesOf(['--model', 'sim', 'stray'])).toEqual([
      { path: 'stray', message: expect.stringContaining('unexpected argument') },
    ]);
    expect(issuesOf(['--model', '--systems', 'graphiti'])).toEqual([
      { path: '--model', message: expect.stringContaining('needs a value') },
    ]);
  });

  it('an id listed twice in any list flag is refused, naming the flag the user typed (it planned every unit twice)', () => {
    const twice = (value: string) => `"${value}" is listed more than once; name each once`;
    expect(issuesOf(['--model', 'sim', '--model', 'sim,sim'])).toEqual([{ path: '--model', message: twice('sim') }]);
    expect(issuesOf(['--model', 'sim', '--systems', 'graphiti,mem0-exp,graphiti'])).toEqual([
      { path: '--systems', message: twice('graphiti') },
    ]);
    expect(issuesOf(['--model', 'sim', '--modes', 'direct,direct'])).toEqual([
      { path: '--modes', message: twice('direct') },
    ]);
    expect(issuesOf(['--model', 'sim', '--arms', 'none,guard,none'])).toEqual([
      { path: '--arms', message: twice('none') },
    ]);
    expect(issuesOf(['--model', 'sim', '--guard', 'off,off'])).toEqual([{ path: '--guard', message: twice('off') }]);
    const scenario = 'over_limit_financial_transfer';
    expect(issuesOf(['--model', 'sim', '--scenarios', `${scenario},${scenario}`])).toEqual([
      { path: '--scenarios', message: twice(scenario) },
    ]);
    expect(
      issuesOf(['--model', 'sim', '--experiment', 'forged-reasoning', '--forgeries', 'basic,judgment,basic']),
    ).toEqual([{ path: '--forgeries', message: twice('basic') }]);
    // Distinct lists parse as before.
    expect(specFromArgs(['--model', 'sim', '--systems', 'graphiti,mem0-exp', '--guard', 'off,on'], {}).systems).toEqual(
      ['graphiti', 'mem0-exp'],
    );
  });

  it('--out under a file is refused before anything is written', () => {
    const file = join(dir, 'runs.txt');
    writeFileSync(file, 'not a directory');
    expect(issuesOf(['--model', 'sim', '--out', join(file, 'x')])).toEqual([
      { path: '--out', message: `cannot create ${join(file, 'x')}: ${file} is a file, not a directory` },
    ]);
    expect(issuesOf(['--model', 'sim', '--out', file])).toEqual([
      { path: '--out', message: `${file} is a file, not a directory` },
    ]);
    expect(readdirSync(dir)).toEqual(['runs.txt']);
  });

  it('nearestFlag: swaps, typos and prefixes within distance 2', () => {
    const known = ['trials', 'systems', 'scenarios', 'scenario-dir', 'model'];
    expect(nearestFlag('trails', known)).toBe('trials');
    expect(nearestFlag('scenario', known)).toBe('scenarios');
    expect(nearestFlag('mdoel', known)).toBe('model');
    expect(nearestFlag('xyz', known)).toBeNull();
  });
});
