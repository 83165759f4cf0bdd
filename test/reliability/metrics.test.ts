import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { closeAllClients, connectDashboard, connectRunner, startSession } from '../helpers/clients.js';
import { closeTestHubsAfterEach, startTestHub, type TestHub } from '../helpers/hub.js';
import { sample, scrape } from './metrics-text.js';

let hub: TestHub | undefined;
closeTestHubsAfterEach();

describe('GET /metrics', () => {
  it('counts connections, writes by result, ack delays and broadcasts, without a token', async () => {
    hub = await startTestHub();
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const watcher = await connectRunner(hub.url, hub.tokens.runner);
    const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
    await dashboard.emitWithAck('subscribe', {});
    const session = await startSession(runner, { metadata: { path: '/secret-path', claudeSessionId: 'claude-secret-token' } });
    await watcher.emitWithAck('session-join', { sid: session.sid });

    expect(await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, patch: { title: 'private title' } })).toMatchObject({ result: 'success' });
    expect(await runner.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, patch: { title: 'x' } })).toMatchObject({ result: 'version-mismatch' });
    expect(await runner.emitWithAck('update-metadata', { sid: 'no-such-session', expectedVersion: 1, patch: {} })).toMatchObject({ result: 'error', code: 'not_found' });
    expect(await runner.emitWithAck('update-state', { sid: session.sid, expectedVersion: 1, agentState: { a: 1 } })).toMatchObject({ result: 'success' });

    const text = await scrape(hub.url);
    expect(sample(text, 'session_hub_connected_clients', { kind: 'runner' })).toBe(2);
    expect(sample(text, 'session_hub_connected_clients', { kind: 'dashboard' })).toBe(1);
    expect(sample(text, 'session_hub_writes_total', { event: 'update-metadata', result: 'success' })).toBe(1);
    expect(sample(text, 'session_hub_writes_total', { event: 'update-metadata', result: 'version-mismatch' })).toBe(1);
    expect(sample(text, 'session_hub_writes_total', { event: 'update-metadata', result: 'error' })).toBe(1);
    expect(sample(text, 'session_hub_writes_total', { event: 'update-state', result: 'success' })).toBe(1);
    expect(sample(text, 'session_hub_ack_delay_seconds_count', { event: 'update-metadata' })).toBe(3);
    expect(sample(text, 'session_hub_ack_delay_seconds_count', { event: 'session-start' })).toBe(1);
    // only broadcasts with someone to receive them count: the metadata and the state write reach the
    // watcher; session-created, the metadata and the state write reach the dashboard
    expect(sample(text, 'session_hub_broadcasts_total', { audience: 'runner' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'session_hub_broadcasts_total', { audience: 'dashboard' })).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);

    // counts and timings only: no token, sid or session content
    for (const secret of [...Object.values(hub.tokens), session.sid, session.tag, 'secret-path', 'claude-secret-token', 'private title']) {
      expect(text).not.toContain(secret);
    }

    closeAllClients();
    const after = async () => sample(await scrape(hub!.url), 'session_hub_connected_clients', { kind: 'runner' });
    const deadline = Date.now() + 3000;
    while ((await after()) !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await after()).toBe(0);
  });

  it('reports sweep durations and what each sweep changed', async () => {
    const clock = new ManualClock();
    hub = await startTestHub({ clock });
    const before = await scrape(hub.url);
    // the boot sweep ran once and found nothing
    expect(sample(before, 'session_hub_sweep_duration_seconds_count')).toBe(1);
    expect(sample(before, 'session_hub_sweep_changes_total', { kind: 'sessionsInactive' })).toBe(0);

    const runner = await connectRunner(hub.url, hub.tokens.runner);
    await startSession(runner);
    await startSession(runner);
    clock.advance(hub.deps.config.aliveTimeoutMs + 1);
    expect((await hub.sweepNow()).sessionsInactive).toBe(2);

    const text = await scrape(hub.url);
    expect(sample(text, 'session_hub_sweep_duration_seconds_count')).toBe(2);
    expect(sample(text, 'session_hub_sweep_changes_total', { kind: 'sessionsInactive' })).toBe(2);
    expect(sample(text, 'session_hub_sweep_changes_total', { kind: 'runsInterrupted' })).toBe(0);
  });
});
