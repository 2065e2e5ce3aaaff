// `pnpm eval --suite <id>` is the same run as the suite's own command: integrity and front door given only their
// targets get the defaults their commands take (same spec, same run id), edits spelled as on the command line, and
// a flag of the command spelled on the generic entry point is answered with the one meant.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { frontdoorMain } from '../suites/frontdoor/harness/frontdoor-command.js';
import { createFrontdoorSuite, frontdoorArgs } from '../suites/frontdoor/suite.js';
import { main as integrityMain } from '../suites/integrity/harness/integrity-command.js';
import { integrityArgs } from '../suites/integrity/suite.js';
import { suiteCommand } from './suite-command.js';

/** What a command printed, and its exit code. */
async function printed(run: (out: (line: string) => void, err: (line: string) => void) => Promise<number>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(
    (line) => out.push(line),
    (line) => err.push(line),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}
const runDirOf = (text: string) => /run directory: (\S+)/.exec(text)?.[1] ?? '';
const unitsOf = (text: string) => [...text.matchAll(/^ {2}(\S+)$/gm)].map((match) => match[1]);

const viaEval = (argv: string[]) =>
  printed((out, err) => suiteCommand([...argv, '--dry-run'], {}, { out, err, root: process.cwd() }));

describe('pnpm eval --suite integrity', () => {
  it('with only --targets is the run pnpm integrity --target makes: every edit, fail on accepted, same run id', async () => {
    const generic = await viaEval(['--suite', 'integrity', '--targets', 'reference']);
    const own = await printed((out, err) =>
      integrityMain(
        ['--target', 'reference', '--dry-run'],
        { write: (t) => void out(t) },
        { write: (t) => void err(t) },
      ),
    );
    expect(generic.code, generic.err).toBe(0);
    expect(own.code, own.err).toBe(0);
    // The same directory, not only the same run id: either command resumes what the other began.
    expect(runDirOf(generic.out)).toBe(join(process.cwd(), 'runs', 'integrity', basename(runDirOf(generic.out))));
    expect(basename(runDirOf(generic.out))).toMatch(/^integrity_[0-9a-f]{8}$/);
    expect(runDirOf(generic.out)).toBe(runDirOf(own.out));
    expect(unitsOf(generic.out)).toEqual(unitsOf(own.out));
    expect(unitsOf(generic.out)).toHaveLength(9);
  });

  it('reads edits as the command line spells them, and refuses a variant that does not exist, naming it', async () => {
    expect(integrityArgs.parse({ targets: ['reference'], edits: ['T3', 't8:unrevoke'] }).edits).toEqual([
      { edit: 'T3', variant: null },
      { edit: 'T8', variant: 'unrevoke' },
    ]);
    const refused = await viaEval(['--suite', 'integrity', '--targets', 'reference', '--edits', 'T3:unrevoke']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('--edits[0]: a variant exists only as T8:unrevoke');
    expect(refused.out).toBe('');
  });

  it('refuses a target or edit listed twice with one line naming it, not a stack trace; nothing written', async () => {
    const targets = await viaEval(['--suite', 'integrity', '--targets', 'reference,mem0,reference', '--edits', 'T1']);
    expect(targets.code).toBe(1);
    expect(targets.err).toContain('--targets[2]: "reference" is listed more than once; name each once');
    expect(targets.err).not.toMatch(/\bat \w+ \(/);
    expect(targets.out).toBe('');
    const edits = await viaEval([
      '--suite',
      'integrity',
      '--targets',
      'reference',
      '--edits',
      'T8:unrevoke,t8:unrevoke',
    ]);
    expect(edits.code).toBe(1);
    expect(edits.err).toContain('--edits[1]: T8:unrevoke is listed more than once; name each once');
  });

  it('checks --fail-on rules with the arguments, as pnpm integrity does: one rule is the same run, a bad one refused', async () => {
    const rule = 'edit=T9 accepted > 0';
    const generic = await viaEval(['--suite', 'integrity', '--targets', 'reference', '--fail-on', rule]);
    const own = await printed((out, err) =>
      integrityMain(
        ['--target', 'reference', '--fail-on', rule, '--dry-run'],
        { write: (t) => void out(t) },
        { write: (t) => void err(t) },
      ),
    );
    expect(generic.code, generic.err).toBe(0);
    expect(runDirOf(generic.out)).toBe(runDirOf(own.out));
    // A rule that cannot be read is refused before anything runs (it used to fail the exit rule after every cell ran).
    for (const argv of [
      ['--fail-on', 'bogus'],
      ['--args', '{"failOn":["garbage rule"]}'],
    ]) {
      const refused = await viaEval(['--suite', 'integrity', '--targets', 'reference', ...argv]);
      expect(refused.code, argv.join(' ')).toBe(1);
      expect(refused.err).toMatch(/--fail-on\[0\]: "(bogus|garbage rule)" is not accepted, none or/);
      expect(refused.out).toBe('');
    }
  });

  it('refuses a misspelt --args key by name instead of running the default for it; nothing planned', async () => {
    for (const [suite, args] of [
      ['integrity', '{"targets":["reference"],"edit":["T6"]}'],
      ['frontdoor', '{"targets":["reference"],"attack":["retrieval_hijack"]}'],
    ] as const) {
      const refused = await viaEval(['--suite', suite, '--args', args]);
      expect(refused.code, suite).toBe(1);
      expect(refused.err, suite).toMatch(new RegExp(`--suite ${suite}: Unrecognized key: "(edit|attack)"`));
      expect(refused.out, suite).toBe('');
    }
  });

  it("answers pnpm integrity's --target with the flag meant", async () => {
    const wrong = await viaEval(['--suite', 'integrity', '--target', 'reference']);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/Unknown option '--target'.*; did you mean --targets\?$/);
  });
});

describe('pnpm eval --suite frontdoor', () => {
  it('with only --targets is the run pnpm frontdoor --target makes, the built-in fixtures bound by their hash', async () => {
    const generic = await viaEval(['--suite', 'frontdoor', '--targets', 'reference']);
    const own = await printed((out, err) => frontdoorMain(['--target', 'reference', '--dry-run'], {}, { out, err }));
    expect(generic.code, generic.err).toBe(0);
    expect(own.code, own.err).toBe(0);
    expect(runDirOf(generic.out)).toBe(join(process.cwd(), 'runs', 'frontdoor', basename(runDirOf(generic.out))));
    expect(basename(runDirOf(generic.out))).toMatch(/^frontdoor_[0-9a-f]{8}$/);
    expect(runDirOf(generic.out)).toBe(runDirOf(own.out));
    expect(unitsOf(generic.out)).toEqual(unitsOf(own.out));
    expect(frontdoorArgs.parse({ targets: ['reference'] }).fixtures).toEqual({
      dir: null,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('--fixtures DIR is read and hashed as pnpm frontdoor --fixtures DIR does: the same run; a missing set is refused', async () => {
    const dir = join('scenarios', 'frontdoor');
    const generic = await viaEval(['--suite', 'frontdoor', '--targets', 'reference', '--fixtures', dir]);
    const own = await printed((out, err) =>
      frontdoorMain(['--target', 'reference', '--fixtures', dir, '--dry-run'], {}, { out, err }),
    );
    expect(generic.code, generic.err).toBe(0);
    expect(own.code, own.err).toBe(0);
    expect(runDirOf(generic.out)).toBe(runDirOf(own.out));
    // Another directory is another run (the directory as given is part of the identity), with the same content hash.
    const builtIn = await viaEval(['--suite', 'frontdoor', '--targets', 'reference']);
    expect(runDirOf(generic.out)).not.toBe(runDirOf(builtIn.out));
    expect(frontdoorArgs.parse({ targets: ['reference'], fixtures: dir }).fixtures).toEqual({
      dir,
      sha256: frontdoorArgs.parse({ targets: ['reference'] }).fixtures.sha256,
    });
    const missing = await viaEval(['--suite', 'frontdoor', '--targets', 'reference', '--fixtures', 'no/such/dir']);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/--fixtures: cannot read the fixture set: .*no\/such\/dir/);
    expect(missing.out).toBe('');
  });

  it('refuses a target, attack or channel listed twice, naming it', async () => {
    for (const [flag, value, twice] of [
      ['--targets', 'reference,reference', 'reference'],
      ['--attacks', 'memory_injection,memory_injection', 'memory_injection'],
      ['--channels', 'external,laundered,external', 'external'],
    ] as const) {
      const argv = ['--suite', 'frontdoor', ...(flag === '--targets' ? [] : ['--targets', 'reference']), flag, value];
      const refused = await viaEval(argv);
      expect(refused.code, argv.join(' ')).toBe(1);
      expect(refused.err).toMatch(new RegExp(`${flag}\\[\\d\\]: "${twice}" is listed more than once`));
    }
  });

  it('refuses, before any unit, a fixture set that does not hash to the one the run is bound to', async () => {
    const suite = createFrontdoorSuite({ env: {} });
    const args = frontdoorArgs.parse({ targets: ['reference'], fixtures: { dir: null, sha256: '0'.repeat(64) } });
    await expect(suite.setup!(args, () => undefined)).rejects.toThrow(
      /fixture set hashes to [0-9a-f]{12}…, not the run's 000000000000…: it changed since the run started/,
    );
  });
});

describe('pnpm eval --suite with a target no registry line names', () => {
  it('is refused with the arguments, naming the available ids, before a run directory exists', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'suite-unknown-target-'));
    try {
      for (const suite of ['integrity', 'frontdoor']) {
        const runDir = join(scratch, suite);
        const refused = await printed((out, err) =>
          suiteCommand(
            ['--suite', suite, '--targets', 'reference,nope', '-o', runDir],
            {},
            { out, err, root: scratch },
          ),
        );
        expect(refused.code, suite).toBe(1);
        expect(refused.err).toMatch(/--targets\[1\]: unknown target "nope"; available: .*\breference\b/);
        expect(existsSync(runDir), `${suite} wrote ${runDir}`).toBe(false);
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('pnpm eval --suite -o FILE', () => {
  it('is one line naming the file, not a stack trace from opening the lock inside it', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'suite-out-file-'));
    try {
      const file = join(scratch, 'results.txt');
      writeFileSync(file, 'not a directory');
      const refused = await printed((out, err) =>
        suiteCommand(['--suite', 'integrity', '--targets', 'reference', '-o', file], {}, { out, err, root: scratch }),
      );
      expect(refused.code).toBe(1);
      expect(refused.err).toMatch(/results\.txt[\s\S]*is a file, not a directory/);
      expect(refused.err).not.toMatch(/ENOTDIR|\bat \w+ \(/);
      expect(readFileSync(file, 'utf8')).toBe('not a directory');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('pnpm eval --suite integrity --sarif FILE', () => {
  it('writes the SARIF pnpm integrity --sarif writes for the same run (the suite’s ci findings)', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'suite-sarif-'));
    try {
      const viaSuite = await printed((out, err) =>
        suiteCommand(
          ['--suite', 'integrity', '--targets', 'reference-no-witness', '--edits', 'T9', '--sarif', 'eval.sarif'],
          {},
          { out, err, root: scratch },
        ),
      );
      expect(viaSuite.code, viaSuite.err).toBe(1);
      const viaCommand = await integrityMain(
        ['--target', 'reference-no-witness', '--edits', 'T9', '--sarif', join(scratch, 'integrity.sarif')],
        { write: () => true },
        { write: () => true },
        {},
        { root: scratch },
      );
      expect(viaCommand).toBe(1);
      const results = (file: string) =>
        (JSON.parse(readFileSync(join(scratch, file), 'utf8')) as { runs: { results: { ruleId: string }[] }[] })
          .runs[0]!.results;
      expect(results('eval.sarif').map((result) => result.ruleId)).toEqual(['integrity/T9']);
      // The same run directory (same spec), so the same results located at the same summary.json.
      expect(results('eval.sarif')).toEqual(results('integrity.sarif'));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
