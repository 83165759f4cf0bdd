/**
 * Spec section 13: every SESSION_HUB_* variable (and LOG_LEVEL) takes effect in the real hub
 * process, checked where it is observable from outside: the port and URL it announces, the data
 * directory, the tokens, and each sweep setting through the change it makes. Also: `seq` is never
 * reused after a restart even when every event was pruned (EVENT_KEEP 0).
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { closeAllClients, collectUpdates, connectDashboard, connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';
import { databaseUrlFor } from '../helpers/test-store.js';

stopHubsAfterEach();

/** A port nobody listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const SHORT = {
  SESSION_HUB_SWEEP_MS: '100',
  SESSION_HUB_TURN_TIMEOUT_MS: '400',
  SESSION_HUB_ALIVE_TIMEOUT_MS: '400',
  SESSION_HUB_RUN_GRACE_MS: '300',
  SESSION_HUB_IDLE_MS: '1200',
  SESSION_HUB_TOKEN_TTL_MS: '300',
  SESSION_HUB_EVENT_KEEP: '0',
  SESSION_HUB_EVENT_KEEP_MS: '0',
};

async function getJson(hub: HubProcess, path: string, token: string, method = 'GET', body?: unknown) {
  const response = await fetch(`${hub.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('configuration from the environment', () => {
  it('honours host, port, data, tokens and every sweep timing, and announces the URL in one log line', async () => {
    const port = await freePort();
    const hub = await spawnHub({ port, env: SHORT });

    // PORT and HOST: the hub listens where it was told and says so once
    expect(hub.port).toBe(port);
    // (log lines: the plain `Sign in: <url>/?code=…` line that follows is for a person)
    const urlLines = hub.output().split('\n').filter((line) => line.startsWith('{') && line.includes(`http://127.0.0.1:${port}`));
    expect(urlLines).toHaveLength(1);
    expect(urlLines[0]).toContain('listening');
    // DATA: the database is <data>/hub.db; with SESSION_HUB_DATABASE_URL it is that PostgreSQL database
    // instead (named in the same line, password hidden) and no SQLite file is made
    const databaseUrl = await databaseUrlFor(hub.dataDir);
    if (databaseUrl === undefined) {
      expect(existsSync(join(hub.dataDir, 'hub.db'))).toBe(true);
    } else {
      expect(existsSync(join(hub.dataDir, 'hub.db'))).toBe(false);
      const shown = new URL(databaseUrl);
      if (shown.password) shown.password = '***';
      expect(urlLines[0]).toContain(`"database":"${shown.toString()}"`);
    }
    // TOKENS: the configured tokens are the ones accepted
    expect((await getJson(hub, '/api/whoami', hub.tokens.otherAdmin)).body).toEqual({ role: 'admin', namespace: 'other' });

    const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
    await dashboard.emitWithAck('subscribe', {});
    const seen = collectUpdates(dashboard);
    const bodiesFor = (sid: string) => seen.filter((e) => e.body.sid === sid).map((e) => e.body);

    // TURN_TIMEOUT_MS (with SWEEP_MS): an open turn is closed as timeout
    const worker = await connectRunner(hub.url, hub.tokens.runner);
    const busy = await startSession(worker, { tag: 'busy' });
    await worker.emitWithAck('prompt-submit', { sid: busy.sid, prompt: 'never answered' });
    await waitFor(() => bodiesFor(busy.sid).some((b) => b.t === 'turn' && b.turn.status === 'timeout'), 10_000, 'turn timeout');

    // ALIVE_TIMEOUT_MS: a connected runner that stops its heartbeat goes inactive, and stays running
    await waitFor(
      () => bodiesFor(busy.sid).some((b) => b.t === 'update-session' && b.presence?.active === false),
      10_000,
      'inactive after the alive timeout',
    );
    expect(worker.connected).toBe(true);

    // IDLE_MS: no activity for that long turns a running session idle
    await waitFor(() => bodiesFor(busy.sid).some((b) => b.t === 'update-session' && b.lifecycle?.state === 'idle'), 10_000, 'idle');

    // RUN_GRACE_MS: a runner that leaves and does not come back: interrupted, ended by hub
    const leaver = await connectRunner(hub.url, hub.tokens.runner);
    const lost = await startSession(leaver, { tag: 'lost' });
    leaver.disconnect();
    await waitFor(
      () => bodiesFor(lost.sid).some((b) => b.t === 'update-session' && b.lifecycle?.state === 'ended' && b.lifecycle.lastRun?.status === 'interrupted'),
      10_000,
      'run interrupted after the grace',
    );
    expect((await getJson(hub, `/api/sessions/${lost.sid}`, hub.tokens.dashboard)).body.lifecycle).toMatchObject({ state: 'ended', reason: 'runner_lost', by: 'hub' });

    // TOKEN_TTL_MS: its token (written at start, longer ago than 300 ms) is expired, which wins over unsafe
    expect(await getJson(hub, `/api/sessions/${lost.sid}/resume`, hub.tokens.runner, 'POST', {})).toEqual({
      status: 409,
      body: expect.objectContaining({ error: 'resume_unavailable', reason: 'token_expired' }),
    });

    // EVENT_KEEP and EVENT_KEEP_MS 0: every event is pruned by the sweep, so replay from the start is a gap
    const latest = Math.max(...seen.map((e) => e.seq));
    const late = await connectDashboard(hub.url, hub.tokens.dashboard);
    let resynced = false;
    late.on('resync', () => (resynced = true));
    const deadline = Date.now() + 10_000;
    // the next sweep prunes what was just written; ask until it has
    while (!resynced && Date.now() < deadline) {
      await late.emitWithAck('subscribe', { sinceSeq: 0 });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(resynced).toBe(true);

    // and with nothing kept, a restart still never reuses a seq
    closeAllClients();
    await hub.stop();
    const restarted = await spawnHub({ dataDir: hub.dataDir, env: SHORT });
    const watcher = await connectDashboard(restarted.url, restarted.tokens.dashboard);
    const sub = await watcher.emitWithAck('subscribe', {});
    expect(sub.ok && sub.seq).toBeGreaterThanOrEqual(latest);
    const after: UpdateEvent[] = collectUpdates(watcher);
    const runner = await connectRunner(restarted.url, restarted.tokens.runner);
    await startSession(runner, { tag: 'after-restart' });
    await waitFor(() => after.length > 0, 5000, 'first event after restart');
    expect(after[0]!.seq).toBeGreaterThan(latest);
  });

  it('honours LOG_LEVEL', async () => {
    const quietHub = await spawnHub({ env: { SESSION_HUB_SWEEP_MS: '50' } });
    const debugHub = await spawnHub({ env: { SESSION_HUB_SWEEP_MS: '50', LOG_LEVEL: 'debug' } });
    // an idle hub's sweep logs "found nothing to do" at debug level only
    await waitFor(() => debugHub.output().includes('sweep found nothing to do'), 5000, 'debug line');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(quietHub.output()).not.toContain('sweep found nothing to do');
    expect(quietHub.output()).not.toContain('"level":20');
  });

  it('a sweep that only prunes old events logs at debug, not a line at info each interval', async () => {
    const pruning = { SESSION_HUB_SWEEP_MS: '50', SESSION_HUB_EVENT_KEEP: '0', SESSION_HUB_EVENT_KEEP_MS: '0' };
    const quietHub = await spawnHub({ env: pruning });
    const debugHub = await spawnHub({ env: { ...pruning, LOG_LEVEL: 'debug' } });
    for (const hub of [quietHub, debugHub]) {
      const runner = await connectRunner(hub.url, hub.tokens.runner);
      await startSession(runner, { tag: 'pruned' });
    }
    await waitFor(() => debugHub.output().includes('sweep pruned old events only'), 5000, 'debug line of a pruning sweep');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(quietHub.output()).not.toContain('sweep changed sessions');
  });
});
