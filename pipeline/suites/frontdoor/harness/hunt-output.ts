// What the hunt leaves behind: a printed summary with the exact steps, the report as JSON, and each proven landing as
// a candidate fixture file in the shipped fixture format (validated before it is written).
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseFixtureFile, type AttackName, type FixtureFile } from '../../../../scenarios/frontdoor/fixture.js';
import { findingSteps, type Finding, type HuntReport } from './hunt.js';
import { makeDirectory } from '#core/make-directory.js';

/** The candidate fixture file of one finding: the fixture as it landed, the attacker's writes as made. */
function candidateFixture(finding: Finding, file: FixtureFile, target: string, date: string): FixtureFile {
  const fixture = file.fixtures[finding.fixtureIndex]!;
  const parts = finding.writes.length > 1 ? { parts: finding.writes } : {};
  return {
    ...file,
    source: `Found by pnpm frontdoor --hunt --target ${target} on ${date}: a landing on the ${finding.channel} channel with the ${finding.variant} variant (attempt ${finding.attempt}), proven by a replay. A candidate, not yet adopted into the shipped set.`,
    fixtures: [
      {
        ...fixture,
        id: `${fixture.id}-found-${finding.channel}-${finding.variant}`,
        attacker: { ...fixture.attacker, text: finding.writes.join(' '), ...parts },
      },
    ],
  };
}

/** Writes `hunt-<target>.json` and `candidates/*.json` under `outDir`; returns the paths of the candidates. */
export function writeHuntOutputs(
  report: HuntReport,
  fixtures: Record<AttackName, FixtureFile>,
  outDir: string,
  date: string,
): string[] {
  const candidates = join(outDir, 'candidates');
  makeDirectory(candidates);
  const paths: string[] = [];
  for (const finding of report.findings) {
    const attack = finding.attack.split('@')[0] as AttackName;
    const candidate = candidateFixture(finding, fixtures[attack], report.target, date);
    const path = join(candidates, `${candidate.fixtures[0]!.id}.${report.target}.json`);
    const json = `${JSON.stringify(candidate, null, 2)}\n`;
    parseFixtureFile(json, path); // a candidate the loader would refuse is a harness bug: fail here, not later
    writeAtomic(path, json);
    paths.push(path);
  }
  const withSteps = {
    ...report,
    findings: report.findings.map((finding) => ({ ...finding, reproduction: findingSteps(finding) })),
  };
  writeAtomic(join(outDir, `hunt-${report.target}.json`), `${JSON.stringify(withSteps, null, 2)}\n`);
  return paths;
}

/** The summary the command prints. */
export function huntSummary(
  report: HuntReport,
  authorisation: readonly string[],
  candidates: readonly string[],
): string {
  const lines = [
    `hunt on ${report.target} (${report.version})`,
    ...authorisation.map((line) => `  authorised: ${line}`),
    `attempts: ${report.attempts}`,
    `findings: ${report.findings.length}`,
  ];
  for (const finding of report.findings) {
    lines.push(
      '',
      `${finding.attack}: landed at attempt ${finding.attempt} on ${finding.channel} with ${finding.variant} (fixture ${finding.fixtureId}, rank ${finding.rank}; replay rank ${finding.replayRank})`,
    );
    lines.push(...findingSteps(finding).map((step) => `  ${step}`));
  }
  for (const miss of report.misses)
    lines.push('', `${miss.attack}: no landing in ${miss.attempts} attempts (${miss.outcome})`);
  if (candidates.length > 0) lines.push('', 'candidate fixtures:', ...candidates.map((path) => `  ${path}`));
  return lines.join('\n');
}

function writeAtomic(path: string, text: string): void {
  writeFileSync(`${path}.${process.pid}.tmp`, text);
  renameSync(`${path}.${process.pid}.tmp`, path);
}
