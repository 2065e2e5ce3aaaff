// `pnpm schemas [--check]`: writes the published JSON Schemas of the results files to data/schemas/ (from their zod
// schemas), or checks that the checked-in files are what it would write.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineCommand, runAsEntryPoint } from '#core/command.js';
import { publishedSchemaFiles, SCHEMAS_DIR } from './published-schemas.js';
import { makeDirectory } from '#core/make-directory.js';

const USAGE = `usage: pnpm schemas [--check] [--root <dir>]
  writes the JSON Schemas (draft 2020-12) of summary.json (pnpm eval; forged-reasoning runs apart), the integrity
  report and its --json, and the front-door results to ${SCHEMAS_DIR}/, each named with its version (summary.v3.schema.json), generated from the zod
  schemas the results are checked with; a file there that is no longer generated is removed.
  --check        write nothing; exit 1 naming every file that differs, is missing or is no longer generated
  --root <dir>   the repository root (default: the current directory)
exit codes: 0 written, or up to date · 1 --check found a difference, or usage`;

/** The command; returns the exit code. */
export const main = defineCommand({
  usage: USAGE,
  options: { check: { type: 'boolean' }, root: { type: 'string' } },
  run({ values }, { out, err }) {
    const dir = resolve(values.root ?? '.', SCHEMAS_DIR);
    const files = publishedSchemaFiles();
    const present = existsSync(dir) ? readdirSync(dir).filter((file) => file.endsWith('.schema.json')) : [];
    const stale = present.filter((file) => !files.some((generated) => generated.file === file));
    const differing = files.filter(({ file, text }) => {
      const path = join(dir, file);
      return !existsSync(path) || readFileSync(path, 'utf8') !== text;
    });
    if (values.check) {
      for (const { file } of differing) err(`${SCHEMAS_DIR}/${file}: differs from what pnpm schemas generates`);
      for (const file of stale) err(`${SCHEMAS_DIR}/${file}: no longer generated (remove it, or run pnpm schemas)`);
      if (differing.length + stale.length > 0) return 1;
      out(`${files.length} schema(s) in ${SCHEMAS_DIR} up to date`);
      return 0;
    }
    makeDirectory(dir);
    for (const { file, text } of differing) writeFileSync(join(dir, file), text);
    for (const file of stale) rmSync(join(dir, file));
    out(`${SCHEMAS_DIR}: ${differing.length} written, ${stale.length} removed, ${files.length} in all`);
    return 0;
  },
});

runAsEntryPoint(import.meta.url, main);
