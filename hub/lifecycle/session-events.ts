import { sessionEndIsTurnBoundary } from '../../shared/flavors.js';
import type { SessionAlivePayload, SessionArchivePayload, SessionEndPayload, SessionJoinPayload } from '../../shared/protocol/lifecycle.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { requireSession } from '../services/require-session.js';
import { runWrite, sessionWrite, type UnitOfWork } from '../services/changes.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { toSnapshot } from '../services/snapshots.js';
import { claimRun, getRun, handOverRun, setRunDisconnected } from '../store/runs.js';
import { getSession, getSessionAnyNamespace } from '../store/sessions.js';
import type { Tx } from '../store/sql.js';
import type { RunnerBindings } from './bindings.js';
import { runStatusFromArchiveReason, runStatusFromReason } from './run-status.js';
import { archiveSession, closeOpenTurn, endLiveRun, isRunLive, noteActivity, setLifecycle, setPresence } from './transitions.js';
import { noteTurnActivity } from './turn-activity.js';

/** A heartbeat older than this is ignored (spec section 6). */
const STALE_HEARTBEAT_MS = 10 * 60_000;

async function snapshotOf(tx: Tx, deps: HubDeps, actor: Actor, sid: string): Promise<SessionSnapshot> {
  return toSnapshot(tx, deps, (await getSession(tx, { namespace: actor.namespace, sid }))!);
}

/** `session-join`: a reconnected runner rebinds to its session and, within the grace, to its live run. */
export function joinSession(deps: HubDeps, bindings: RunnerBindings, actor: Actor, payload: SessionJoinPayload): Promise<SessionSnapshot> {
  return runWrite(
    deps,
    async (tx, changes, now) => {
      const session = await requireSession(tx, actor, payload.sid);
      if (actor.socketId !== undefined) bindings.bind(actor.socketId, session.sid);
      if (session.lastRun?.status === 'running') await setRunDisconnected(tx, { runId: session.lastRun.runId, at: null, hubId: deps.hubId });
      await setPresence(tx, changes, session, {
        ...session.presence,
        active: true,
        activeAt: session.presence.active ? session.presence.activeAt : now,
        aliveAt: now,
      });
      return await snapshotOf(tx, deps, actor, session.sid);
    },
    sessionWrite(actor, payload.sid),
  );
}

/** Ends the run and the lifecycle, leaving an archived session archived. */
function endRunAndLifecycleWork(deps: HubDeps, actor: Actor, payload: SessionEndPayload): UnitOfWork<SessionSnapshot> {
  return async (tx, changes, now) => {
    const session = await requireSession(tx, actor, payload.sid);
    const reason = payload.reason ?? null;
    await endLiveRun(tx, changes, session, { status: payload.status ?? runStatusFromReason(payload.reason), reason, now });
    if (session.lifecycle.state !== 'ended' && session.lifecycle.state !== 'archived') {
      await setLifecycle(tx, changes, session, { state: 'ended', reason, by: actor.by, now });
    }
    await noteActivity(tx, changes, session, now);
    return await snapshotOf(tx, deps, actor, session.sid);
  };
}

/**
 * `session-end`: for a flavor that fires it after every turn it is only a turn boundary (the run and
 * its restore record stay); for every other flavor it ends the run and the lifecycle.
 */
export function endSession(deps: HubDeps, actor: Actor, payload: SessionEndPayload): Promise<SessionSnapshot> {
  return runWrite(deps, endSessionWork(deps, actor, payload), sessionWrite(actor, payload.sid, { ending: true }));
}

/** The unit of work of `session-end` (the hook route runs it at the event's own time). */
export function endSessionWork(deps: HubDeps, actor: Actor, payload: SessionEndPayload): UnitOfWork<SessionSnapshot> {
  const endAll = endRunAndLifecycleWork(deps, actor, payload);
  return async (tx, changes, now) => {
    const session = await requireSession(tx, actor, payload.sid);
    if (!sessionEndIsTurnBoundary(session.flavor)) return endAll(tx, changes, now);
    await closeOpenTurn(tx, changes, session, { status: 'completed', response: null, now });
    await noteActivity(tx, changes, session, now);
    return await snapshotOf(tx, deps, actor, session.sid);
  };
}

/** `session-finalize`: the true end for every flavor; also releases the runner's binding. */
export async function finalizeSession(deps: HubDeps, bindings: RunnerBindings, actor: Actor, payload: SessionEndPayload): Promise<SessionSnapshot> {
  const snapshot = await runWrite(deps, finalizeSessionWork(deps, actor, payload), sessionWrite(actor, payload.sid, { ending: true }));
  if (actor.socketId !== undefined) bindings.release(actor.socketId, payload.sid);
  return snapshot;
}

/** The unit of work of `session-finalize`, without the socket binding (the hook route has none). */
export function finalizeSessionWork(deps: HubDeps, actor: Actor, payload: SessionEndPayload): UnitOfWork<SessionSnapshot> {
  return endRunAndLifecycleWork(deps, actor, payload);
}

/** `session-archive` (runner) and the HTTP archive (user): lifecycle archived; a live run ends. */
export function archive(deps: HubDeps, actor: Actor, payload: SessionArchivePayload, defaultStatus?: 'cancelled'): Promise<SessionSnapshot> {
  return runWrite(
    deps,
    async (tx, changes, now) => {
      const session = await requireSession(tx, actor, payload.sid);
      const status = payload.status ?? defaultStatus ?? runStatusFromArchiveReason(payload.reason);
      await archiveSession(tx, changes, session, { reason: payload.reason, by: actor.by, status, now });
      await noteActivity(tx, changes, session, now);
      return await snapshotOf(tx, deps, actor, session.sid);
    },
    sessionWrite(actor, payload.sid, { ending: true }),
  );
}

/**
 * `session-alive`: presence heartbeat. Broadcast only when active or thinking changes. From a socket
 * bound to the session (`bound`), it also shows the live run's runner is connected here: a run
 * marked disconnected by mistake (another hub process could not tell it still had this runner) is
 * claimed back.
 */
export function heartbeat(deps: HubDeps, actor: Actor, payload: SessionAlivePayload, bound = false): Promise<void> {
  return runWrite(
    deps,
    async (tx, changes, now) => {
      const session = await requireSession(tx, actor, payload.sid);
      if (payload.time < now - STALE_HEARTBEAT_MS) return;
      if (bound && isRunLive(session)) await claimRun(tx, { runId: session.lastRun!.runId, hubId: deps.hubId });
      // a late or reordered heartbeat never moves the last sign of life backwards
      const aliveAt = Math.max(session.presence.aliveAt ?? 0, Math.min(Math.trunc(payload.time), now));
      const thinking = payload.thinking ?? session.presence.thinking;
      // the agent says it is thinking: its open turn is alive (spec 9), at the hub's time
      if (payload.thinking === true) await noteTurnActivity(tx, session, now);
      await setPresence(tx, changes, session, {
        active: true,
        activeAt: session.presence.active ? session.presence.activeAt : now,
        aliveAt,
        thinking,
      });
    },
    sessionWrite(actor, payload.sid),
  );
}

/**
 * The last runner socket of this process on these sessions went away: inactive at once, and the
 * live run's grace starts — unless the run is detached (its runner never holds a socket for long,
 * e.g. the hook bridge): that one only ends when silent for the idle time (sweeps.ts). A session
 * another hub process still holds a runner socket for stays as it is, and its run now belongs to
 * that process. Hub-originated, so every remaining socket in the room hears of it.
 */
export async function runnerSocketsLost(deps: HubDeps, sids: readonly string[]): Promise<void> {
  if (sids.length === 0) return;
  const heldElsewhere = (await deps.runnerPresence?.heldElsewhere(sids)) ?? new Map<string, string>();
  await runWrite(deps, async (tx, changes, now) => {
    for (const sid of sids) {
      const session = await getSessionAnyNamespace(tx, sid);
      if (!session) continue;
      const holder = heldElsewhere.get(sid);
      if (holder !== undefined) {
        if (isRunLive(session)) await handOverRun(tx, { runId: session.lastRun!.runId, from: deps.hubId, to: holder });
        continue;
      }
      if (isRunLive(session) && !(await getRun(tx, session.lastRun!.runId))?.detached) {
        await setRunDisconnected(tx, { runId: session.lastRun!.runId, at: now, hubId: null });
      }
      await setPresence(tx, changes, session, { ...session.presence, active: false, thinking: false });
    }
  });
}
