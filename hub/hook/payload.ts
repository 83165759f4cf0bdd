/**
 * Maps one agent hook payload to a hub event, through the flavor registry only: the flavor's
 * `hooks` name the hub event, its `hookFields` say where each value sits in the payload.
 */
import { createHash, randomUUID } from 'node:crypto';
import { getFlavor, hookFieldsOf, type HookAction } from '../../shared/flavors.js';
import type { JsonObject, JsonValue } from '../../shared/protocol/json.js';
import { SessionSourceSchema, type SessionSource } from '../../shared/protocol/lifecycle.js';

/** One hook call as spooled and delivered: everything needed to send it later, in order. */
export interface HookEvent {
  /** Assigned on receipt; a re-delivery of the same spooled event carries the same id. */
  id: string;
  flavor: string;
  /** The agent's own session id: the hub session's tag. */
  tag: string;
  action: HookAction;
  receivedAt: number;
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

export type MapResult = { kind: 'event'; event: HookEvent } | { kind: 'ignored'; why: string };

/**
 * The hub event for a payload, or why there is none. `turnsEnded` is how many turn boundaries the
 * bridge has seen in this agent session so far: it goes into the derived ids, so a re-delivered
 * prompt (or a second pre-LLM hook of the same turn) maps to the same promptId while the same words
 * typed again in a later turn do not.
 */
export function mapHookPayload(flavorId: string, payload: JsonObject, turnsEnded: (tag: string) => number, now: number): MapResult {
  const flavor = getFlavor(flavorId);
  if (!flavor) return { kind: 'ignored', why: `unknown flavor "${flavorId}"` };
  const fields = hookFieldsOf(flavorId);
  const hookName = text(payload, fields.event);
  if (hookName === undefined) return { kind: 'ignored', why: `payload has no "${fields.event}"` };
  const action = flavor.hooks[hookName];
  if (action === undefined) return { kind: 'ignored', why: `hook "${hookName}" is not mapped for ${flavorId}` };
  const tag = text(payload, fields.sessionId);
  if (tag === undefined) return { kind: 'ignored', why: `payload has no "${fields.sessionId}"` };

  const event: HookEvent = { id: randomUUID(), flavor: flavorId, tag, action, receivedAt: now, cwd: text(payload, fields.cwd) ?? null };
  const ended = turnsEnded(tag);
  switch (action) {
    case 'session-start': {
      const source = SessionSourceSchema.safeParse(text(payload, fields.source));
      event.source = source.success ? source.data : 'startup';
      break;
    }
    case 'prompt-submit':
      event.prompt = text(payload, fields.prompt) ?? '';
      event.promptId = `hook-${digest(flavorId, tag, ended, event.prompt)}`;
      break;
    case 'tool-use':
      event.tool = text(payload, fields.toolName) ?? 'unknown';
      event.input = read(payload, fields.toolInput) ?? null;
      event.output = read(payload, fields.toolResponse) ?? null;
      event.toolUseId = text(payload, fields.toolUseId) ?? `hook-${digest(flavorId, tag, ended, event.tool, event.input, event.output)}`;
      break;
    case 'turn-stop': {
      const response = text(payload, fields.response);
      if (response !== undefined) event.response = response;
      break;
    }
    case 'session-end':
    case 'session-finalize': {
      const reason = text(payload, fields.reason);
      if (reason !== undefined) event.reason = reason;
      break;
    }
  }
  return { kind: 'event', event };
}

/** Actions after which the next prompt belongs to a new turn. */
export function endsTurn(action: HookAction): boolean {
  return action === 'turn-stop' || action === 'session-end' || action === 'session-finalize';
}
