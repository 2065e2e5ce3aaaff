// Test support: the verbatim excerpt of stale-retrieval.md §14 kept in data/fixtures/spec/, so byte-exact tests never skip.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** data/fixtures/spec/stale-retrieval-section-14.md (its header names the source). */
export const SECTION_14_EXCERPT = fileURLToPath(
  new URL('../../data/fixtures/spec/stale-retrieval-section-14.md', import.meta.url),
);

/** The first ```json block after `heading` (e.g. `### 14.1`) in the §14 excerpt, parsed; throws when it is missing. */
export function section14Json(heading: string): unknown {
  const text = readFileSync(SECTION_14_EXCERPT, 'utf8');
  const at = text.indexOf(heading);
  const block = at === -1 ? null : /```json\n([\s\S]*?)```/.exec(text.slice(at));
  if (!block?.[1]) throw new Error(`${SECTION_14_EXCERPT}: no JSON block after "${heading}"`);
  return JSON.parse(block[1]);
}

/** The text of one subsection of the §14 excerpt, from `heading` to the next `###` heading. */
export function section14Text(heading: string): string {
  const text = readFileSync(SECTION_14_EXCERPT, 'utf8');
  const at = text.indexOf(heading);
  if (at === -1) throw new Error(`${SECTION_14_EXCERPT}: no "${heading}"`);
  const next = text.indexOf('\n### ', at + heading.length);
  return text.slice(at, next === -1 ? undefined : next);
}
