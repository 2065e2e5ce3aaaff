// The text tool-calling protocol, version 1, of the LangChain chat-model adapter (langchain-chat-model.ts): bound tools
// are listed in the system message and the model answers one JSON object per turn. Any chat model can follow it (no
// provider tool API needed), so `sim` and every OpenAI-compatible endpoint run the same agent. No LangChain import here.
import type { ChatMessage } from '../../models/decision-model.js';

/** The line that opens the tool list in the system message (the simulator looks for it). */
const TOOLS_HEADER = 'Tools you can call (name: what it does; arguments as JSON Schema):';

/** A bound tool as the protocol lists it. */
export interface ToolSpec {
  name: string;
  description: string;
  /** The arguments' JSON Schema. */
  parameters: unknown;
}

/** One tool call parsed from a reply. */
export interface ParsedToolCall {
  name: string;
  args: Record<string, unknown>;
}

/**
 * The protocol block appended to the system message: the tools, then how to call one or finish.
 *
 * @example renderToolProtocol([{ name: 'LOOKUP', description: 'looks up', parameters: {} }]).startsWith('Tools you can call')
 */
export function renderToolProtocol(tools: readonly ToolSpec[]): string {
  const lines = tools.map((t) => `- ${t.name}: ${t.description}; arguments ${JSON.stringify(t.parameters)}`);
  return [
    TOOLS_HEADER,
    ...lines,
    'To call a tool respond STRICT JSON: {"tool": "<tool name>", "args": {<arguments>}, "reason": "<short>"}. To finish without calling a tool respond STRICT JSON: {"final": "<answer>"}.',
  ].join('\n');
}

/** The tool names a request's system message lists, or [] when it carries no tool protocol. */
export function toolNamesIn(messages: readonly ChatMessage[]): string[] {
  const system = messages.find((message) => message.role === 'system')?.content ?? '';
  const at = system.indexOf(TOOLS_HEADER);
  if (at === -1) return [];
  return system
    .slice(at + TOOLS_HEADER.length)
    .split('\n')
    .filter((line) => line.startsWith('- '))
    .map((line) => line.slice(2, line.indexOf(':')));
}

/** A reply calling `name` (what the simulator answers). */
export function formatToolCall(name: string, args: Record<string, unknown>, reason: string): string {
  return JSON.stringify({ tool: name, args, reason });
}

/**
 * The tool call of a reply: its greedy `{...}` span parsed as JSON, whose `tool` names one of `names` exactly; null
 * otherwise (a final answer, prose, an unknown tool: the agent's loop ends without an action).
 */
export function parseToolCall(text: string, names: readonly string[]): ParsedToolCall | null {
  const open = text.indexOf('{');
  const close = text.lastIndexOf('}');
  if (open === -1 || close <= open) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(open, close + 1));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const { tool, args } = parsed as { tool?: unknown; args?: unknown };
  if (typeof tool !== 'string' || !names.includes(tool)) return null;
  const argsObject = typeof args === 'object' && args !== null && !Array.isArray(args) ? args : {};
  return { name: tool, args: argsObject as Record<string, unknown> };
}
