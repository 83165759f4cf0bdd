import { requireSession } from './require-session.js';
import type { ResumePolicy, ResumeResponse } from '../../shared/protocol/http.js';
import type { Actor, HubDeps } from './deps.js';
import { lastRunOf, resumeVerdictOf } from './snapshots.js';

/** A 409 of section 7: `resume_unavailable` or `resume_unsafe`, with its reason. */
export class ResumeRefused extends Error {
  constructor(
    readonly error: 'resume_unavailable' | 'resume_unsafe',
    readonly reason: string,
  ) {
    super(
      error === 'resume_unavailable'
        ? `this session cannot be resumed: ${reason}`
        : `resuming is unsafe (${reason}); retry with policy "force" to resume anyway`,
    );
    this.name = 'ResumeRefused';
  }
}

/** `POST /api/sessions/:sid/resume`: the token to resume with, or why not. `force` skips only the safety gate. */
export async function resumeSession(deps: HubDeps, actor: Actor, sid: string, policy: ResumePolicy): Promise<ResumeResponse> {
  const session = await requireSession(deps.store, actor, sid);
  const verdict = await resumeVerdictOf(deps.store, deps, session);
  if (verdict.kind === 'unavailable') throw new ResumeRefused('resume_unavailable', verdict.reason);
  if (verdict.kind === 'unsafe' && policy === 'safe') throw new ResumeRefused('resume_unsafe', verdict.reason);
  const path = session.metadata.path;
  return {
    sid: session.sid,
    flavor: session.flavor,
    tokenKey: verdict.tokenKey,
    token: verdict.token as ResumeResponse['token'],
    path: typeof path === 'string' ? path : null,
    policy,
    lastRun: lastRunOf(session),
  };
}
