// SARIF 2.1.0 from any suite's failing cells (issue #31 item 3): one rule per scenario / edit / attack, one result per
// failing cell, a fingerprint of the cell's identity only, so the same finding matches itself across runs.
import { createHash } from 'node:crypto';
import type { SarifFinding } from '../pipeline/index.js';

/** The tool block. */
export interface SarifTool {
  /** `stalebench integrity`. */
  name: string;
  version: string;
}

const SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

/** sha256 of the suite, rule and identity (keys sorted): no time, run id or path enters it. */
function fingerprintOf(tool: SarifTool, finding: SarifFinding): string {
  const identity = Object.fromEntries(Object.entries(finding.identity).sort(([a], [b]) => a.localeCompare(b)));
  return createHash('sha256')
    .update(JSON.stringify({ tool: tool.name, rule: finding.ruleId, identity }))
    .digest('hex');
}

/** GitHub's `security-severity` (0–10) of a level: error → high, warning → medium, note → low. */
const SECURITY_SEVERITY: Record<SarifFinding['level'], string> = { error: '8.0', warning: '5.0', note: '2.0' };
const RANK: Record<SarifFinding['level'], number> = { error: 2, warning: 1, note: 0 };

/**
 * A SARIF 2.1.0 log of one run: rules in first-seen order, one result per finding. Every result has a location, as
 * GitHub code scanning requires: the run's results file (`source`, a repository-relative path or a file URI; its first
 * line, the file holding every cell) and a logical location naming the cell by its identity.
 *
 * @example writeFileSync('out.sarif', JSON.stringify(sarifLog(tool, findings, 'runs/x/summary.json'), null, 2));
 */
export function sarifLog(tool: SarifTool, findings: readonly SarifFinding[], source: string): object {
  const rules: SarifFinding[] = [];
  for (const finding of findings) {
    const index = rules.findIndex((rule) => rule.ruleId === finding.ruleId);
    if (index === -1) rules.push(finding);
    // A rule's default level and severity are its worst finding's; each result keeps its own level.
    else if (RANK[finding.level] > RANK[rules[index]!.level]) rules[index] = { ...rules[index]!, level: finding.level };
  }
  return {
    $schema: SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: tool.name,
            version: tool.version,
            rules: rules.map((rule) => ({
              id: rule.ruleId,
              name: rule.ruleName,
              shortDescription: { text: rule.ruleName },
              help: { text: rule.help },
              defaultConfiguration: { level: rule.level },
              properties: { tags: ['security'], 'security-severity': SECURITY_SEVERITY[rule.level] },
            })),
          },
        },
        results: findings.map((finding) => ({
          ruleId: finding.ruleId,
          ruleIndex: rules.findIndex((rule) => rule.ruleId === finding.ruleId),
          level: finding.level,
          message: { text: finding.message },
          locations: [
            {
              physicalLocation: { artifactLocation: { uri: source }, region: { startLine: 1 } },
              logicalLocations: [{ fullyQualifiedName: Object.values(finding.identity).join('/'), kind: 'resource' }],
            },
          ],
          partialFingerprints: { 'stalebench/v1': fingerprintOf(tool, finding) },
          properties: { identity: finding.identity },
        })),
      },
    ],
  };
}
