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

/** An array or object being walked: the key it has in its parent, and the next child to visit. */
interface Frame {
  node: object;
  key: string | number;
  /** An object's keys; null for an array. */
  keys: string[] | null;
  next: number;
}

/** What is wrong with one value in itself, not counting its children; null when nothing. */
function ownProblem(value: unknown): string | null {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : 'number must be finite';
  if (Array.isArray(value)) return null;
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    return proto !== Object.prototype && proto !== null ? 'must be plain JSON (no binary or class instances)' : null;
  }
  return `${typeof value} is not a JSON value`;
}

/**
 * Walks a decoded value and reports the first thing that is not plain JSON, in document order.
 * Iterative, and the path is written only for the problem found (issue 33.1: the recursive walk
 * copied its path at every node, a cost that grew with the depth times the elements).
 */
export function findJsonProblem(value: unknown): JsonProblem | null {
  const frames: Frame[] = [];
  const pathTo = (key: string | number | undefined): (string | number)[] => {
    const path = frames.slice(1).map((frame) => frame.key);
    if (key !== undefined) path.push(key);
    return path;
  };
  /** Checks a value about to be visited at depth `frames.length`; stacks it when it has children. */
  const enter = (child: unknown, key: string | number | undefined): JsonProblem | null => {
    if (frames.length > LIMITS.maxJsonDepth) return { path: pathTo(key), message: `nested deeper than ${LIMITS.maxJsonDepth} levels` };
    const problem = ownProblem(child);
    if (problem !== null) return { path: pathTo(key), message: problem };
    if (child !== null && typeof child === 'object') frames.push({ node: child, key: key ?? '', keys: Array.isArray(child) ? null : Object.keys(child), next: 0 });
    return null;
  };
  const atRoot = enter(value, undefined);
  if (atRoot) return atRoot;
  while (frames.length > 0) {
    const frame = frames[frames.length - 1]!;
    const size = frame.keys === null ? (frame.node as unknown[]).length : frame.keys.length;
    if (frame.next >= size) {
      frames.pop();
      continue;
    }
    const index = frame.next++;
    let problem: JsonProblem | null;
    if (frame.keys === null) problem = enter((frame.node as unknown[])[index], index);
    else {
      const key = frame.keys[index]!;
      if (FORBIDDEN_KEYS.has(key)) return { path: pathTo(key), message: 'key is not allowed' };
      problem = enter((frame.node as Record<string, unknown>)[key], key);
    }
    if (problem) return problem;
  }
  return null;
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
