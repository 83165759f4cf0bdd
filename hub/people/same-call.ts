/**
 * Whether a tool event is about the call an approval asks for: the agent's tool-use id when both
 * carry one, else the tool's name and input (Claude Code's PermissionRequest names no tool_use_id).
 * A tool event of another call — a parallel subagent's — says nothing about this approval.
 */
import type { Approval } from '../../shared/protocol/attention.js';
import type { JsonValue } from '../../shared/protocol/json.js';
import { LIMITS } from '../../shared/protocol/limits.js';
import { truncateJsonField } from '../services/truncate.js';

/** A tool call as a hook event names it; `toolUseId` only when the agent gave it. */
export interface ToolCallRef {
  tool: string;
  input: JsonValue;
  toolUseId: string | null;
}

/** JSON text with object keys sorted: equal for equal values whatever the key order (a store may reorder them). */
function canonical(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key]!)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function isSameCall(approval: Approval, call: ToolCallRef): boolean {
  if (approval.toolUseId !== null && call.toolUseId !== null) return approval.toolUseId === call.toolUseId;
  if (approval.tool !== call.tool) return false;
  // the approval keeps its input cut at the tool-field limit: compare the event's input cut alike
  const input = truncateJsonField(call.input, LIMITS.maxToolFieldBytes).value;
  return canonical(approval.input ?? null) === canonical(input ?? null);
}
