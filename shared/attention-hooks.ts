/**
 * A hook payload's effect on a session's attention, read through the flavor registry only
 * (`attention` of shared/flavors.ts): pure, so the hub's hook applier calls it per payload.
 */
import { getFlavor, hookFieldsOf, type AttentionEffect, type AttentionKindName, type AttentionRule } from './flavors.js';
import { readText } from './json-path.js';

export type AttentionFromHook =
  | { set: { kind: AttentionKindName; message: string | null; tool: string | null } }
  | { clear: true }
  | null;

/** Longer hook texts are cut here (the wire refuses longer ones from runners). */
const MESSAGE_MAX_CHARS = 4096;

function effectOf(rule: AttentionRule, payload: unknown): AttentionEffect {
  if (!rule.byField) return rule.effect ?? null;
  const value = readText(payload, rule.byField.path);
  const listed = value !== undefined && Object.hasOwn(rule.byField.values, value);
  return listed ? rule.byField.values[value]! : (rule.byField.otherwise ?? null);
}

function cut(text: string): string {
  if (text.length <= MESSAGE_MAX_CHARS) return text;
  // never split a surrogate pair
  const end = /[\uD800-\uDBFF]/.test(text[MESSAGE_MAX_CHARS - 1]!) ? MESSAGE_MAX_CHARS - 1 : MESSAGE_MAX_CHARS;
  return text.slice(0, end);
}

/**
 * `{ set }` when the hook means the agent waits for a person, `{ clear: true }` when it means the
 * agent works again (or the session ended), null when it says nothing about attention (unknown
 * flavor, a hook without a rule, a notification type that is not about waiting).
 */
export function attentionFromHook(flavorId: string, payload: unknown): AttentionFromHook {
  const rules = getFlavor(flavorId)?.attention;
  const hookName = readText(payload, hookFieldsOf(flavorId, payload).event);
  if (!rules || hookName === undefined || !Object.hasOwn(rules, hookName)) return null;
  const rule = rules[hookName]!;
  const effect = effectOf(rule, payload);
  if (effect === null) return null;
  if (effect === 'clear') return { clear: true };
  const message = (rule.message ?? []).map((path) => readText(payload, path)).find((found) => found !== undefined);
  const tool = rule.tool === undefined ? undefined : readText(payload, rule.tool);
  return { set: { kind: effect, message: message === undefined ? null : cut(message), tool: tool ?? null } };
}
