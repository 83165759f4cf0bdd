/**
 * Maps one agent hook payload (the agent's raw JSON, as the bridge received it) to a hub action,
 * through the flavor registry only: the flavor's `hooks` name the action, its `hookFields` say
 * where each value sits in the payload. Runs on the hub (POST /api/hooks), so the bridge on the
 * agent's machine loads no schema and no mapping.
 */
import { createHash } from 'node:crypto';
import { getFlavor, hookFieldsOf, hookNamesOf, wakeTextOf, type HookAction } from '../../shared/flavors.js';
import type { JsonObject, JsonValue } from '../../shared/protocol/json.js';
import { SessionSourceSchema, type SessionSource } from '../../shared/protocol/lifecycle.js';
import type { UsageReport } from '../../shared/protocol/usage.js';
import { hookPromptId } from '../store/hook-prompt-turns.js';

/** A payload read through the registry: what the hub applies. */
export interface MappedHook {
  flavor: string;
  /** The agent's own session id: the hub session's tag. */
  tag: string;
  action: HookAction;
  cwd: string | null;
  source?: SessionSource;
  prompt?: string;
  promptId?: string;
  /**
   * The prompt is the agent's report of a wake (the registry's `wakeHook.prompt`), `prompt` the
   * waiter's text in it: it continues the turn the hub opened when it delivered that text.
   */
  woken?: boolean;
  tool?: string;
  toolUseId?: string;
  /** The agent's own id of the tool call, when it gave one (`toolUseId` is otherwise derived). */
  agentToolUseId?: string;
  input?: JsonValue;
  output?: JsonValue;
  response?: string;
  reason?: string;
  /** A tool batch's tools (action `tool-batch`), each with the agent's id of its call. */
  batch?: { tool: string; toolUseId: string; input: JsonValue; output: JsonValue }[];
  /** The turn's usage the bridge read (the event's `usage`, not the payload's). */
  usage?: UsageReport[];
  /** The agent's computer and its machine runner's id, as the bridge reported them (the event's). */
  host?: string;
  machineId?: string;
  /** The agent process that ran the hook (the event's): the pid of a run it opens. */
  agentPid?: number;
}

/** A dot path into the payload (`a.b.c`; a number steps into an array: `workspace_roots.0`). */
function read(payload: JsonObject, path: string): JsonValue | undefined {
  let value: JsonValue | undefined = payload;
  for (const part of path.split('.')) {
    if (Array.isArray(value) && /^\d+$/.test(part)) value = value[Number(part)];
    else if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    else value = value[part];
  }
  return value;
}

/** The text at a path: a non-empty string, or a list of strings joined by blank lines (Codex's `input-messages`). */
function text(payload: JsonObject, path: string): string | undefined {
  const value = read(payload, path);
  const joined = Array.isArray(value) && value.every((v) => typeof v === 'string') ? value.join('\n\n') : value;
  return typeof joined === 'string' && joined !== '' ? joined : undefined;
}

/** The value of one field, or an object of several (a hookTools declaration's input or output). */
function gather(payload: JsonObject, paths: readonly string[]): JsonValue | undefined {
  if (paths.length === 1) return read(payload, paths[0]!);
  const entries = paths.flatMap((path) => {
    const value = read(payload, path);
    return value === undefined ? [] : [[path, value] as const];
  });
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

function digest(...parts: (JsonValue | undefined)[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

export type MapResult = { kind: 'mapped'; hook: MappedHook } | { kind: 'ignored'; why: string };

/** The agent session a payload belongs to, or why it names none (before anything else is read). */
export function hookTagOf(flavorId: string, payload: JsonObject): string | undefined {
  return text(payload, hookFieldsOf(flavorId, payload).sessionId);
}

/**
 * The hub action for a payload, or why there is none. `turnsEnded` is how many turn boundaries the
 * hub has applied in this agent session so far: it goes into the derived ids, so a re-delivered
 * prompt (or a second pre-LLM hook of the same turn) maps to the same promptId while the same words
 * typed again in a later turn do not.
 */
export function mapHookPayload(flavorId: string, payload: JsonObject, turnsEnded: number): MapResult {
  const flavor = getFlavor(flavorId);
  if (!flavor) return { kind: 'ignored', why: `unknown flavor "${flavorId}"` };
  const fields = hookFieldsOf(flavorId, payload);
  const hookName = text(payload, fields.event);
  if (hookName === undefined) return { kind: 'ignored', why: `payload has no "${fields.event}"` };
  // a hook with no action of its own that sets attention or waits for an approval is a sign of life
  const action = flavor.hooks[hookName] ?? (hookNamesOf(flavor).includes(hookName) ? 'notification' : undefined);
  if (action === undefined) return { kind: 'ignored', why: `hook "${hookName}" is not mapped for ${flavorId}` };
  const tag = text(payload, fields.sessionId);
  if (tag === undefined) return { kind: 'ignored', why: `payload has no "${fields.sessionId}"` };

  const hook: MappedHook = { flavor: flavorId, tag, action, cwd: text(payload, fields.cwd) ?? null };
  switch (action) {
    case 'session-start': {
      const source = SessionSourceSchema.safeParse(text(payload, fields.source));
      hook.source = source.success ? source.data : 'startup';
      break;
    }
    case 'prompt-submit': {
      const prompt = text(payload, fields.prompt) ?? '';
      const woken = wakeTextOf(flavorId, prompt);
      hook.prompt = woken ?? prompt;
      if (woken !== undefined) hook.woken = true;
      hook.promptId = hookPromptId(turnsEnded, digest(flavorId, tag, hook.prompt));
      break;
    }
    case 'turn-complete': {
      hook.prompt = text(payload, fields.prompt) ?? '';
      hook.promptId = hookPromptId(turnsEnded, digest(flavorId, tag, hook.prompt));
      const response = text(payload, fields.response);
      if (response !== undefined) hook.response = response;
      break;
    }
    case 'tool-start':
    case 'tool-use':
    case 'tool-failure': {
      const declared = flavor.hookTools?.[hookName];
      hook.tool = text(payload, fields.toolName) ?? declared?.tool ?? 'unknown';
      hook.input = (declared ? gather(payload, declared.input) : read(payload, fields.toolInput)) ?? null;
      const response = declared?.output ? gather(payload, declared.output) : read(payload, fields.toolResponse);
      hook.output = action === 'tool-failure' ? { error: read(payload, fields.toolError) ?? null } : action === 'tool-use' ? (response ?? null) : null;
      // without the agent's id, a finished tool is recorded once per identical call and result
      const agentToolUseId = text(payload, declared?.toolUseId ?? fields.toolUseId);
      if (agentToolUseId !== undefined) hook.agentToolUseId = agentToolUseId;
      hook.toolUseId = agentToolUseId ?? `hook-${digest(flavorId, tag, turnsEnded, hook.tool, hook.input, hook.output)}`;
      break;
    }
    case 'tool-batch': {
      // only calls that name their tool and its id: a batch end must not invent a tool
      const calls = read(payload, fields.toolCalls);
      hook.batch = (Array.isArray(calls) ? calls : []).flatMap((call) => {
        if (call === null || typeof call !== 'object' || Array.isArray(call)) return [];
        const tool = text(call, fields.toolName);
        const toolUseId = text(call, fields.toolUseId);
        return tool === undefined || toolUseId === undefined ? [] : [{ tool, toolUseId, input: read(call, fields.toolInput) ?? null, output: read(call, fields.toolResponse) ?? null }];
      });
      break;
    }
    case 'turn-stop': {
      const response = text(payload, fields.response);
      if (response !== undefined) hook.response = response;
      break;
    }
    case 'session-end':
    case 'session-finalize': {
      const reason = text(payload, fields.reason);
      if (reason !== undefined) hook.reason = reason;
      break;
    }
    case 'notification':
      // an approval hook names the tool call it asks about
      hook.tool = text(payload, fields.toolName);
      hook.input = read(payload, fields.toolInput);
      hook.toolUseId = text(payload, fields.toolUseId);
      break;
  }
  return { kind: 'mapped', hook };
}

/** Actions after which the next prompt belongs to a new turn. */
export function endsTurn(action: HookAction): boolean {
  return action === 'turn-stop' || action === 'turn-complete' || action === 'session-end' || action === 'session-finalize';
}
