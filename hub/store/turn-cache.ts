import type { TurnSummary } from '../../shared/protocol/session.js';
import type { Sql } from './sql.js';

/*
 * Turns read or written in a PostgreSQL transaction stay in its rowCache (sql.ts), kept current by
 * every write of turns.ts and usage.ts: a batch's events read a turn once, not after each of its
 * writes (issue 31: each read is a round trip while the namespace's lock is held). Not on SQLite,
 * whose cache outlives transactions and whose reads cost no round trip.
 */
const keyOf = (turnId: string) => `turn:${turnId}`;

function cacheOf(sql: Sql): Map<string, unknown> | undefined {
  return sql.dialect === 'postgres' ? sql.rowCache : undefined;
}

export function cachedTurn(sql: Sql, turnId: string): TurnSummary | undefined {
  const turn = cacheOf(sql)?.get(keyOf(turnId)) as TurnSummary | undefined;
  return turn && { ...turn };
}

export function rememberTurn(sql: Sql, turn: TurnSummary | undefined): TurnSummary | undefined {
  if (turn) cacheOf(sql)?.set(keyOf(turn.turnId), { ...turn });
  return turn;
}

/** After a write to the turn's row: the same change to its cached copy, or (no `change`) none kept. */
export function turnWritten(sql: Sql, turnId: string, change?: (turn: TurnSummary) => void): void {
  const turn = cacheOf(sql)?.get(keyOf(turnId)) as TurnSummary | undefined;
  if (!turn) return;
  if (change) change(turn);
  else cacheOf(sql)!.delete(keyOf(turnId));
}
