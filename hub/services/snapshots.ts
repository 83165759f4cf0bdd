import { resumeTokenKeyOf } from '../../shared/flavors.js';
import type { LastRun, Lifecycle, Presence, SessionSnapshot } from '../../shared/protocol/session.js';
import { getResumeToken } from '../store/resume-tokens.js';
import type { StoredSession } from '../store/sessions.js';
import { getTurn } from '../store/turns.js';
import type { HubDeps } from './deps.js';
import { judgeResume, toResumeStatus, type ResumeVerdict } from './resume-status.js';

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

export function resumeVerdictOf(deps: Pick<HubDeps, 'db' | 'clock' | 'config'>, session: StoredSession): ResumeVerdict {
  const tokenKey = resumeTokenKeyOf(session.flavor);
  return judgeResume({
    session,
    tokenState: tokenKey === null ? undefined : getResumeToken(deps.db, { sid: session.sid, key: tokenKey }),
    now: deps.clock.now(),
    tokenTtlMs: deps.config.tokenTtlMs,
  });
}

export function toSnapshot(deps: Pick<HubDeps, 'db' | 'clock' | 'config'>, session: StoredSession): SessionSnapshot {
  const currentTurn = session.currentTurnId === null ? null : (getTurn(deps.db, session.currentTurnId) ?? null);
  return {
    sid: session.sid,
    namespace: session.namespace,
    tag: session.tag,
    flavor: session.flavor,
    parentSid: session.parentSid,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    metadata: { version: session.metadataVersion, value: session.metadata },
    agentState: { version: session.agentStateVersion, value: session.agentState },
    lifecycle: lifecycleOf(session),
    presence: presenceOf(session),
    resume: toResumeStatus(resumeVerdictOf(deps, session)),
    currentTurn: currentTurn?.status === 'open' ? currentTurn : null,
  };
}
