// Test-only: answers a library's own structured-output prompt with the smallest object its JSON schema admits.
import type { ReceivedRequest, ScriptedReply } from '../../pipeline/test-support/openai-compatible-server.js';

type Schema = {
  type?: string | string[];
  $ref?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  enum?: unknown[];
  default?: unknown;
  $defs?: Record<string, Schema>;
  definitions?: Record<string, Schema>;
};

/** The smallest value `schema` admits: required properties only, empty arrays, empty strings, zero, false, null. */
function minimalValue(schema: Schema, root: Schema = schema): unknown {
  if (schema.$ref) {
    const name = schema.$ref.split('/').at(-1) ?? '';
    return minimalValue((root.$defs ?? root.definitions)?.[name] ?? {}, root);
  }
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf)
    return minimalValue(schema.anyOf.find((option) => option.type === 'null') ?? schema.anyOf[0]!, root);
  const type = Array.isArray(schema.type) ? (schema.type.includes('null') ? 'null' : schema.type[0]) : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(
        (schema.required ?? []).map((name) => [name, minimalValue(schema.properties?.[name] ?? {}, root)]),
      );
    case 'array':
      return [];
    case 'string':
      return '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/**
 * A reply for `startOpenAICompatibleServer`: the minimal object of a `json_schema` response format, `{}` for
 * `json_object`, and a plain sentence (no tool call) otherwise, so a library's ingestion finishes having extracted
 * nothing, without a model.
 */
export function minimalSchemaReply(request: ReceivedRequest): ScriptedReply {
  const format = request.body.response_format as
    | { type: 'json_schema'; json_schema: { schema: Schema } }
    | { type: 'json_object' }
    | undefined;
  if (format?.type === 'json_schema') return { content: JSON.stringify(minimalValue(format.json_schema.schema)) };
  if (format?.type === 'json_object') return { content: '{}' };
  return { content: 'Nothing to store.' };
}
