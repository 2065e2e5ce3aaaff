// `pnpm guard:mcp`: the guard's MCP server on stdio (one tool, filter_retrieval). Logs go to stderr only.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createGuardMcpServer } from './guard-mcp-server.js';
import { isEntryPoint } from '#core/entry-point.js';

async function main(): Promise<void> {
  const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  await createGuardMcpServer(version).connect(new StdioServerTransport());
  process.stderr.write('stalebench guard MCP server on stdio (tool: filter_retrieval)\n');
}

if (isEntryPoint(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`guard:mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
