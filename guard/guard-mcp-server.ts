// An MCP server (official @modelcontextprotocol/sdk) with one tool, `filter_retrieval`: records in, verdict out.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { InvalidInputError } from '#core/errors.js';
import { guardRecords } from './guard-library.js';
import type { GuardInput } from './guard-record.js';

/** The tool's name. */
const FILTER_RETRIEVAL = 'filter_retrieval';
const MAX_RECORDS = 1000;

const inputSchema = z
  .object({
    records: z
      .array(z.union([z.string(), z.record(z.string(), z.unknown())]), {
        error: 'expected an array of records (strings, or objects with a fact/text/content/memory/body field)',
      })
      .max(MAX_RECORDS)
      .describe(
        'The retrieval result in rank order: strings, or objects with a text field (fact, text, content, memory or body) and metadata such as created_at, valid_at, expired_at, invalid_at, expiration_date.',
      ),
    guard: z
      .enum(['guard', 'guard-v2'])
      .default('guard')
      .describe('guard = the paper reference port (default); guard-v2 = the stronger conflict stage.'),
    config: z
      .record(z.string(), z.unknown())
      .default({})
      .describe('Guard settings, e.g. {"maxWithheldRatio": 0.5}; unknown keys are an error.'),
    now: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('Clock for scheduled expiries (default: the server clock).'),
  })
  .strict();

/** The tool's input as JSON Schema, for `tools/list`. */
const INPUT_JSON_SCHEMA = z.toJSONSchema(inputSchema, { io: 'input' }) as { type: 'object'; [key: string]: unknown };

/** One clear message for invalid input: every problem with its path, as one error. */
function invalidInput(error: InvalidInputError): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: error.message }] };
}

/** Validates the arguments and runs the guard; bad input is a tool error naming each field, never a crash. */
async function filterRetrieval(args: unknown): Promise<CallToolResult> {
  const parsed = inputSchema.safeParse(args ?? {});
  if (!parsed.success)
    return invalidInput(
      new InvalidInputError(
        `${FILTER_RETRIEVAL} input`,
        parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
      ),
    );
  const { records, guard, config, now } = parsed.data;
  try {
    const verdict = await guardRecords(records as GuardInput[], {
      guard,
      config,
      ...(now ? { now: () => new Date(now) } : {}),
    });
    const result = {
      guard,
      kept: verdict.kept.map((index) => ({ index, record: records[index] })),
      withheld: verdict.withheld,
      notes: verdict.notes,
    };
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
  } catch (error) {
    if (error instanceof InvalidInputError) return invalidInput(error);
    throw error;
  }
}

/**
 * Creates the server (not connected). `tools/list` shows `filter_retrieval`; `tools/call` returns
 * `{guard, kept: [{index, record}], withheld: [{index, text, reason, stage, supersededBy?}], notes}`.
 *
 * @example await createGuardMcpServer().connect(new StdioServerTransport());
 */
export function createGuardMcpServer(version: string): Server {
  const server = new Server({ name: 'stalebench-guard', version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: FILTER_RETRIEVAL,
        description:
          'Filters one memory retrieval result with the stale-retrieval guard: withholds records the memory marked revoked and records superseded by a newer conflicting one; returns kept, withheld (with reasons) and notes. Nothing is deleted from the memory.',
        inputSchema: INPUT_JSON_SCHEMA,
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name !== FILTER_RETRIEVAL)
      return {
        isError: true,
        content: [{ type: 'text', text: `unknown tool ${request.params.name}; available: ${FILTER_RETRIEVAL}` }],
      };
    return filterRetrieval(request.params.arguments);
  });
  return server;
}
