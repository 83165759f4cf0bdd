/**
 * What the hook route remembers: per agent session (namespace, tag) the turn counter and the time
 * and seq of the last applied event, and the ids of applied events (a re-sent one changes nothing).
 */
import type { Sql } from './sql.js';

export interface HookSessionRow {
  turnsEnded: number;
  lastAt: number;
  lastSeq: number;
}

const SELECT_SESSION = `SELECT turns_ended, last_at, last_seq FROM hook_sessions WHERE namespace = @namespace AND tag = @tag`;
const UPSERT_SESSION = `
  INSERT INTO hook_sessions (namespace, tag, turns_ended, last_at, last_seq) VALUES (@namespace, @tag, @turnsEnded, @lastAt, @lastSeq)
  ON CONFLICT (namespace, tag) DO UPDATE SET turns_ended = @turnsEnded, last_at = @lastAt, last_seq = @lastSeq`;
const SELECT_EVENT = `SELECT outcome FROM hook_events WHERE namespace = @namespace AND event_id = @eventId`;
const INSERT_EVENT = `INSERT INTO hook_events (namespace, event_id, outcome, applied_at) VALUES (@namespace, @eventId, @outcome, @at)`;
export const PRUNE = `DELETE FROM hook_events WHERE applied_at < @olderThan`;

export async function getHookSession(sql: Sql, key: { namespace: string; tag: string }): Promise<HookSessionRow | undefined> {
  const row = await sql.get(SELECT_SESSION, key) as { turns_ended: number; last_at: number; last_seq: number } | undefined;
  return row && { turnsEnded: row.turns_ended, lastAt: row.last_at, lastSeq: row.last_seq };
}

export async function saveHookSession(sql: Sql, input: { namespace: string; tag: string } & HookSessionRow): Promise<void> {
  await sql.run(UPSERT_SESSION, input);
}

/** The stored outcome of an applied hook event id, or undefined when it was never applied. */
export async function findAppliedHookEvent(sql: Sql, key: { namespace: string; eventId: string }): Promise<string | undefined> {
  return (await sql.get(SELECT_EVENT, key) as { outcome: string } | undefined)?.outcome;
}

export async function recordAppliedHookEvent(sql: Sql, input: { namespace: string; eventId: string; outcome: string; at: number }): Promise<void> {
  await sql.run(INSERT_EVENT, input);
}

export async function pruneAppliedHookEvents(sql: Sql, input: { olderThan: number }): Promise<number> {
  return (await sql.run(PRUNE, input)).changes;
}
