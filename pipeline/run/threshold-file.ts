// `--fail-on @<file>` (issue #31 item 2): the rules of a small text file, one per line, read the same way by
// `pnpm eval`, `pnpm integrity` and `pnpm frontdoor`, so a CI job keeps its thresholds in the repository.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { type InputIssue, InvalidInputError } from '#core/errors.js';
import { parseThresholds, type ThresholdSuite } from './thresholds.js';

/** The problems of one rule, each under `path` (`--fail-on`, or `<file>:<line>` for a line of a rule file). */
function ruleIssues(text: string, suite: ThresholdSuite, path: string): InputIssue[] {
  try {
    parseThresholds([text], suite);
    return [];
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    return error.issues.map((issue) => ({ path, message: issue.message }));
  }
}

/**
 * A suite's `failOn` argument (its zod schema): one of `keywords`, or rules, each checked against `gate` as `--fail-on`
 * checks it, so a bad rule is refused with the arguments, before any unit runs. A single rule given as a string (`pnpm
 * eval --suite integrity --fail-on 'edit=T9 accepted > 0'`) is a list of one.
 *
 * @example failOnArgument(['accepted', 'none'], INTEGRITY_GATE, 'accepted').parse('edit=T9 accepted > 0') // ['edit=T9 accepted > 0']
 */
export function failOnArgument<const K extends readonly [string, ...string[]]>(
  keywords: K,
  gate: ThresholdSuite,
  fallback: K[number],
) {
  return z
    .preprocess(
      (value) => (typeof value === 'string' && !keywords.includes(value) ? [value] : value),
      z.union([z.enum(keywords), z.array(z.string().min(1)).min(1).readonly()]),
    )
    .superRefine((value, context) => {
      if (typeof value === 'string') return;
      value.forEach((rule, index) => {
        for (const issue of ruleIssues(rule, gate, '--fail-on'))
          context.addIssue({ code: 'custom', path: [index], message: issue.message });
      });
    })
    .default(fallback);
}

/**
 * The `--fail-on` values with every `@<file>` replaced by the rules it holds, every rule checked against `suite`. A
 * rule file holds one rule per line, written as `--fail-on` takes it (a keyword, `none`, or
 * `[field=value …] metric[.low] > number`); blank lines and lines starting with `#` are skipped. Throws one
 * `InvalidInputError` listing every problem, a bad line as `<file>:<line>` with its reason, so nothing runs.
 *
 * @example expandFailOn(['@ci/thresholds.txt', 'unsafe > 0.5'], GRID_GATE) // ['system=graphiti unsafe.low > 0.1', 'unsafe > 0.5']
 */
export function expandFailOn(values: readonly string[], suite: ThresholdSuite, cwd = process.cwd()): string[] {
  const issues: InputIssue[] = [];
  const rules: string[] = [];
  for (const value of values) {
    if (!value.trimStart().startsWith('@')) {
      issues.push(...ruleIssues(value, suite, '--fail-on'));
      rules.push(value.trim());
      continue;
    }
    const file = value.trimStart().slice(1).trim();
    if (file === '') {
      issues.push({ path: '--fail-on', message: '"@" names no file (--fail-on @<file>)' });
      continue;
    }
    let text: string;
    try {
      text = readFileSync(resolve(cwd, file), 'utf8');
    } catch (error) {
      issues.push({ path: file, message: `cannot read the rule file: ${(error as Error).message}` });
      continue;
    }
    const before = rules.length;
    text.split(/\r?\n/).forEach((raw, index) => {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) return;
      const at = `${file}:${index + 1}`;
      if (line.startsWith('@')) issues.push({ path: at, message: `"${line}": a rule file cannot name another` });
      else {
        issues.push(...ruleIssues(line, suite, at));
        rules.push(line);
      }
    });
    if (rules.length === before) issues.push({ path: file, message: 'holds no rule (write none to gate nothing)' });
  }
  if (issues.length > 0) throw new InvalidInputError('--fail-on', issues);
  return rules;
}
