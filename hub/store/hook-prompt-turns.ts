/**
 * The turns a hook event may find by its prompt id, read for a PostgreSQL batch at once (issue 31):
 * a hook's prompt id names the session's turn counter (`hook-<turnsEnded>-<digest>`), and the
 * counter only grows, so the only turns an event can match are those opened at the counter's
 * current value. prefetchHookPromptTurns reads exactly those, for every hook session of the batch,
 * with the batch's first round trip; a later lookup of an id at that counter or above is answered
 * from the cache, a hit or a sure miss, and insertTurn adds the turns the batch opens. Anything else
 * (SQLite, a runner's own prompt ids, a session the batch created) reads the database as before.
 */
import type { Sql } from './sql.js';
import { keyList } from './key-lists.js';
import { noneToRead, sessionsToRead } from './carried-reads.js';

/** A prompt id derived by the hub for a hook event, at the session's turn counter. */
export function hookPromptId(turnsEnded: number, digest: string): string {
  return `hook-${turnsEnded}-${digest}`;
}

function counterOf(promptId: string): number | undefined {
  const match = /^hook-(\d+)-/.exec(promptId);
  return match ? Number(match[1]) : undefined;
}

interface PromptTurns {
  /** The counter the session's hook row held when read: every turn opened at it or later is in `turns`. */
  fromCounter: number;
  turns: Map<string, string>;
}

const keyOf = (sid: string) => `hookPromptTurns:${sid}`;
const cacheOf = (sql: Sql) => (sql.dialect === 'postgres' ? sql.rowCache : undefined);

export const PROMPT_TURNS_AT_COUNTER = `
  SELECT s.sid AS session_sid, COALESCE(h.turns_ended, 0) AS counter, t.prompt_id, t.turn_id
  FROM sessions s
    -- LATERAL … LIMIT 1: a key lookup in the cached plan (a join was planned as a scan of every hook session)
    LEFT JOIN LATERAL (SELECT turns_ended FROM hook_sessions WHERE namespace = s.namespace AND tag = s.tag LIMIT 1) h ON true
    LEFT JOIN turns t ON t.sid = s.sid AND t.prompt_id LIKE 'hook-' || COALESCE(h.turns_ended, 0) || '-%'
  WHERE s.namespace = @namespace AND s.tag = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@tags AS jsonb))))`;

/** For each hook session (by tag) of a PostgreSQL batch: the turns opened at its current turn counter, in one statement. */
export async function prefetchHookPromptTurns(sql: Sql, input: { namespace: string; tags: readonly string[] }): Promise<void> {
  const cache = cacheOf(sql);
  if (!cache) return;
  // an entry stays current (promptTurnOpened), whatever the counter has become since
  const { tags } = sessionsToRead(sql, { namespace: input.namespace, sids: [], tags: input.tags }, (sid) => cache.has(keyOf(sid)));
  if (tags.length === 0) return;
  const rows = await sql.all<{ session_sid: string; counter: number | string; prompt_id: string | null; turn_id: string | null }>(PROMPT_TURNS_AT_COUNTER, {
    namespace: input.namespace,
    tags: keyList(tags),
  });
  for (const row of rows) {
    let entry = cache.get(keyOf(row.session_sid)) as PromptTurns | undefined;
    if (!entry) cache.set(keyOf(row.session_sid), (entry = { fromCounter: Number(row.counter), turns: new Map() }));
    if (row.prompt_id !== null && row.turn_id !== null) entry.turns.set(row.prompt_id, row.turn_id);
  }
}

/**
 * The turn id a prompt id names when the batch's read answers it: a turn id, null (surely none), or
 * undefined (not known here: read the database).
 */
export function cachedTurnIdByPromptId(sql: Sql, key: { sid: string; promptId: string }): string | null | undefined {
  const entry = cacheOf(sql)?.get(keyOf(key.sid)) as PromptTurns | undefined;
  const counter = counterOf(key.promptId);
  if (!entry || counter === undefined || counter < entry.fromCounter) return undefined;
  return entry.turns.get(key.promptId) ?? null;
}

/** A turn opened in this transaction: later lookups of its prompt id find it. */
export function promptTurnOpened(sql: Sql, turn: { sid: string; promptId: string | null; turnId: string }): void {
  if (turn.promptId === null) return;
  (cacheOf(sql)?.get(keyOf(turn.sid)) as PromptTurns | undefined)?.turns.set(turn.promptId, turn.turnId);
}
