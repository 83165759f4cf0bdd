/**
 * One POST /api/hooks with plain node:http(s) (part of the bridge bundle: no client library, no
 * schema). The answer is classified so the bridge can tell a hub that is away (keep the events,
 * retry) from one that refuses the token (401/403: a misconfigured hook) or the request itself.
 */
import { request as httpRequest } from 'node:http';
import type { HookResult } from '../../shared/protocol/hooks.js';

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
  // TLS costs a hook call tens of ms to load: only for an https hub
  const send = target.protocol === 'https:' ? (await import('node:https')).request : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = send(
      target,
      {
        method: 'POST',
        // no keep-alive: the process exits as soon as the answer is in
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}`, connection: 'close' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => done({ kind: 'unreachable', message: error.message }));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status === 200) {
            try {
              done({ kind: 'answered', results: (JSON.parse(text) as { results: HookResult[] }).results });
            } catch {
              done({ kind: 'unreachable', message: 'the hub answered 200 with a body that is not JSON (a proxy in between?)' });
            }
          } else if (status === 401 || status === 403) done({ kind: 'refused', status, message: errorMessage(status, text) });
          else if (status === 400 || status === 413) done({ kind: 'unreadable', status, message: errorMessage(status, text) });
          else done({ kind: 'unreachable', message: errorMessage(status, text) });
        });
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      done({ kind: 'unreachable', message: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => done({ kind: 'unreachable', message: `${error.code ?? 'error'}: ${error.message}` }));
    req.end(body);
  });
}
