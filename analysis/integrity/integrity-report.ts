// Renders an at-rest integrity measurement (integrity.md §7.3): the `--json` shape and the full Markdown report.
import type { CellResult, IntegrityMetric, IntegrityReport, TargetResult } from '../../pipeline/index.js';

/** The `--json` document: `{"targets":[{"id","version","config","cells":[…],"metric"}]}`. */
export interface IntegrityJson {
  targets: {
    id: string;
    version: string;
    config: Record<string, string>;
    /** Present when the target declares its process position (`alive`, or `restarted` explicitly). */
    position?: TargetResult['description']['position'];
    cells: Pick<
      CellResult,
      'edit' | 'verdict' | 'detection' | 'reason' | 'attack' | 'variant' | 'controls' | 'form' | 'commands'
    >[];
    metric: IntegrityMetric;
  }[];
}

/** The `--json` shape: per cell the verdict, detection point and reason, plus the attack version, C1–C3 and the commands. */
export function integrityJson(report: Pick<IntegrityReport, 'targets'>): IntegrityJson {
  return {
    targets: report.targets.map((target) => ({
      id: target.id,
      version: target.version,
      config: target.config,
      ...(target.description.position ? { position: target.description.position } : {}),
      cells: target.cells.map(({ edit, verdict, detection, reason, attack, variant, controls, form, commands }) => ({
        edit,
        verdict,
        detection,
        reason,
        attack,
        variant,
        controls,
        form,
        commands,
      })),
      metric: target.metric,
    })),
  };
}

const cellName = (cell: CellResult): string => (cell.variant ? `${cell.edit}:${cell.variant}` : cell.edit);
const escapeCell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const mark = (ok: boolean | null): string => (ok === null ? '–' : ok ? 'ok' : 'FAIL');
const percent = (value: number | null): string => (value === null ? 'not computed' : value.toFixed(3));

/** `rejected (read)`, `reported (audit)`, `accepted`, `n/a`, … */
export function verdictText(cell: CellResult): string {
  return cell.detection ? `${cell.verdict} (${cell.detection})` : cell.verdict;
}

/** How the system stood during the edits, for the report and the scorecard (integrity.md §2.3, §7.3). */
function positionText(description: TargetResult['description']): string {
  return description.position === 'alive'
    ? 'the system stayed up across every edit, and the read and the audit ran in that same process (process-alive position)'
    : 'the system was stopped during every edit (process-alive position not measured)';
}

function metricLines(metric: IntegrityMetric): string[] {
  return [
    `- Metric (T1–T8): **${percent(metric.value)}**${metric.reason ? ` — ${metric.reason}` : ''} (N = ${metric.n}, passes ${metric.passes}, partial ${metric.partial}, accepted ${metric.accepted})`,
    `- T1–T5 (tamper evidence): ${percent(metric.tamperEvidence.value)} over ${metric.tamperEvidence.n}; T6–T8 (binding to place and owner): ${percent(metric.binding.value)} over ${metric.binding.n}`,
    `- T9 (snapshot rollback, outside the metric): ${metric.t9 ?? 'not run'}`,
  ];
}

function targetSection(target: TargetResult): string[] {
  const { description } = target;
  const lines = [
    `## ${description.label} (\`${target.id}\`)`,
    '',
    `- Versions: ${target.version}`,
    `- Store: ${description.store}`,
    ...Object.entries(target.config).map(([name, value]) => `- ${name}: ${value}`),
    `- Declared detection point: ${description.detection}; contexts: ${description.contexts}`,
    `- Edits made with: ${description.tooling}; ${positionText(description)}`,
    ...(target.unavailable ? [`- **Not evaluable here:** ${target.unavailable}`] : []),
    ...metricLines(target.metric),
    '',
    '| edit | attack | verdict | reason | C1 | C2 | C3 | form | observed |',
    '|---|---|---|---|---|---|---|---|---|',
    ...target.cells.map(
      (cell) =>
        `| ${cellName(cell)} | ${cell.attack} | ${verdictText(cell)} | ${escapeCell(cell.reason ?? '')} | ${mark(cell.controls.c1.ok)} | ${mark(cell.controls.c2.ok)} | ${mark(cell.controls.c3.ok)} | ${escapeCell(cell.form ?? '')} | ${escapeCell(cell.observation ?? '')} |`,
    ),
    '',
    '### Controls and edit commands',
    '',
  ];
  for (const cell of target.cells) {
    lines.push(
      `**${cellName(cell)}** (${cell.durationMs} ms) — C1: ${cell.controls.c1.detail}; C2: ${cell.controls.c2.detail}; C3: ${cell.controls.c3.detail}`,
      '',
    );
    if (cell.commands.length > 0)
      lines.push(
        '```',
        ...cell.commands.map((command) => (command.length > 400 ? `${command.slice(0, 397)}...` : command)),
        '```',
        '',
      );
  }
  return lines;
}

/** The full Markdown report: configuration, date, every cell with its controls, and the exact edit commands. */
export function integrityMarkdown(report: IntegrityReport): string {
  return [
    '# At-rest integrity (T1–T9)',
    '',
    `- Date: ${report.date}`,
    `- Command: \`${report.command}\``,
    `- Node ${report.environment.node} on ${report.environment.platform}; ${report.environment.recordsPerContext} records seeded per context`,
    `- Exit code: ${report.exitCode}`,
    '- Verdicts: accepted = served the edited store as genuine (fail); rejected = refused on the read path (pass);',
    '  reported = the system named the problem (read: pass; audit: partial pass); n/a = the store cannot express the',
    '  edit (integrity.md §6); not-evaluable / error = a control failed or the edit did not land (never a pass).',
    '',
    ...report.targets.flatMap(targetSection),
  ].join('\n');
}
