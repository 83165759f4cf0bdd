import { requireSession } from '../services/require-session.js';
import type { ResumeFailedAck, ResumeFailedPayload } from '../../shared/protocol/lifecycle.js';
import { runWrite, sessionWrite } from '../services/changes.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { markResumeTokenRejected } from '../store/resume-tokens.js';
import { claimResumeRetry } from '../store/runs.js';
import { listTurns } from '../store/turns.js';

/**
 * `resume-failed` (spec section 7): an agent the vendor already expired fails its first turn. One
 * fresh start per run — never after output was emitted, never after an abort — with the turns to
 * replay; the token is marked rejected (never deleted) so it is not handed out again.
 */
export function resumeFailed(deps: HubDeps, actor: Actor, payload: ResumeFailedPayload): Promise<Extract<ResumeFailedAck, { ok: true }>> {
  return runWrite(
    deps,
    async (tx, changes) => {
      const session = await requireSession(tx, actor, payload.sid);
      const run = session.lastRun;
      const retryAllowed = !payload.emitted && !payload.aborted && run?.status === 'running';
      if (!retryAllowed || !await claimResumeRetry(tx, run.runId)) return { ok: true as const, action: 'fail' as const };
      await markResumeTokenRejected(tx, { sid: session.sid, key: payload.tokenKey, value: payload.token });
      changes.changed(session, 'lifecycle');
      const replay = (await listTurns(tx, session.sid)).filter((turn) => turn.kind === 'prompt');
      return { ok: true as const, action: 'fresh-start' as const, replay };
    },
    sessionWrite(actor, payload.sid),
  );
}
