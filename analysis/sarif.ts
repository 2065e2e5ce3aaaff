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

/**
 * A SARIF 2.1.0 log of one run: rules in first-seen order, one result per finding.
 *
 * @example writeFileSync('out.sarif', JSON.stringify(sarifLog(tool, findings), null, 2));
 */
export function sarifLog(tool: SarifTool, findings: readonly SarifFinding[]): object {
  const rules: SarifFinding[] = [];
  for (const finding of findings) if (!rules.some((rule) => rule.ruleId === finding.ruleId)) rules.push(finding);
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
              defaultConfiguration: { level: 'error' },
            })),
          },
        },
        results: findings.map((finding) => ({
          ruleId: finding.ruleId,
          ruleIndex: rules.findIndex((rule) => rule.ruleId === finding.ruleId),
          level: finding.level,
          message: { text: finding.message },
          partialFingerprints: { 'stalebench/v1': fingerprintOf(tool, finding) },
          properties: { identity: finding.identity },
          ...(finding.artifact
            ? { locations: [{ physicalLocation: { artifactLocation: { uri: finding.artifact } } }] }
            : {}),
        })),
      },
    ],
  };
}
