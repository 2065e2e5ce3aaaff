// The JSON Schemas (draft 2020-12) data/schemas/ publishes for CI users (issue #31 item 6), each generated from the
// zod schema the results are checked with, and named with the version of the document it describes.
import { z } from 'zod';
import { frontdoorResultsSchema } from '../../pipeline/index.js';
import { SUMMARY_VERSION } from '../grid/summarize.js';
import { forgedReasoningSummarySchema } from './forged-reasoning-schema.js';
import { integrityJsonSchema, integrityReportSchema } from './integrity-schema.js';
import { summarySchema } from './summary-schema.js';

/** Where the published schemas live, relative to the repository root. */
export const SCHEMAS_DIR = 'data/schemas';

/** One published schema: its file name (`<name>.v<version>.schema.json`), what it describes, and its zod source. */
interface PublishedSchema {
  name: string;
  version: number;
  title: string;
  description: string;
  schema: z.ZodType;
}

const PUBLISHED: readonly PublishedSchema[] = [
  {
    name: 'summary',
    version: SUMMARY_VERSION,
    title: 'stalebench eval summary.json',
    description:
      'summary.json of a pnpm eval run directory: a grid run (cells) or a follow-up run (experiment and its rows). ' +
      'Its version field is the summary version; a change of shape bumps it and publishes a new file. A ' +
      'forged-reasoning run (experiment "forged-reasoning") has its own summary and schema (forged-reasoning).',
    schema: summarySchema,
  },
  {
    name: 'forged-reasoning',
    version: forgedReasoningSummarySchema.shape.version.value,
    title: 'stalebench forged-reasoning summary.json',
    description:
      'summary.json of a pnpm eval --experiment forged-reasoning run directory: cells per model × defence × ' +
      'condition, the adaptive attacker per scenario, the measured overhead. Its version field is its own summary ' +
      'version; a change of shape bumps it and publishes a new file.',
    schema: forgedReasoningSummarySchema,
  },
  {
    name: 'integrity',
    version: integrityReportSchema.shape.version.value,
    title: 'stalebench integrity report',
    description: 'summary.json and integrity.json of a pnpm integrity run directory: every cell, its controls, metric.',
    schema: integrityReportSchema,
  },
  {
    name: 'integrity-json',
    version: integrityReportSchema.shape.version.value,
    title: 'stalebench integrity --json',
    description:
      'What pnpm integrity --json prints, also report/scorecard.json: the verdicts of an integrity report of the ' +
      'same version, without timings, environment or exit code.',
    schema: integrityJsonSchema,
  },
  {
    name: 'frontdoor',
    version: frontdoorResultsSchema.shape.version.value,
    title: 'stalebench front-door results',
    description: 'summary.json and results.json of a pnpm frontdoor run directory, and what --json prints.',
    schema: frontdoorResultsSchema,
  },
];

/**
 * Every published schema as the file it is written to: `{file: 'summary.v3.schema.json', text}`, the text the exact
 * bytes (two-space JSON and a newline), so the checked-in files can be compared with it.
 */
export function publishedSchemaFiles(): { file: string; text: string }[] {
  return PUBLISHED.map(({ name, version, title, description, schema }) => {
    const { $schema, ...generated } = z.toJSONSchema(schema, { target: 'draft-2020-12' });
    const document = { $schema, $id: `urn:stalebench:schema:${name}:v${version}`, title, description, ...generated };
    return { file: `${name}.v${version}.schema.json`, text: `${JSON.stringify(document, null, 2)}\n` };
  });
}
