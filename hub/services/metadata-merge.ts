/**
 * The metadata merge rules (spec section 4). A runner with a stale or empty cache must never be able
 * to erase a resume token by leaving it out: protected keys are carried forward unless the write
 * sends a value (wins) or an explicit null (clear). Hub-owned keys are never a runner's to change.
 */
import { isDeepStrictEqual } from 'node:util';
import { PAIRED_KEYS, RESUME_TOKEN_KEYS } from '../../shared/flavors.js';
import type { JsonObject, JsonValue } from '../../shared/protocol/json.js';

const IDENTITY_AND_ROUTING_KEYS = ['path', 'host', 'flavor', 'machineId'];

/** Protected keys: identity, routing, every flavor's resume token and the keys paired with one. */
export const PROTECTED_KEYS: ReadonlySet<string> = new Set([...IDENTITY_AND_ROUTING_KEYS, ...RESUME_TOKEN_KEYS, ...PAIRED_KEYS.keys()]);

export function isHubOwnedKey(key: string): boolean {
  return key.startsWith('hub');
}

export interface MergeOutcome {
  document: JsonObject;
  /** Protected keys kept because a whole-document write left them out. */
  carried: string[];
  /** Protected keys removed by an explicit null. */
  cleared: string[];
  /** Paired keys removed because their token changed or was cleared. */
  dropped: string[];
}

const has = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key);

/**
 * A paired key (cursorSessionProtocol) that the write does not send lives only while its token is
 * carried forward or rewritten to the same value; a new or cleared token drops it. "The same value"
 * is judged on the token the write leaves in `document`: a patch's object token is merged, not taken
 * as sent.
 */
function pairedKeyShouldDrop(pairedKey: string, stored: JsonObject, incoming: JsonObject, document: JsonObject): boolean {
  const tokenKey = PAIRED_KEYS.get(pairedKey)!;
  if (!has(incoming, tokenKey)) return false;
  const written = has(document, tokenKey) ? document[tokenKey] : undefined;
  // deep equality, not JSON text: an object token with its keys in another order is the same token
  return incoming[tokenKey] === null || !isDeepStrictEqual(written, has(stored, tokenKey) ? stored[tokenKey] : undefined);
}

/** Copies the stored hub-owned keys into the result; a runner's hub-owned keys never apply. */
function keepHubOwnedKeys(stored: JsonObject, document: JsonObject): void {
  for (const key of Object.keys(stored)) {
    if (isHubOwnedKey(key)) document[key] = stored[key]!;
  }
}

/** A whole-document write: replaces the document except for protected and hub-owned keys. */
export function mergeWholeDocument(stored: JsonObject, incoming: JsonObject): MergeOutcome {
  const document: JsonObject = {};
  const carried: string[] = [];
  const cleared: string[] = [];
  const dropped: string[] = [];

  for (const key of Object.keys(incoming)) {
    if (isHubOwnedKey(key)) continue;
    const value = incoming[key]!;
    if (value === null && PROTECTED_KEYS.has(key)) {
      if (has(stored, key)) cleared.push(key);
      continue;
    }
    document[key] = value;
  }

  for (const key of PROTECTED_KEYS) {
    if (has(incoming, key) || !has(stored, key)) continue;
    if (PAIRED_KEYS.has(key) && pairedKeyShouldDrop(key, stored, incoming, document)) {
      dropped.push(key);
      continue;
    }
    document[key] = stored[key]!;
    carried.push(key);
  }

  keepHubOwnedKeys(stored, document);
  return { document, carried, cleared, dropped };
}

/** RFC 7386 merge of `patch` into `target`, returning a new value. */
function mergePatchValue(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const base: JsonObject = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const key of Object.keys(patch)) {
    const value = patch[key]!;
    if (value === null) delete base[key];
    else base[key] = mergePatchValue(base[key], value);
  }
  return base;
}

/**
 * An RFC 7386 merge patch: absent keys keep their value, null removes. Hub-owned keys in the patch
 * are ignored, and a patch that changes or clears a token drops its paired keys unless it sends them.
 */
export function applyMetadataPatch(stored: JsonObject, patch: JsonObject): MergeOutcome {
  const document: JsonObject = { ...stored };
  const cleared: string[] = [];
  const dropped: string[] = [];

  for (const key of Object.keys(patch)) {
    if (isHubOwnedKey(key)) continue;
    const value = patch[key]!;
    if (value === null) {
      if (PROTECTED_KEYS.has(key) && has(stored, key)) cleared.push(key);
      delete document[key];
    } else {
      document[key] = mergePatchValue(stored[key], value);
    }
  }

  for (const [pairedKey] of PAIRED_KEYS) {
    if (has(patch, pairedKey) || !has(stored, pairedKey)) continue;
    if (pairedKeyShouldDrop(pairedKey, stored, patch, document)) {
      delete document[pairedKey];
      dropped.push(pairedKey);
    }
  }

  return { document, carried: [], cleared, dropped };
}
