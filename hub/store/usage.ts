/**
 * Token usage per turn and model (table `turn_usage`, migration 010), session totals, and the
 * totals /api/usage groups by day, flavor, project or model (docs/usage.md).
 */
import type { ModelUsage, UsageTotals } from '../../shared/protocol/usage.js';
import type { Query, Sql } from './sql.js';
import { turnWritten } from './turn-cache.js';
import { keyList } from './key-lists.js';
import { noneToRead, sessionsToRead } from './carried-reads.js';

interface UsageRow {
  turn_id: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number | null;
}

interface TotalsRow {
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  cost_usd: number | null;
  unpriced_tokens: number | null;
}

const USAGE_OF_TURN = `SELECT * FROM turn_usage WHERE turn_id = @turnId ORDER BY model`;
const USAGE_OF_SESSION_TURNS = `SELECT * FROM turn_usage WHERE sid = @sid ORDER BY turn_id, model`;
const UPSERT = `
  INSERT INTO turn_usage (turn_id, model, sid, namespace, at, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd)
  VALUES (@turnId, @model, @sid, @namespace, @at, @inputTokens, @outputTokens, @cacheReadTokens, @cacheWriteTokens, @costUsd)
  ON CONFLICT (turn_id, model) DO UPDATE SET
    input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
    cache_read_tokens = excluded.cache_read_tokens, cache_write_tokens = excluded.cache_write_tokens, cost_usd = excluded.cost_usd`;

/** Sums as integers on both engines (PostgreSQL's SUM of BIGINT is NUMERIC, read back as text). */
const TOTALS = `
  CAST(SUM(input_tokens) AS BIGINT) AS input_tokens, CAST(SUM(output_tokens) AS BIGINT) AS output_tokens,
  CAST(SUM(cache_read_tokens) AS BIGINT) AS cache_read_tokens, CAST(SUM(cache_write_tokens) AS BIGINT) AS cache_write_tokens,
  SUM(cost_usd) AS cost_usd,
  CAST(SUM(CASE WHEN cost_usd IS NULL THEN input_tokens + output_tokens + cache_read_tokens + cache_write_tokens ELSE 0 END) AS BIGINT) AS unpriced_tokens`;
export const SESSION_TOTALS = `SELECT ${TOTALS} FROM turn_usage WHERE sid = @sid`;

function toModelUsage(row: UsageRow): ModelUsage {
  return {
    model: row.model,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cacheReadTokens: row.cache_read_tokens,
    cacheWriteTokens: row.cache_write_tokens,
    costUsd: row.cost_usd,
  };
}

function toTotals(row: TotalsRow | undefined): UsageTotals {
  return {
    inputTokens: row?.input_tokens ?? 0,
    outputTokens: row?.output_tokens ?? 0,
    cacheReadTokens: row?.cache_read_tokens ?? 0,
    cacheWriteTokens: row?.cache_write_tokens ?? 0,
    costUsd: row?.cost_usd ?? null,
    unpricedTokens: row?.unpriced_tokens ?? 0,
  };
}

export async function getTurnUsage(sql: Sql, turnId: string): Promise<ModelUsage[]> {
  return (await sql.all<UsageRow>(USAGE_OF_TURN, { turnId })).map(toModelUsage);
}

export const USAGE_OF_CURRENT_TURNS = `
  SELECT * FROM turn_usage WHERE turn_id IN (
    SELECT current_turn_id FROM sessions WHERE namespace = @namespace
      AND (sid = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@sids AS jsonb)))) OR tag = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@tags AS jsonb))))))
  ORDER BY turn_id, model`;

/** The usage of the current turns of these sessions (by sid or tag), by turn id: PostgreSQL's batch reads (turns.ts). */
export async function getCurrentTurnsUsage(sql: Sql, input: { namespace: string; sids: readonly string[]; tags: readonly string[] }): Promise<Map<string, ModelUsage[]>> {
  return byTurnId(await sql.all<UsageRow>(USAGE_OF_CURRENT_TURNS, { namespace: input.namespace, sids: keyList(input.sids), tags: keyList(input.tags) }));
}

export const USAGE_OF_TURNS = `
  SELECT * FROM turn_usage WHERE turn_id = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@turnIds AS jsonb)))) ORDER BY turn_id, model`;

/** The usage of these turns, by turn id, in one statement (PostgreSQL: a sweep's due turns). */
export async function getTurnsUsage(sql: Sql, turnIds: readonly string[]): Promise<Map<string, ModelUsage[]>> {
  return byTurnId(await sql.all<UsageRow>(USAGE_OF_TURNS, { turnIds: keyList(turnIds) }));
}

function byTurnId(rows: readonly UsageRow[]): Map<string, ModelUsage[]> {
  const byTurn = new Map<string, ModelUsage[]>();
  for (const row of rows) {
    const list = byTurn.get(row.turn_id) ?? [];
    list.push(toModelUsage(row));
    byTurn.set(row.turn_id, list);
  }
  return byTurn;
}

/** Every turn's usage of a session, by turn id (turns without usage are absent). */
export async function getSessionTurnsUsage(sql: Sql, sid: string): Promise<Map<string, ModelUsage[]>> {
  return byTurnId(await sql.all<UsageRow>(USAGE_OF_SESSION_TURNS, { sid }));
}

/** Writes a turn's usage of these models (their whole new values). */
export async function putTurnUsage(sql: Sql, turn: { turnId: string; sid: string; namespace: string; openedAt: number }, usage: readonly ModelUsage[]): Promise<void> {
  // nothing to learn from the row counts: the upserts wait for the batch's next round trip
  for (const entry of usage) await sql.write(UPSERT, { turnId: turn.turnId, sid: turn.sid, namespace: turn.namespace, at: turn.openedAt, ...entry });
  // a cached turn takes the same values (by model, as USAGE_OF_TURN orders them); the session's
  // known totals move by the difference from the turn's values before, else they are read again
  const cache = totalsCacheOf(sql);
  let moved = false;
  turnWritten(sql, turn.turnId, (cached) => {
    const byModel = new Map(cached.usage.map((entry) => [entry.model, entry]));
    moved = moveTotals(cache, turn.sid, usage.map((entry) => ({ before: byModel.get(entry.model), after: entry })));
    for (const entry of usage) byModel.set(entry.model, { ...entry });
    cached.usage = [...byModel.values()].sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
  });
  if (!moved) cache?.delete(totalsKey(turn.sid));
}

const tokensOf = (usage: ModelUsage) => usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;

/**
 * A session's cached totals (and how many of its rows have a price: SUM of no price is null) moved
 * from each row's values before to after; false when they are not known (then they are read again).
 */
function moveTotals(cache: Map<string, unknown> | undefined, sid: string, rows: readonly { before: ModelUsage | undefined; after: ModelUsage }[]): boolean {
  const totals = cache?.get(totalsKey(sid)) as UsageTotals | undefined;
  const priced = cache?.get(pricedKey(sid)) as number | undefined;
  if (totals === undefined || priced === undefined) return false;
  let { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costUsd, unpricedTokens } = totals;
  let pricedRows = priced;
  for (const { before, after } of rows) {
    for (const [entry, sign] of [[before, -1], [after, 1]] as const) {
      if (entry === undefined) continue;
      inputTokens += sign * entry.inputTokens;
      outputTokens += sign * entry.outputTokens;
      cacheReadTokens += sign * entry.cacheReadTokens;
      cacheWriteTokens += sign * entry.cacheWriteTokens;
      if (entry.costUsd === null) unpricedTokens += sign * tokensOf(entry);
      else (pricedRows += sign), (costUsd = (costUsd ?? 0) + sign * entry.costUsd);
    }
  }
  cache!.set(totalsKey(sid), { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costUsd: pricedRows === 0 ? null : Math.max(0, costUsd ?? 0), unpricedTokens });
  cache!.set(pricedKey(sid), pricedRows);
  return true;
}

/*
 * A session created in a PostgreSQL transaction has no usage yet (noUsageYet): its snapshots in
 * that transaction read no totals. Any usage write drops what is known.
 */
const totalsKey = (sid: string) => `usage-totals:${sid}`;
const pricedKey = (sid: string) => `usage-priced-rows:${sid}`;
const totalsCacheOf = (sql: Sql) => (sql.dialect === 'postgres' ? sql.rowCache : undefined);

/** A session created in this PostgreSQL transaction has no usage yet. */
export function noUsageYet(sql: Sql, sid: string): void {
  totalsCacheOf(sql)?.set(totalsKey(sid), toTotals(undefined));
  totalsCacheOf(sql)?.set(pricedKey(sid), 0);
}

export const TOTALS_OF_SESSIONS = `
  SELECT s.sid AS session_sid, ${TOTALS}, COUNT(cost_usd) AS priced_rows FROM sessions s LEFT JOIN turn_usage ON turn_usage.sid = s.sid
  WHERE s.namespace = @namespace AND (s.sid = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@sids AS jsonb)))) OR s.tag = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@tags AS jsonb)))))
  GROUP BY s.sid`;

/** These sessions' (by sid or tag) usage totals, for a PostgreSQL batch whose writes show them whole, in one statement. */
export async function prefetchSessionUsage(sql: Sql, input: { namespace: string; sids: readonly string[]; tags: readonly string[] }): Promise<void> {
  const cache = totalsCacheOf(sql);
  if (!cache) return;
  const toRead = sessionsToRead(sql, input, (sid) => cache.has(totalsKey(sid)));
  if (noneToRead(toRead)) return;
  const rows = await sql.all<TotalsRow & { session_sid: string; priced_rows: number }>(TOTALS_OF_SESSIONS, { namespace: input.namespace, sids: keyList(toRead.sids), tags: keyList(toRead.tags) });
  for (const row of rows) {
    if (cache.has(totalsKey(row.session_sid))) continue;
    cache.set(totalsKey(row.session_sid), toTotals(row));
    cache.set(pricedKey(row.session_sid), Number(row.priced_rows));
  }
}

export async function getSessionUsage(sql: Sql, sid: string): Promise<UsageTotals> {
  const known = totalsCacheOf(sql)?.get(totalsKey(sid)) as UsageTotals | undefined;
  if (known) return { ...known };
  return toTotals(await sql.get<TotalsRow>(SESSION_TOTALS, { sid }));
}

export type UsageGroupBy = 'day' | 'flavor' | 'project' | 'model';

/** The group key of each grouping; day is the UTC calendar day of the turn's opening. */
const GROUP_KEY: Record<UsageGroupBy, { sqlite: string; postgres: string }> = {
  day: { sqlite: `strftime('%Y-%m-%d', turn_usage.at / 1000, 'unixepoch')`, postgres: `to_char(to_timestamp(turn_usage.at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')` },
  flavor: { sqlite: 'sessions.flavor', postgres: 'sessions.flavor' },
  project: { sqlite: 'sessions.project', postgres: 'sessions.project' },
  model: { sqlite: 'turn_usage.model', postgres: 'turn_usage.model' },
};

/** The totals of the namespace's usage in [from, to), one row per group, by key (no key: last). */
export function usageReportQuery(groupBy: UsageGroupBy): Query {
  const text = (dialect: 'sqlite' | 'postgres') => {
    const key = GROUP_KEY[groupBy][dialect];
    // the session's flavor and project need its row; day and model do not
    const join = groupBy === 'flavor' || groupBy === 'project' ? 'JOIN sessions ON sessions.sid = turn_usage.sid' : '';
    return `SELECT ${key} AS group_key, ${TOTALS}
  FROM turn_usage ${join}
  WHERE turn_usage.namespace = @namespace AND turn_usage.at >= @from AND turn_usage.at < @to
  GROUP BY ${key}
  ORDER BY (${key}) IS NULL, ${key}`;
  };
  return { sqlite: text('sqlite'), postgres: text('postgres') };
}

export async function usageReport(
  sql: Sql,
  query: { namespace: string; from: number; to: number; groupBy: UsageGroupBy },
): Promise<{ key: string | null; totals: UsageTotals }[]> {
  const rows = await sql.all<TotalsRow & { group_key: string | null }>(usageReportQuery(query.groupBy), { namespace: query.namespace, from: query.from, to: query.to });
  return rows.map((row) => ({ key: row.group_key, totals: toTotals(row) }));
}
