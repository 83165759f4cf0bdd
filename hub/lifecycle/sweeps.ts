/**
 * Background recovery (spec section 9): closes turns left open, marks silent sessions inactive, ends
 * runs whose runner never came back, ends detached runs gone silent, idles sessions with no activity,
 * and prunes the replay log.
 * Every query walks a partial index in bounded batches; no sweep scans every row.
 */
import { dueTurnThresholds } from '../services/turn-deadlines.js';
import { pruneAppliedRequests } from '../store/applied-requests.js';
import { pruneAppliedHookEvents } from '../store/hook-events.js';
import { pruneEvents } from '../store/events.js';
import { pruneDeadHubs } from '../store/hubs.js';
import { listAgentSilentRuns, listLostRuns, listSilentDetachedRuns, markRunsOfDeadHubsDisconnected, prefetchRunsDetached, type StoredRun } from '../store/runs.js';
import {
  getSessionAnyNamespace,
  listRunningSessionsWithoutActivity,
  listStaleActiveSessions,
  updateCurrentTurn,
} from '../store/sessions.js';
import { closeTurn, countOpenTurnsOlderThan, listDueOpenTurns } from '../store/turns.js';
import { prefetchSessionsToEnd, prefetchTurnSessions } from '../store/batch-reads.js';
import { runWrite, type ChangeSet } from '../services/changes.js';
import { expireStaleIn } from '../people/messages.js';
import type { Tx } from '../store/sql.js';
import type { HubDeps } from '../services/deps.js';
import { endAbandonedRun, setLifecycle, setPresence } from './transitions.js';

/** A hub process that has not recorded a heartbeat for this many intervals is presumed dead. */
export const HUB_PRESUMED_DEAD_AFTER_HEARTBEATS = 3;
/** Items per unit of work; the sweep yields to the event loop after each batch that changed something. */
const BATCH = 200;
/** A sweep running longer than this logs its progress at info, at most once per this interval. */
const PROGRESS_EVERY_MS = 1000;

export interface SweepReport {
  turnsTimedOut: number;
  sessionsInactive: number;
  /** Live runs whose hub process stopped heartbeating: their grace starts (cluster). */
  runsOfStoppedHubs: number;
  runsInterrupted: number;
  /** Detached runs ended as interrupted: runner_silent (no hook event for the idle time) or agent_silent (no keeper report). */
  silentRunsEnded: number;
  sessionsIdled: number;
  /** People's messages nobody took within the message TTL, ended `expired`. */
  messagesExpired: number;
  eventsPruned: number;
  /** Wall time from start to end, including the event-loop turns given to other work between batches. */
  durationMs: number;
}

export interface SweepOptions {
  /** Stops the sweep before its next batch (the hub is closing); the report counts what was done. */
  signal?: AbortSignal;
}

/** One kind of sweep work: a batch step, and how it reads in a progress line. */
interface Phase {
  /** e.g. "closed 2000/10000 timed-out turns": `${verb} ${done}/${due} ${noun}` */
  verb: string;
  noun: string;
  /** How many are due in all (done + still due); only asked for when a progress line is logged. */
  countDue?: () => Promise<number>;
  step: (tx: Tx, changes: ChangeSet) => Promise<number>;
}

/** Lets socket I/O, acks, heartbeats and HTTP run between two batches. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Repeats a phase's batch, each one unit of work, until a batch handles fewer than BATCH. Yields to
 * the event loop after every batch that did something, so a sweep with thousands of items due never
 * holds the loop for more than one batch (a sweep with nothing due never yields at all).
 */
async function inBatches(deps: HubDeps, phase: Phase, pass: { started: number; lastProgressAt: number; options: SweepOptions }): Promise<number> {
  let done = 0;
  let due: number | undefined;
  for (;;) {
    if (pass.options.signal?.aborted) return done;
    const handled = await runWrite(deps, (tx, changes) => phase.step(tx, changes));
    done += handled;
    if (handled === 0) return done;
    const now = performance.now();
    if (now - pass.started >= PROGRESS_EVERY_MS && now - pass.lastProgressAt >= PROGRESS_EVERY_MS) {
      pass.lastProgressAt = now;
      due ??= phase.countDue ? done + (await phase.countDue()) : undefined;
      const progress = due === undefined ? `${done} so far` : `${done}/${Math.max(due, done)}`;
      deps.log.info({ elapsedMs: Math.round(now - pass.started) }, `sweep: ${phase.verb} ${progress} ${phase.noun}`);
    }
    await yieldToEventLoop();
    if (handled < BATCH) return done;
  }
}

/** A phase that ends, as the hub, the runs a query finds (a batch at a time) for `reason`. */
function endAbandonedRuns(noun: string, list: (tx: Tx) => Promise<StoredRun[]>, reason: string, now: number): Phase {
  return {
    verb: 'ended',
    noun,
    step: async (tx, changes) => {
      const runs = await list(tx);
      // their sessions and what ending them reads, for the whole batch (PostgreSQL)
      await prefetchSessionsToEnd(tx, runs.map((run) => run.sid));
      for (const run of runs) {
        const session = await getSessionAnyNamespace(tx, run.sid);
        if (session) await endAbandonedRun(tx, changes, session, { reason, now });
      }
      return runs.length;
    },
  };
}

/** How long applied hook event ids are kept (a re-sent one changes nothing). */
const HOOK_EVENT_IDS_KEEP_MS = 30 * 86_400_000;

/**
 * One sweep. Thresholds and timestamps use the clock at its start, so a long sweep is one consistent
 * pass; each batch re-reads what is due, so whatever changed between batches is seen as it is now.
 */
export async function sweep(deps: HubDeps, options: SweepOptions = {}): Promise<SweepReport> {
  const started = performance.now();
  const pass = { started, lastProgressAt: started, options };
  const now = deps.clock.now();
  const { config, store } = deps;

  const turnsDue = dueTurnThresholds(now, config);
  const turnsTimedOut = await inBatches(deps, {
    verb: 'closed',
    noun: 'timed-out turns',
    countDue: () => countOpenTurnsOlderThan(store, turnsDue),
    step: async (tx, changes) => {
      // each row carries its session's namespace and whether it is the current turn: no session read
      const due = await listDueOpenTurns(tx, { ...turnsDue, limit: BATCH });
      await prefetchTurnSessions(tx, due.map(({ turn, namespace }) => ({ sid: turn.sid, namespace })));
      for (const { turn, namespace, isCurrent } of due) {
        // read as open in this same transaction, so this closes it (and abandons its tools still
        // running); the response is kept as stored, and a stop that comes later lands on it
        await closeTurn(tx, { turnId: turn.turnId, status: 'timeout', closedAt: now, response: null });
        if (isCurrent) {
          await updateCurrentTurn(tx, { sid: turn.sid, turnId: null, now });
          changes.currentTurnMovedOf(turn.sid);
        }
        if (namespace !== null) changes.turn(namespace, { ...turn, status: 'timeout', closedAt: now });
      }
      return due.length;
    },
  }, pass);

  const sessionsInactive = await inBatches(deps, {
    verb: 'marked',
    noun: 'sessions inactive',
    step: async (tx, changes) => {
      const sessions = await listStaleActiveSessions(tx, { before: now - config.aliveTimeoutMs, limit: BATCH });
      // what their activity shows once inactive depends on whether their live runs are detached
      await prefetchRunsDetached(tx, sessions.map((session) => session.sid));
      for (const session of sessions) {
        await setPresence(tx, changes, session, { ...session.presence, active: false, thinking: false });
      }
      return sessions.length;
    },
  }, pass);

  // A hub process that died (kill -9) took its runner sockets along without marking their runs;
  // whichever process sweeps next starts their grace, so they end unless the runner comes back.
  const runsOfStoppedHubs = await runWrite(deps, async (tx) => {
    const aliveSince = now - HUB_PRESUMED_DEAD_AFTER_HEARTBEATS * config.heartbeatMs;
    const marked = await markRunsOfDeadHubsDisconnected(tx, { selfHubId: deps.hubId, aliveSince, at: now });
    await pruneDeadHubs(tx, { before: aliveSince });
    return marked;
  });

  const runsInterrupted = await inBatches(
    deps,
    endAbandonedRuns('runs whose runner was lost', (tx) => listLostRuns(tx, { before: now - config.runGraceMs, limit: BATCH }), 'runner_lost', now),
    pass,
  );

  // A detached run (hook bridge) has no socket to lose, so no grace. Its agent's keeper reports that
  // the agent lives: silent past the alive window, agent and keeper are gone (a crash, kill -9 of
  // both, a machine off). A run no keeper ever reported for (an older bridge) ends when its session
  // has had no activity for the idle time: before the idle step, with the same threshold, so such a
  // session ends rather than idles (and its query only reads running sessions the idle step reads anyway).
  const silentRunsEnded =
    (await inBatches(
      deps,
      endAbandonedRuns('detached runs whose agent stopped reporting', (tx) => listAgentSilentRuns(tx, { before: now - config.agentAliveMs, limit: BATCH }), 'agent_silent', now),
      pass,
    )) +
    (await inBatches(
      deps,
      endAbandonedRuns('silent detached runs', (tx) => listSilentDetachedRuns(tx, { before: now - config.idleMs, limit: BATCH }), 'runner_silent', now),
      pass,
    ));

  const sessionsIdled = await inBatches(deps, {
    verb: 'idled',
    noun: 'sessions',
    step: async (tx, changes) => {
      const sessions = await listRunningSessionsWithoutActivity(tx, { before: now - config.idleMs, limit: BATCH });
      await prefetchRunsDetached(tx, sessions.map((session) => session.sid));
      for (const session of sessions) await setLifecycle(tx, changes, session, { state: 'idle', reason: 'no_activity', by: 'hub', now });
      return sessions.length;
    },
  }, pass);

  const messagesExpired = await inBatches(deps, {
    verb: 'expired',
    noun: 'queued messages',
    step: (tx, changes) => expireStaleIn(tx, changes, { before: now - config.messageTtlMs, limit: BATCH, now }),
  }, pass);

  if (options.signal?.aborted) {
    return { turnsTimedOut, sessionsInactive, runsOfStoppedHubs, runsInterrupted, silentRunsEnded, sessionsIdled, messagesExpired, eventsPruned: 0, durationMs: performance.now() - started };
  }
  const eventsPruned = await runWrite(deps, async (tx) => {
    const pruned = await pruneEvents(tx, { keepCount: config.eventKeep, keepMs: config.eventKeepMs, now });
    await pruneAppliedRequests(tx, { olderThan: now - Math.max(config.eventKeepMs, 86_400_000) });
    // a hook event re-sent after this long (a spool left on a machine for a month) is applied again
    await pruneAppliedHookEvents(tx, { olderThan: now - HOOK_EVENT_IDS_KEEP_MS });
    return pruned;
  });

  return { turnsTimedOut, sessionsInactive, runsOfStoppedHubs, runsInterrupted, silentRunsEnded, sessionsIdled, messagesExpired, eventsPruned, durationMs: performance.now() - started };
}
