/**
 * Which turn tool activity and usage go to, and what counts as a turn's activity (spec 9: the turn
 * timeout counts from its latest). Shared by turn-events.ts and usage-events.ts, which import it and
 * not each other.
 */
import { randomUUID } from 'node:crypto';
import type { TurnSummary } from '../../shared/protocol/session.js';
import type { StoredSession } from '../store/sessions.js';
import type { Tx } from '../store/sql.js';
import { getLatestTurn, getTurn, insertTurn, touchTurn } from '../store/turns.js';

/** Tool activity within this long after a turn closed still belongs to it (spec section 6). */
const LATE_ACTIVITY_WINDOW_MS = 60_000;

/** Where tool activity goes: the open turn, else the latest turn if it closed within a minute, else a new recovery turn. */
export async function turnForActivity(tx: Tx, session: StoredSession, now: number): Promise<TurnSummary> {
  if (session.currentTurnId !== null) {
    const open = await getTurn(tx, session.currentTurnId);
    if (open?.status === 'open') return open;
  }
  const latest = await getLatestTurn(tx, session.sid);
  if (latest && latest.closedAt !== null && now - latest.closedAt <= LATE_ACTIVITY_WINDOW_MS) return latest;
  const turnId = randomUUID();
  await insertTurn(tx, {
    turnId,
    sid: session.sid,
    kind: 'recovery',
    prompt: null,
    promptTruncated: false,
    promptId: null,
    status: 'completed',
    openedAt: now,
    closedAt: now,
  });
  return (await getTurn(tx, turnId))!;
}

/**
 * The session's open turn had activity at `at` (a tool use, usage, a thinking heartbeat, an
 * attention change, any hook event): its timeout restarts from there. `at` is the hub's clock.
 */
export async function noteTurnActivity(tx: Tx, session: StoredSession, at: number): Promise<void> {
  if (session.currentTurnId !== null) await touchTurn(tx, { turnId: session.currentTurnId, at });
}
