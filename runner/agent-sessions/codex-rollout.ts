/**
 * Codex's rollout file (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<thread id>.jsonl`, 0.169):
 * `{ timestamp, type, payload }` a line. `session_meta` names the thread and its directory; a
 * person's prompt is an `event_msg` `user_message` (older) or an `item_completed` `UserMessage`;
 * tools are `response_item` `function_call` / `custom_tool_call` and their `…_output`; the closing
 * words the last assistant `message`; usage each call's `token_count.last_token_usage`, the model
 * the latest `turn_context`'s.
 */
import type { JsonValue } from '../../shared/protocol/json.js';
import { addUsage, newTurn, type ParsedSession, type ParsedTool, type ParsedTurn } from './parsed-session.js';
import { arrayAt, numberAt, objectAt, stringAt, timeAt } from './transcript-file.js';

function jsonOrText(text: string | undefined): JsonValue {
  if (text === undefined) return null;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

export function readCodexRollout(records: readonly Record<string, unknown>[]): ParsedSession {
  const session: ParsedSession = { agentSessionId: null, cwd: null, startedAt: null, updatedAt: null, turns: [] };
  // one source of prompts: older rollouts have user_message events, newer ones UserMessage items
  const promptsFromEvents = records.some((r) => stringAt(objectAt(r, 'payload'), 'type') === 'user_message');
  const tools = new Map<string, ParsedTool>();
  let model = 'codex';
  let turn: ParsedTurn | undefined;
  for (const record of records) {
    const at = timeAt(record, 'timestamp');
    const payload = objectAt(record, 'payload');
    const type = stringAt(record, 'type');
    if (at !== undefined) {
      session.startedAt ??= at;
      session.updatedAt = at;
    }
    if (type === 'session_meta') {
      session.agentSessionId ??= stringAt(payload, 'id') ?? null;
      session.cwd ??= stringAt(payload, 'cwd') ?? null;
      continue;
    }
    if (type === 'turn_context') {
      model = stringAt(payload, 'model') ?? model;
      continue;
    }
    if (at === undefined || !payload) continue;
    const kind = stringAt(payload, 'type');
    let prompt: string | undefined;
    if (type === 'event_msg' && kind === 'user_message' && promptsFromEvents) prompt = stringAt(payload, 'message');
    if (type === 'event_msg' && kind === 'item_completed' && !promptsFromEvents && stringAt(objectAt(payload, 'item'), 'type') === 'UserMessage') {
      prompt = arrayAt(objectAt(payload, 'item'), 'content').map((part) => stringAt(part, 'text') ?? '').join('\n');
    }
    if (prompt !== undefined && prompt.trim() !== '') {
      session.turns.push((turn = newTurn(prompt, at)));
      continue;
    }
    if (!turn) continue;
    turn.endedAt = at;
    if (type === 'response_item' && (kind === 'function_call' || kind === 'custom_tool_call')) {
      const callId = stringAt(payload, 'call_id');
      const tool: ParsedTool = { tool: stringAt(payload, 'name') ?? 'tool', input: jsonOrText(stringAt(payload, 'arguments') ?? stringAt(payload, 'input')), at, status: 'done', ...(callId ? { toolUseId: callId } : {}) };
      turn.tools.push(tool);
      if (callId) tools.set(callId, tool);
    } else if (type === 'response_item' && (kind === 'function_call_output' || kind === 'custom_tool_call_output')) {
      const tool = tools.get(stringAt(payload, 'call_id') ?? '');
      const output = payload.output;
      if (tool) tool.output = (typeof output === 'string' ? output : stringAt(output, 'content') ?? null) as JsonValue;
    } else if (type === 'response_item' && kind === 'message' && stringAt(payload, 'role') === 'assistant') {
      const text = arrayAt(payload, 'content').map((part) => stringAt(part, 'text') ?? '').join('').trim();
      if (text !== '') turn.response = text;
    } else if (type === 'event_msg' && kind === 'token_count') {
      const last = objectAt(objectAt(payload, 'info'), 'last_token_usage');
      if (last) {
        const cached = numberAt(last, 'cached_input_tokens') ?? 0;
        addUsage(turn, model, { input: Math.max(0, (numberAt(last, 'input_tokens') ?? 0) - cached), output: numberAt(last, 'output_tokens') ?? 0, cacheRead: cached, cacheWrite: 0 });
      }
    }
  }
  return session;
}
