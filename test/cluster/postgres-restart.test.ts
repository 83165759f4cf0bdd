import { io, type Socket } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnHub, type HubProcess } from '../helpers/hub-process.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { startThrowawayPostgres } from '../setup/postgres-server.js';

let server: Awaited<ReturnType<typeof startThrowawayPostgres>> | undefined;
let hub: HubProcess | undefined;
let socket: Socket | undefined;
afterEach(async () => {
  socket?.disconnect();
  if (hub && hub.child.exitCode === null) await hub.stop();
  await hub?.cleanup();
  server?.stop();
  server = hub = socket = undefined;
});

type Ack = { result?: string; version?: number; code?: string; message?: string; ok?: boolean; session?: { sid: string } };

describe('PostgreSQL restarted under load (issue 25)', () => {
  it('writes fail with a clear retryable error while it is down, succeed after, and nothing acknowledged is lost', async () => {
    // a server of the test's own: the one the other tests share must not be restarted
    server = await startThrowawayPostgres();
    hub = await spawnHub({ env: { SESSION_HUB_DATABASE_URL: server.url, SESSION_HUB_RATE_LIMIT: '100000', SESSION_HUB_RATE_BURST: '100000' } });
    socket = io(`${hub.url}/runner`, { auth: { token: TEST_TOKENS.runner }, transports: ['websocket'] });
    const call = (event: string, payload: unknown) => socket!.timeout(20_000).emitWithAck(event, payload) as Promise<Ack>;
    const started = await call('session-start', { tag: 'restart', flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
    const sid = started.session!.sid;

    const acked: { n: number; version: number }[] = [];
    const errors: { code: string; message: string }[] = [];
    let version = 1;
    let n = 0;
    let flooding = true;
    const flood = (async () => {
      while (flooding) {
        const ack = await call('update-metadata', { sid, expectedVersion: version, patch: { n: ++n }, requestId: `w-${n}` }).catch(() => ({ code: 'no-ack', message: '' }) as Ack);
        if (ack.result === 'success' || ack.result === 'version-mismatch') version = ack.version!;
        if (ack.result === 'success') acked.push({ n, version: ack.version! });
        else if (ack.code) errors.push({ code: ack.code, message: ack.message ?? '' });
      }
    })();
    await expect.poll(() => acked.length, { timeout: 20_000 }).toBeGreaterThan(5);
    server.stopServer();
    await expect.poll(() => errors.length, { timeout: 20_000 }).toBeGreaterThan(0);
    const ackedBeforeStart = acked.length;
    server.startServer();
    await expect.poll(() => acked.length, { timeout: 60_000 }).toBeGreaterThan(ackedBeforeStart + 5);
    flooding = false;
    await flood;

    // meanwhile: the retryable code, saying what is wrong (no host, no driver message)
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) {
      expect(error.code).toBe('unavailable');
      expect(error.message).toMatch(/cannot store anything now|may or may not be stored/);
    }
    // every acknowledged write is in the history, with the version it was acknowledged with
    const response = await fetch(`${hub.url}/api/sessions/${sid}/history`, { headers: { authorization: `Bearer ${TEST_TOKENS.admin}` } });
    const history = ((await response.json()) as { history: { version: number; metadata: { n?: number } }[] }).history;
    const byVersion = new Map(history.map((entry) => [entry.version, entry.metadata.n]));
    for (const { n: written, version: at } of acked) expect(byVersion.get(at)).toBe(written);
  }, 180_000);
});
