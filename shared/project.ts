/**
 * A session's project: the git repository root a runner reports as metadata `projectRoot`, else
 * its working directory `path`. One definition for the list filter (stored in a column on every
 * metadata write) and the display title; migration 010's backfill spells the same rule in SQL.
 */
import type { JsonObject } from './protocol/json.js';

export const PROJECT_KEYS = ['projectRoot', 'path'] as const;

export function projectPathOf(metadata: JsonObject): string | null {
  for (const key of PROJECT_KEYS) {
    const value = metadata[key];
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  return null;
}
