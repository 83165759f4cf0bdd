import { resumeTokenKeyOf } from '../../shared/flavors.js';
import type { ResumeStatus } from '../../shared/protocol/session.js';
import type { ResumeUnavailableReason } from '../../shared/protocol/http.js';
import type { ResumeTokenState } from '../store/resume-tokens.js';
import type { StoredSession } from '../store/sessions.js';

export type ResumeVerdict =
  | { kind: 'unavailable'; tokenKey: string | null; reason: ResumeUnavailableReason }
  | { kind: 'unsafe'; tokenKey: string; token: unknown; reason: string }
  | { kind: 'ok'; tokenKey: string; token: unknown };

/**
 * What a resume would answer now (spec section 7). Nothing here deletes a token: invalidation only
 * changes the verdict. Order: no_token, token_rejected, token_expired, then the safety gate.
 */
export function judgeResume(input: {
  session: StoredSession;
  tokenState: ResumeTokenState | undefined;
  now: number;
  tokenTtlMs: number;
}): ResumeVerdict {
  const { session, tokenState } = input;
  const tokenKey = resumeTokenKeyOf(session.flavor);
  const token = tokenKey === null ? undefined : session.metadata[tokenKey];
  if (tokenKey === null || token === undefined || token === null) return { kind: 'unavailable', tokenKey, reason: 'no_token' };
  const current = tokenState !== undefined && tokenState.value === JSON.stringify(token) ? tokenState : undefined;
  if (current?.rejected) return { kind: 'unavailable', tokenKey, reason: 'token_rejected' };
  if (current && input.now - current.since > input.tokenTtlMs) return { kind: 'unavailable', tokenKey, reason: 'token_expired' };
  const lastRun = session.lastRun;
  if (lastRun?.status === 'running') return { kind: 'unsafe', tokenKey, token, reason: 'run_in_progress' };
  if (lastRun && lastRun.status !== 'success') return { kind: 'unsafe', tokenKey, token, reason: `last_run_${lastRun.status}` };
  return { kind: 'ok', tokenKey, token };
}

export function toResumeStatus(verdict: ResumeVerdict): ResumeStatus {
  switch (verdict.kind) {
    case 'unavailable':
      return { available: false, safe: false, tokenKey: verdict.tokenKey, reason: verdict.reason };
    case 'unsafe':
      return { available: true, safe: false, tokenKey: verdict.tokenKey, reason: verdict.reason };
    case 'ok':
      return { available: true, safe: true, tokenKey: verdict.tokenKey, reason: null };
  }
}
