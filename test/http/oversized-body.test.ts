/**
 * An oversized body is answered with a readable 413, never a cut connection (issue 46.9): a 2 MiB
 * message to an agent answered by closing the socket while the browser still sent it showed the
 * person a network error about half the time. Real hub process, real HTTP over loopback; each
 * request on a connection of its own, the body sent whole, as a browser does.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';

stopHubsAfterEach();

/** POSTs `bytes` of JSON on a fresh connection: the status and body, or the socket error the client saw. */
function postBig(hub: HubProcess, path: string, token: string, bytes: number): Promise<{ status: number; body: string } | { error: string }> {
  const body = Buffer.from(JSON.stringify({ text: 'x'.repeat(bytes) }));
  return new Promise((resolve) => {
    const req = request(`${hub.url}${path}`, { method: 'POST', agent: false, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', (error) => resolve({ error: error.message }));
    });
    req.on('error', (error) => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message }));
    // in pieces, as a browser's upload goes out
    const piece = 64 * 1024;
    let offset = 0;
    const next = () => {
      while (offset < body.length) {
        const chunk = body.subarray(offset, offset + piece);
        offset += piece;
        if (!req.write(chunk)) return void req.once('drain', next);
      }
      req.end();
    };
    next();
  });
}

describe('an oversized body', () => {
  it('a 2 MiB message and a 3 MiB hook batch are answered 413 payload_too_large, every time, the body read whole', async () => {
    const hub = await spawnHub();
    const answers = [];
    for (let i = 0; i < 6; i += 1) {
      answers.push(await postBig(hub, '/api/sessions/00000000-0000-4000-8000-000000000000/messages', hub.tokens.operator, 2 * 1024 * 1024));
      answers.push(await postBig(hub, '/api/hooks', hub.tokens.agent, 3 * 1024 * 1024));
    }
    for (const answer of answers) {
      expect(answer, JSON.stringify(answer).slice(0, 300)).toMatchObject({ status: 413 });
      const body = JSON.parse((answer as { body: string }).body) as { error: string; message: string };
      expect(body.error).toBe('payload_too_large');
      expect(body.message).toMatch(/\d/);
    }
    // the hub is still there
    expect((await fetch(`${hub.url}/healthz`)).status).toBe(200);
  }, 60_000);
});
