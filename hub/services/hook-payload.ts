/**
 * Maps one agent hook payload (the agent's raw JSON, as the bridge received it) to a hub action,
 * through the flavor registry only: the flavor's `hooks` name the action, its `hookFields` say
 * where each value sits in the payload. Runs on the hub (POST /api/hooks), so the bridge on the
 * agent's machine loads no schema and no mapping.
 */
import { createHash } from 'node:crypto';
import { getFlavor, hookFieldsOf, type HookAction } from '../../shared/flavors.js';
import type { JsonObject, JsonValue } from '../../shared/protocol/json.js';
import { SessionSourceSchema, type SessionSource } from '../../shared/protocol/lifecycle.js';
import type { UsageReport } from '../../shared/protocol/usage.js';

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
  tool?: string;
  toolUseId?: string;
  input?: JsonValue;
  output?: JsonValue;
  response?: string;
  reason?: string;
  /** The turn's usage the bridge read (the event's `usage`, not the payload's). */
  usage?: UsageReport[];
}

/** A dot path into the payload (`a.b.c`). */
function read(payload: JsonObject, path: string): JsonValue | undefined {
  let value: JsonValue | undefined = payload;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = value[part];
  }
  return value;
}

function text(payload: JsonObject, path: string): string | undefined {
  const value = read(payload, path);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function digest(...parts: (JsonValue | undefined)[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

export type MapResult = { kind: 'mapped'; hook: MappedHook } | { kind: 'ignored'; why: string };

/** The agent session a payload belongs to, or why it names none (before anything else is read). */
export function hookTagOf(flavorId: string, payload: JsonObject): string | undefined {
  return text(payload, hookFieldsOf(flavorId).sessionId);
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
  const fields = hookFieldsOf(flavorId);
  const hookName = text(payload, fields.event);
  if (hookName === undefined) return { kind: 'ignored', why: `payload has no "${fields.event}"` };
  const action = flavor.hooks[hookName];
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
    case 'prompt-submit':
      hook.prompt = text(payload, fields.prompt) ?? '';
      hook.promptId = `hook-${digest(flavorId, tag, turnsEnded, hook.prompt)}`;
      break;
    case 'tool-start':
    case 'tool-use':
    case 'tool-failure': {
      hook.tool = text(payload, fields.toolName) ?? 'unknown';
      hook.input = read(payload, fields.toolInput) ?? null;
      hook.output = action === 'tool-failure' ? { error: read(payload, fields.toolError) ?? null } : action === 'tool-use' ? (read(payload, fields.toolResponse) ?? null) : null;
      // without the agent's id, a finished tool is recorded once per identical call and result
      hook.toolUseId = text(payload, fields.toolUseId) ?? `hook-${digest(flavorId, tag, turnsEnded, hook.tool, hook.input, hook.output)}`;
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
      break;
  }
  return { kind: 'mapped', hook };
}

/** Actions after which the next prompt belongs to a new turn. */
export function endsTurn(action: HookAction): boolean {
  return action === 'turn-stop' || action === 'session-end' || action === 'session-finalize';
}
