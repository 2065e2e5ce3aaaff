// Documentation where the code is (issue #27 item 6): a short README.md that links each suite's own README, and no
// relative link in any Markdown file of the repository that points at nothing.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
/** The issue asks for "at most ~200 lines"; the slack is for the merge's one-liners. */
const README_MAX_LINES = 210;
/** Each suite's manual, in the folder where its code lives. */
const SUITE_READMES = [
  'pipeline/README.md',
  'pipeline/suites/grid/README.md',
  'pipeline/suites/follow-ups/README.md',
  'pipeline/suites/forged-reasoning/README.md',
  'pipeline/suites/integrity/README.md',
  'pipeline/suites/frontdoor/README.md',
];
/** The commands CI and a fresh machine run (`.ci/run` runs the README's test command). */
const FRESH_MACHINE_COMMANDS = [
  'bash .ci/install && pnpm eval --model sim',
  'bash .ci/install && pnpm test && pnpm test:servers && pnpm stores install --all && pnpm test:stores',
];

/** Every Markdown file under `dir` (relative to the repository root), skipping dependencies, caches and runs. */
function markdownFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      return entry.name.startsWith('.') || ['node_modules', 'runs'].includes(entry.name) ? [] : markdownFiles(path);
    }
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings (outside code fences). */
function anchors(text: string): Set<string> {
  const found = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.trimStart().startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (heading?.[1] !== undefined) found.add(anchorOf(heading[1]));
  }
  return found;
}

/** Relative link targets of a Markdown file (`[text](target)`, outside code spans and fences), with their line. */
function relativeLinks(text: string): { line: number; target: string }[] {
  const links: { line: number; target: string }[] = [];
  let fenced = false;
  text.split('\n').forEach((line, index) => {
    if (line.trimStart().startsWith('```')) fenced = !fenced;
    if (fenced) return;
    const prose = line.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] ?? '';
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ line: index + 1, target });
    }
  });
  return links;
}

/** Every relative link of `file` that does not resolve to an existing file (and heading, for `#anchor`). */
function brokenLinks(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return relativeLinks(text).flatMap(({ line, target }) => {
    const [path = '', anchor] = target.split('#');
    const resolved = path === '' ? file : relative(ROOT, join(ROOT, dirname(file), path));
    const where = `${file}:${line}: ${target}`;
    if (resolved.startsWith('..') || !existsSync(join(ROOT, resolved))) return [`${where} (no file ${resolved})`];
    if (anchor === undefined || !resolved.endsWith('.md')) return [];
    return anchors(readFileSync(join(ROOT, resolved), 'utf8')).has(anchor) ? [] : [`${where} (no heading #${anchor})`];
  });
}

describe('documentation where the code is', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it(`keeps README.md at most ${README_MAX_LINES} lines`, () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('links every suite README from README.md, and each exists', () => {
    const linked = relativeLinks(readme).map(({ target }) => target.split('#')[0]);
    for (const suite of SUITE_READMES) {
      expect(existsSync(join(ROOT, suite)), suite).toBe(true);
      expect(linked, suite).toContain(suite);
    }
  });

  it('keeps the fresh-machine commands in README.md', () => {
    for (const command of FRESH_MACHINE_COMMANDS) expect(readme).toContain(`\n${command}\n`);
    expect(readFileSync(join(ROOT, '.ci', 'run'), 'utf8')).toMatch(
      /bash \.ci\/install\npnpm test\n(#.*\n)*pnpm test:servers\n(#.*\n)*pnpm stores install --all\npnpm test:stores\n/,
    );
  });

  it('finds the Markdown files it checks, and a link that points at nothing', () => {
    expect(markdownFiles('')).toEqual(expect.arrayContaining(['README.md', ...SUITE_READMES]));
    expect(relativeLinks('see [a](missing.md), `[b](code.md)`, [c](https://x.org) and [d](#here)')).toEqual([
      { line: 1, target: 'missing.md' },
      { line: 1, target: '#here' },
    ]);
    expect(anchors('# A title\n```\n# not a heading\n```\n## `--taint` (on, off)')).toEqual(
      new Set(['a-title', '--taint-on-off']),
    );
  });

  it('resolves every relative link in every Markdown file', () => {
    expect(markdownFiles('').flatMap(brokenLinks)).toEqual([]);
  });
});
