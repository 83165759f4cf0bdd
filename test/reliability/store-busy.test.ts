import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../hub/store/sqlite/sqlite-store.js';
import { RunnerClient } from '../../shared/client/index.js';
import { runCli } from '../helpers/cli.js';
import { connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';

stopHubsAfterEach();

/** A second connection on the hub's SQLite file (the offline CLI, or `sqlite3` opened by hand) holding the write lock. */
function holdWriteLock(dataDir: string): { release(): void } {
  const db = new Database(join(dataDir, 'hub.db'));
  db.exec('BEGIN IMMEDIATE');
  return {
    release() {
      db.exec('ROLLBACK');
      db.close();
    },
  };
}

async function get(url: string, token?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(15_000) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('another SQLite connection holds the write lock past busy_timeout (issue 26, points 1 and 2)', () => {
  it('answers the blocked write `unavailable`, says so on /readyz, and the next write runs once the lock is gone', { timeout: 120_000 }, async () => {
    const hub = await spawnHub();
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    await startSession(runner);
    expect((await get(`${hub.url}/readyz`)).status).toBe(200);

    const lock = holdWriteLock(hub.dataDir);
    let released = false;
    try {
      // the hub's BEGIN IMMEDIATE waits busy_timeout (5 s), then fails: a retryable answer, not `internal`
      const blocked = await runner.timeout(15_000).emitWithAck('session-start', { tag: 'while-locked', flavor: 'claude', source: 'startup', metadata: {} });
      expect(blocked.ok).toBe(false);
      if (blocked.ok) return;
      expect(blocked.error.code).toBe('unavailable');
      expect(blocked.error.message).toMatch(/locked/);

      // liveness stays green (the process serves); readiness says the store cannot write, and why
      expect((await get(`${hub.url}/healthz`)).status).toBe(200);
      const ready = await get(`${hub.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ ok: false, error: 'unavailable' });
      // the probe waits for the lock like any write; past 2 s it answers without waiting longer
      expect(String(ready.body.reason)).toMatch(/locked|did not take a write within/);
      // an HTTP write answers 503 `unavailable`, with Retry-After
      const created = await fetch(`${hub.url}/api/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hub.tokens.admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'http://127.0.0.1:9/hook' }),
        signal: AbortSignal.timeout(15_000),
      });
      expect(created.status).toBe(503);
      expect(created.headers.get('retry-after')).toBe('1');
      expect(await created.json()).toMatchObject({ error: 'unavailable' });
      // reads go on meanwhile (WAL: the lock holds writers only)
      const sessions = (await get(`${hub.url}/api/sessions`, hub.tokens.dashboard));
      expect(sessions.status).toBe(200);
    } finally {
      lock.release();
      released = true;
    }
    expect(released).toBe(true);

    // the lock is gone: writes, reads and readiness work again, without a restart
    const after = await runner.timeout(15_000).emitWithAck('session-start', { tag: 'after-lock', flavor: 'claude', source: 'startup', metadata: {} });
    expect(after.ok).toBe(true);
    const listed = await get(`${hub.url}/api/sessions`, hub.tokens.dashboard);
    expect(listed.status).toBe(200);
    const tags = (listed.body.sessions as { tag: string }[]).map((s) => s.tag);
    expect(tags).toContain('after-lock');
    expect(tags).not.toContain('while-locked');
    expect((await get(`${hub.url}/readyz`)).status).toBe(200);

    // the SDK retries a write answered `unavailable` until the lock is gone, within its budget
    const client = await RunnerClient.connect({ url: hub.url, token: hub.tokens.runner });
    try {
      const { session } = await client.startSession({ tag: 'sdk', flavor: 'claude', source: 'startup' });
      const again = holdWriteLock(hub.dataDir);
      const logged = hub.output().length;
      const write = client.updateMetadata(session.sid, (metadata) => ({ ...metadata, title: 'written after the outage' }), { timeoutMs: 40_000 });
      try {
        await waitFor(() => hub.output().slice(logged).includes('the store is unavailable'), 20_000, 'a write answered unavailable');
      } finally {
        again.release();
      }
      expect((await write).metadata).toMatchObject({ title: 'written after the outage' });
    } finally {
      await client.close();
    }

    // and the hub still shuts down cleanly
    expect(await hub.stop()).toBe(0);
  });

  it('the offline CLI waits for the lock another connection holds, and past 5 s says plainly why it cannot write', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-cli-busy-'));
    try {
      await SqliteStore.open(join(dataDir, 'hub.db')).close();
      const lock = holdWriteLock(dataDir);
      const released = new Promise<void>((resolve) => setTimeout(() => resolve(lock.release()), 1000));
      const waited = await runCli(['token', 'create', '--role', 'runner', '--data', dataDir]);
      await released;
      expect(waited.code, waited.stderr).toBe(0);
      expect(waited.stdout).toMatch(/^shub_runner_/);

      const held = holdWriteLock(dataDir);
      try {
        const refused = await runCli(['token', 'create', '--role', 'runner', '--data', dataDir]);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toMatch(/cannot write now: the database is locked by another connection/);
      } finally {
        held.release();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
