/**
 * Issue 18: identifiers and names (tag, flavor, sid, requestId, promptId, toolUseId, tool, tokenKey)
 * refuse control characters and lone surrogates with `invalid_payload` naming the field, over the
 * socket and over HTTP, against the real hub process; nothing is stored.
 */
import { describe, expect, it } from 'vitest';
import { connectRunner, startSession } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';

stopHubsAfterEach();

const BAD = { nul: 'a\u0000b', newline: 'a\nb', tab: 'a\tb', del: 'a\u007fb', c1: 'a\u0085b', loneHigh: 'a\ud800b', loneLow: 'a\udc00b' };
const MESSAGE = 'must not contain control characters';

describe('control characters and lone surrogates in ids', () => {
  it('are refused invalid_payload in every id field, and nothing is stored', async () => {
    const hub = await spawnHub();
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const emit = (event: string, payload: unknown) => (runner as unknown as { emitWithAck(e: string, p: unknown): Promise<Record<string, unknown>> }).emitWithAck(event, payload);
    const session = await startSession(runner);

    for (const [name, bad] of Object.entries(BAD)) {
      for (const field of ['tag', 'flavor', 'sid', 'parentSid'] as const) {
        const ack = await emit('session-start', { tag: 't', flavor: 'claude', source: 'startup', [field]: bad });
        expect(ack, `${field} with ${name}`).toEqual({ ok: false, error: { code: 'invalid_payload', message: expect.stringContaining(`${field}: ${MESSAGE}`) } });
      }
      expect(await emit('session-join', { sid: bad })).toMatchObject({ ok: false, error: { code: 'invalid_payload' } });
      expect(await emit('update-metadata', { sid: session.sid, expectedVersion: 1, patch: { a: 1 }, requestId: bad })).toMatchObject({
        result: 'error',
        code: 'invalid_payload',
        message: expect.stringContaining(`requestId: ${MESSAGE}`),
      });
      expect(await emit('prompt-submit', { sid: session.sid, prompt: 'hi', promptId: bad })).toMatchObject({ ok: false, error: { message: expect.stringContaining(`promptId: ${MESSAGE}`) } });
      expect(await emit('tool-use', { sid: session.sid, tool: bad })).toMatchObject({ ok: false, error: { message: expect.stringContaining(`tool: ${MESSAGE}`) } });
    }
    // a tag made of well-formed astral characters (a surrogate pair) is fine
    expect(await emit('session-start', { tag: 'emoji-\u{1F600}', flavor: 'claude', source: 'startup' })).toMatchObject({ ok: true });

    const listed = (await (await fetch(`${hub.url}/api/sessions`, { headers: { authorization: `Bearer ${hub.tokens.dashboard}` } })).json()) as { sessions: { tag: string }[] };
    expect(listed.sessions).toHaveLength(2);
    expect(listed.sessions.map((s) => s.tag).join('')).not.toMatch(/[\u0000-\u001f]/);

    // HTTP: a sid with NUL (%00) or a newline in the path, a flavor filter with one
    for (const path of ['/api/sessions/a%00b', '/api/sessions/a%0Ab/history', '/api/sessions?flavor=a%00b']) {
      const response = await fetch(`${hub.url}${path}`, { headers: { authorization: `Bearer ${hub.tokens.dashboard}` } });
      expect(response.status, path).toBe(400);
      expect(((await response.json()) as { error: string; message: string })).toMatchObject({ error: 'invalid_payload', message: expect.stringContaining(MESSAGE) });
    }
  });
});
