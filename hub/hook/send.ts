/**
 * One POST /api/hooks (part of the bridge bundle: no client library, no schema; the request goes
 * out through ./http-post.ts). The answer is classified so the bridge can tell a hub that is away
 * (keep the events, retry) from one that refuses the token (401/403: a misconfigured hook) or the
 * request itself.
 */
import type { HookResult } from '../../shared/protocol/hooks.js';
import { postJson } from './http-post.js';

export type SendOutcome =
  | { kind: 'answered'; results: HookResult[] }
  /** 401/403: the token is unknown, revoked, or of the wrong role. */
  | { kind: 'refused'; status: number; message: string }
  /** 400/413: the hub cannot take this request as it is (re-sending it changes nothing). */
  | { kind: 'unreadable'; status: number; message: string }
  /** Down, timed out, 429, 5xx: try again later. */
  | { kind: 'unreachable'; message: string };

function errorMessage(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: string; message?: string };
    return `${status} ${parsed.error ?? ''}: ${parsed.message ?? body}`.trim();
  } catch {
    return `${status}: ${body.slice(0, 200)}`;
  }
}

export async function postHooks(url: string, token: string, body: string, timeoutMs: number): Promise<SendOutcome> {
  let target: URL;
  try {
    target = new URL('/api/hooks', url);
  } catch {
    return { kind: 'unreachable', message: `SESSION_HUB_URL "${url}" is not a URL` };
  }
  let answer;
  try {
    answer = await postJson(target, { authorization: `Bearer ${token}` }, body, timeoutMs);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    return { kind: 'unreachable', message: code ? `${code}: ${message}` : message };
  }
  const { status, body: text } = answer;
  if (status === 200) {
    try {
      return { kind: 'answered', results: (JSON.parse(text) as { results: HookResult[] }).results };
    } catch {
      return { kind: 'unreachable', message: 'the hub answered 200 with a body that is not JSON (a proxy in between?)' };
    }
  }
  if (status === 401 || status === 403) return { kind: 'refused', status, message: errorMessage(status, text) };
  if (status === 400 || status === 413) return { kind: 'unreadable', status, message: errorMessage(status, text) };
  return { kind: 'unreachable', message: errorMessage(status, text) };
}
