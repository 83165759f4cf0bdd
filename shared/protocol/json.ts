import { z } from 'zod';
import { LIMITS } from './limits.js';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Keys that could reach an object's prototype when a document is merged or copied. */
const FORBIDDEN_KEYS = new Set(['__proto__']);

interface JsonProblem {
  path: (string | number)[];
  message: string;
}

/** Walks a decoded value and reports the first thing that is not plain JSON. */
export function findJsonProblem(value: unknown, path: (string | number)[] = [], depth = 0): JsonProblem | null {
  if (depth > LIMITS.maxJsonDepth) return { path, message: `nested deeper than ${LIMITS.maxJsonDepth} levels` };
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : { path, message: 'number must be finite' };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = findJsonProblem(value[i], [...path, i], depth + 1);
      if (problem) return problem;
    }
    return null;
  }
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return { path, message: 'must be plain JSON (no binary or class instances)' };
    for (const key of Object.keys(value)) {
      if (FORBIDDEN_KEYS.has(key)) return { path: [...path, key], message: 'key is not allowed' };
      const problem = findJsonProblem((value as Record<string, unknown>)[key], [...path, key], depth + 1);
      if (problem) return problem;
    }
    return null;
  }
  return { path, message: `${typeof value} is not a JSON value` };
}

/** An object that is not null and not an array (what JSON calls an object; contents unchecked). */
export function isObjectRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Any JSON value, checked without copying (so `__proto__` can never be assigned). */
export const JsonValueSchema = z.custom<JsonValue>(() => true).superRefine((value, ctx) => {
  if (value === undefined) {
    ctx.addIssue({ code: 'custom', message: 'is required' });
    return;
  }
  const problem = findJsonProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path });
});

/** A JSON object document (metadata, agentState, merge patch). */
export const JsonObjectSchema = z.custom<JsonObject>(() => true).superRefine((value, ctx) => {
  if (!isObjectRecord(value)) {
    ctx.addIssue({ code: 'custom', message: 'must be a JSON object' });
    return;
  }
  const problem = findJsonProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path });
});

/** Equal as JSON text (key order counts, as it does in the stored document); undefined equals only undefined. */
export function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

const encoder = new TextEncoder();

/** UTF-8 size of a string; Buffer where it exists (the hub), TextEncoder in a browser. */
export function utf8ByteLength(text: string): number {
  const buffer = (globalThis as { Buffer?: { byteLength(s: string, e: string): number } }).Buffer;
  return buffer ? buffer.byteLength(text, 'utf8') : encoder.encode(text).length;
}

/** UTF-8 size of a value's JSON text. */
export function jsonByteLength(value: unknown): number {
  return utf8ByteLength(JSON.stringify(value) ?? '');
}
