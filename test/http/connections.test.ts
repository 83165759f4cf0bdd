/**
 * issue 33.6 (d): a client that sends its request head slowly was never cut, and connections had
 * no cap. Real sockets on loopback against a hub with short limits: a slow header is answered 408
 * and closed soon after SESSION_HUB_HEADERS_TIMEOUT_MS, and past SESSION_HUB_MAX_CONNECTIONS a new
 * connection is closed at once while the open ones still work.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closeTestHubsAfterEach, startTestHub } from '../helpers/hub.js';

closeTestHubsAfterEach();
const opened: Socket[] = [];
afterEach(() => {
  for (const socket of opened.splice(0)) socket.destroy();
});

function open(url: string): Promise<Socket> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
    opened.push(socket);
  });
}

/** Everything the server writes until it closes the socket, and when it closed (ms after `since`). */
function untilClosed(socket: Socket, since: number): Promise<{ text: string; closedAfterMs: number }> {
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  socket.on('error', () => {});
  return new Promise((resolve) => socket.once('close', () => resolve({ text, closedAfterMs: performance.now() - since })));
}

describe('HTTP connection limits', () => {
  it('a request head sent a byte at a time is answered 408 and cut after the headers timeout', async () => {
    const hub = await startTestHub({ config: { headersTimeoutMs: 1000, requestTimeoutMs: 2000 } });
    const socket = await open(hub.url);
    const start = performance.now();
    const closed = untilClosed(socket, start);
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // keeps the head coming, slower than a real client, never finishing it
    const drip = setInterval(() => socket.writable && socket.write('X'), 200);
    const { text, closedAfterMs } = await closed;
    clearInterval(drip);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(closedAfterMs).toBeLessThan(8000); // before: never within the test (Node 20 cuts at 60 s)
    // the hub serves others all along
    expect((await fetch(`${hub.url}/healthz`)).status).toBe(200);
  });

  it('past the connection cap a new connection is closed at once; the open ones still answer', async () => {
    const hub = await startTestHub({ config: { maxConnections: 3 } });
    const held = [await open(hub.url), await open(hub.url), await open(hub.url)];
    const extra = await open(hub.url);
    const refused = await untilClosed(extra, performance.now());
    expect(refused.text).toBe('');
    expect(refused.closedAfterMs).toBeLessThan(2000);
    // a held connection still carries a request
    const answer = untilClosed(held[0]!, performance.now());
    held[0]!.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect((await answer).text).toMatch(/^HTTP\/1\.1 200/);
  });
});
