import { resumeTokenKeyOf } from '../../shared/flavors.js';
import type { LastRun, Lifecycle, Presence, SessionSnapshot } from '../../shared/protocol/session.js';
import { getResumeToken } from '../store/resume-tokens.js';
import type { StoredSession } from '../store/sessions.js';
import type { Sql } from '../store/sql.js';
import { getTurn } from '../store/turns.js';
import { getSessionUsage } from '../store/usage.js';
import type { HubDeps } from './deps.js';
import { judgeResume, toResumeStatus, type ResumeVerdict } from './resume-status.js';
import { sessionViewOf } from './session-view.js';

/** The wire view of the session's last run (the run id stays in the hub). */
export function lastRunOf(session: StoredSession): LastRun | null {
  const { lastRun } = session;
  return lastRun === null ? null : { status: lastRun.status, endedAt: lastRun.endedAt, reason: lastRun.reason };
}

export function lifecycleOf(session: StoredSession): Lifecycle {
  return { ...session.lifecycle, lastRun: lastRunOf(session) };
}

export function presenceOf(session: StoredSession): Presence {
  const { active, activeAt, thinking } = session.presence;
  return { active, activeAt, thinking };
}

export async function resumeVerdictOf(sql: Sql, deps: Pick<HubDeps, 'clock' | 'config'>, session: StoredSession): Promise<ResumeVerdict> {
  const tokenKey = resumeTokenKeyOf(session.flavor);
  return judgeResume({
    session,
    tokenState: tokenKey === null ? undefined : await getResumeToken(sql, { sid: session.sid, key: tokenKey }),
    now: deps.clock.now(),
    tokenTtlMs: deps.config.tokenTtlMs,
  });
}

export async function toSnapshot(sql: Sql, deps: Pick<HubDeps, 'clock' | 'config'>, session: StoredSession): Promise<SessionSnapshot> {
  const turn = session.currentTurnId === null ? null : ((await getTurn(sql, session.currentTurnId)) ?? null);
  const currentTurn = turn?.status === 'open' ? turn : null;
  // read together: on PostgreSQL statements issued in the same tick share one round trip
  const [resume, usage, view] = await Promise.all([resumeVerdictOf(sql, deps, session), getSessionUsage(sql, session.sid), sessionViewOf(sql, session, currentTurn)]);
  return {
    sid: session.sid,
    namespace: session.namespace,
    tag: session.tag,
    flavor: session.flavor,
    parentSid: session.parentSid,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    lastActivityAt: session.lastActivityAt,
    metadata: { version: session.metadataVersion, value: session.metadata },
    agentState: { version: session.agentStateVersion, value: session.agentState },
    lifecycle: lifecycleOf(session),
    presence: presenceOf(session),
    resume: toResumeStatus(resume),
    currentTurn,
    attention: session.attention,
    usage,
    ...view,
  };
}
