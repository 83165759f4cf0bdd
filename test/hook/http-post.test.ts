/**
 * The bridge's HTTP client (hub/hook/http-post.ts), written on a plain socket to spare every hook
 * call node:http's start-up. Against real servers on loopback: Node's own HTTP server (what the hub
 * runs) and raw TCP servers answering as proxies and broken peers do.
 */
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseHttpAnswer, postJson } from '../../hub/hook/http-post.js';
import { startTestHub } from '../helpers/hub.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function listen(server: Server): Promise<URL> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/api/hooks`);
}

/** A raw server that answers every connection with `reply` once the request's first bytes are in. */
function rawServer(reply: (socket: Socket) => void): Promise<URL> {
  return listen(createTcpServer((socket) => socket.once('data', () => reply(socket))));
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
  });

describe('postJson', () => {
  it('sends a POST Node\'s HTTP server reads (path, headers, UTF-8 body) and reads its answer, 50 times in a row', async () => {
    const seen: { method?: string; url?: string; auth?: string; type?: string; body: string }[] = [];
    const url = await listen(
      createHttpServer(async (req, res) => {
        seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, type: req.headers['content-type'], body: await readBody(req) });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ echo: seen.length, text: 'délivré ✓' }));
      }),
    );
    url.search = '?x=1';
    const body = JSON.stringify({ events: [{ prompt: 'ünïcode ✓ '.repeat(2000) }] });
    // the server answers before the whole request is read sometimes; every answer must still arrive
    for (let i = 1; i <= 50; i++) {
      const answer = await postJson(url, { authorization: 'Bearer t0k' }, body, 4000);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ echo: i, text: 'délivré ✓' });
    }
    expect(seen[0]).toEqual({ method: 'POST', url: '/api/hooks?x=1', auth: 'Bearer t0k', type: 'application/json', body });
  });

  it('every POST to the real hub\'s /api/hooks is answered: 40 batches in a row, each read whole', async () => {
    // the request is written, not half-closed: the hub dropped a half-closed request unanswered about every other time
    const hub = await startTestHub();
    try {
      const url = new URL('/api/hooks', hub.url);
      for (let i = 0; i < 40; i++) {
        const events = [0, 1, 2].map((n) => ({ id: `post-${i}-${n}`, flavor: 'claude', firedAt: Date.now(), seq: i * 3 + n, payload: { session_id: 'http-post', cwd: '/tmp', hook_event_name: 'Notification', message: `n${n}` } }));
        const answer = await postJson(url, { authorization: `Bearer ${hub.tokens.runner}` }, JSON.stringify({ events }), 4000);
        expect(answer.status, answer.body).toBe(200);
        expect((JSON.parse(answer.body) as { results: { id: string }[] }).results.map((r) => r.id)).toEqual(events.map((e) => e.id));
      }
    } finally {
      await hub.close();
    }
  });

  it('reads a chunked answer and a status that is not 200', async () => {
    const url = await listen(
      createHttpServer((_req, res) => {
        res.statusCode = 503;
        res.write('{"error":"unavail');
        res.end('able","message":"later"}');
      }),
    );
    const answer = await postJson(url, {}, '{}', 4000);
    expect(answer).toEqual({ status: 503, body: '{"error":"unavailable","message":"later"}' });
  });

  it('does not wait for a peer that keeps the connection open after a complete answer', async () => {
    const url = await rawServer((socket) => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}'));
    const started = Date.now();
    expect(await postJson(url, {}, '{}', 3000)).toEqual({ status: 200, body: '{}' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('takes an answer the peer finished before resetting the connection (a 413 before the body was read)', async () => {
    const url = await rawServer((socket) => {
      socket.write('HTTP/1.1 413 Payload Too Large\r\nconnection: close\r\n\r\n{"error":"too_large"}');
      socket.resetAndDestroy();
    });
    expect(await postJson(url, {}, 'x'.repeat(1 << 20), 4000)).toEqual({ status: 413, body: '{"error":"too_large"}' });
  });

  it('rejects, naming why, when there is no answer: refused, closed early, not HTTP, a cut chunk, silence', async () => {
    const closedUrl = await listen(createTcpServer());
    await new Promise((resolve) => servers.pop()!.close(resolve));
    await expect(postJson(closedUrl, {}, '{}', 4000)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    const early = await rawServer((socket) => socket.end());
    await expect(postJson(early, {}, '{}', 4000)).rejects.toThrow('the connection closed without an HTTP answer');

    const notHttp = await rawServer((socket) => socket.end('SSH-2.0-OpenSSH_9.2\r\n\r\n'));
    await expect(postJson(notHttp, {}, '{}', 4000)).rejects.toThrow('the connection closed without an HTTP answer');

    const cut = await rawServer((socket) => socket.end('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n10\r\n{"res'));
    await expect(postJson(cut, {}, '{}', 4000)).rejects.toThrow('the answer ends inside a chunk');

    const silent = await rawServer(() => undefined);
    await expect(postJson(silent, {}, '{}', 300)).rejects.toThrow('no answer within 300 ms');
  });

  it('refuses a header value holding a line break (a pasted token) before connecting, and a URL that is not http(s)', async () => {
    let connections = 0;
    const url = await listen(createTcpServer(() => connections++));
    await expect(postJson(url, { authorization: 'Bearer abc\r\nx-injected: 1' }, '{}', 1000)).rejects.toThrow('the authorization header holds a line break');
    await expect(postJson(new URL('ftp://127.0.0.1/api/hooks'), {}, '{}', 1000)).rejects.toThrow('ftp: is not http: or https:');
    expect(connections).toBe(0);
  });
});

describe('parseHttpAnswer', () => {
  it('waits for the whole body, its length counted in bytes, not characters', () => {
    const exact = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n{"a":"été"}');
    expect(parseHttpAnswer(exact.subarray(0, exact.length - 1), false)).toBeUndefined();
    expect(parseHttpAnswer(exact, false)).toEqual({ status: 200, body: '{"a":"été"}' });
    expect(parseHttpAnswer(Buffer.from('HTTP/1.1 200 OK\r\nContent-Le'), true)).toBeUndefined();
  });

  it('reads a body with no length to the end of the connection, and chunked bodies with extensions', () => {
    const unframed = Buffer.from('HTTP/1.0 502 Bad Gateway\r\n\r\nupstream down');
    expect(parseHttpAnswer(unframed, false)).toBeUndefined();
    expect(parseHttpAnswer(unframed, true)).toEqual({ status: 502, body: 'upstream down' });
    const chunked = Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\n\r\n');
    expect(parseHttpAnswer(chunked, false)).toEqual({ status: 200, body: 'abcde' });
    expect(() => parseHttpAnswer(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'), true)).toThrow('malformed chunk size');
  });
});
