/**
 * Background recovery (spec section 9): closes turns left open, marks silent sessions inactive, ends
 * runs whose runner never came back, ends detached runs gone silent, idles sessions with no activity,
 * and prunes the replay log.
 * Every query walks a partial index in bounded batches; no sweep scans every row.
 */
import { pruneAppliedRequests } from '../store/applied-requests.js';
import { pruneEvents } from '../store/events.js';
import { listLostRuns, listSilentDetachedRuns } from '../store/runs.js';
import {
  getSessionAnyNamespace,
  listRunningSessionsWithoutActivity,
  listStaleActiveSessions,
} from '../store/sessions.js';
import { closeTurn, getTurn, listOpenTurnsOlderThan } from '../store/turns.js';
import { runWrite } from '../services/changes.js';
import type { HubDeps } from '../services/deps.js';
import { closeOpenTurn, endLiveRun, setLifecycle, setPresence } from './transitions.js';

const BATCH = 500;

export interface SweepReport {
  turnsTimedOut: number;
  sessionsInactive: number;
  runsInterrupted: number;
  /** Detached runs ended as interrupted / runner_silent. */
  silentRunsEnded: number;
  sessionsIdled: number;
  eventsPruned: number;
  durationMs: number;
}

/** Repeats a batch until it handles fewer than a full batch; each batch is one unit of work. */
function inBatches(step: () => number): number {
  let total = 0;
  for (;;) {
    const handled = step();
    total += handled;
    if (handled < BATCH) return total;
  }
}

export function sweep(deps: HubDeps): SweepReport {
  const started = performance.now();
  const now = deps.clock.now();
  const { config, db } = deps;

  const turnsTimedOut = inBatches(() =>
    runWrite(deps, (changes) => {
      const turns = listOpenTurnsOlderThan(db, { before: now - config.turnTimeoutMs, limit: BATCH });
      for (const turn of turns) {
        const session = getSessionAnyNamespace(db, turn.sid);
        if (session?.currentTurnId === turn.turnId) {
          closeOpenTurn(db, changes, session, { status: 'timeout', response: null, now });
        } else if (closeTurn(db, { turnId: turn.turnId, status: 'timeout', closedAt: now, response: null }) && session) {
          changes.turn(session.namespace, getTurn(db, turn.turnId)!);
        }
      }
      return turns.length;
    }),
  );

  const sessionsInactive = inBatches(() =>
    runWrite(deps, (changes) => {
      const sessions = listStaleActiveSessions(db, { before: now - config.aliveTimeoutMs, limit: BATCH });
      for (const session of sessions) {
        setPresence(db, changes, session, { ...session.presence, active: false, thinking: false });
      }
      return sessions.length;
    }),
  );

  const runsInterrupted = inBatches(() =>
    runWrite(deps, (changes) => {
      const runs = listLostRuns(db, { before: now - config.runGraceMs, limit: BATCH });
      for (const run of runs) {
        const session = getSessionAnyNamespace(db, run.sid);
        if (!session) continue;
        endLiveRun(db, changes, session, { status: 'interrupted', reason: 'runner_lost', now });
        if (session.lifecycle.state !== 'archived') setLifecycle(db, changes, session, { state: 'ended', reason: 'runner_lost', by: 'hub', now });
      }
      return runs.length;
    }),
  );

  // A detached run (hook bridge) has no socket to lose, so no grace: it ends when its session has had
  // no activity for the idle time. Before the idle step, with the same threshold, so such a session
  // ends rather than idles (and its query only reads running sessions the idle step reads anyway).
  const silentRunsEnded = inBatches(() =>
    runWrite(deps, (changes) => {
      const runs = listSilentDetachedRuns(db, { before: now - config.idleMs, limit: BATCH });
      for (const run of runs) {
        const session = getSessionAnyNamespace(db, run.sid);
        if (!session) continue;
        endLiveRun(db, changes, session, { status: 'interrupted', reason: 'runner_silent', now });
        setLifecycle(db, changes, session, { state: 'ended', reason: 'runner_silent', by: 'hub', now });
      }
      return runs.length;
    }),
  );

  const sessionsIdled = inBatches(() =>
    runWrite(deps, (changes) => {
      const sessions = listRunningSessionsWithoutActivity(db, { before: now - config.idleMs, limit: BATCH });
      for (const session of sessions) setLifecycle(db, changes, session, { state: 'idle', reason: 'no_activity', by: 'hub', now });
      return sessions.length;
    }),
  );

  const eventsPruned = pruneEvents(db, { keepCount: config.eventKeep, keepMs: config.eventKeepMs, now });
  pruneAppliedRequests(db, { olderThan: now - Math.max(config.eventKeepMs, 86_400_000) });

  return { turnsTimedOut, sessionsInactive, runsInterrupted, silentRunsEnded, sessionsIdled, eventsPruned, durationMs: performance.now() - started };
}
