import { describe, expect, it } from 'vitest';
import { DashboardClient } from '../../shared/client/dashboard-client.js';
import type { ListSessionsResponse } from '../../shared/protocol/http.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { waitFor } from '../helpers/clients.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { TEST_TOKEN_SPEC, TEST_TOKENS } from '../helpers/tokens.js';
import { dashboardClient, getJson, runnerClient, useSdkTestHub } from './sdk-helpers.js';

let hub: TestHub;
useSdkTestHub((started) => (hub = started));

/** The parts of a snapshot that broadcasts carry (resume and updatedAt are derived hub-side). */
const live = (s: SessionSnapshot) => ({ sid: s.sid, tag: s.tag, metadata: s.metadata, agentState: s.agentState, lifecycle: s.lifecycle, presence: s.presence, currentTurn: s.currentTurn });

async function listed(): Promise<SessionSnapshot[]> {
  return (await getJson<ListSessionsResponse>(`${hub.url}/api/sessions?limit=500`, hub.tokens.dashboard)).sessions;
}

describe('DashboardClient', () => {
  it('keeps a live map that matches GET /api/sessions after a burst', async () => {
    const runner = await runnerClient(hub.url, hub.tokens.runner);
    const { session: before } = await runner.startSession({ tag: 'before', flavor: 'claude', source: 'startup', metadata: { path: '/a' } });
    const dashboard = await dashboardClient(hub.url, hub.tokens.dashboard);
    await dashboard.subscribe();
    expect([...dashboard.sessions.keys()]).toEqual([before.sid]);

    const sids = [before.sid];
    for (let i = 0; i < 4; i++) sids.push((await runner.startSession({ tag: `t${i}`, flavor: 'codex', source: 'startup' })).session.sid);
    await Promise.all(
      sids.flatMap((sid, i) => [
        ...Array.from({ length: 5 }, (_, n) => runner.updateMetadata(sid, (m) => ({ ...m, n }))),
        runner.updateState(sid, () => ({ step: i })),
      ]),
    );
    await runner.submitPrompt({ sid: sids[1]!, prompt: 'open turn' });
    await runner.toolUse({ sid: sids[1]!, tool: 'Read', toolUseId: 'r1' });
    await runner.submitPrompt({ sid: sids[2]!, prompt: 'closed turn' });
    await runner.stopTurn({ sid: sids[2]!, response: 'ok' });
    await runner.endSession({ sid: sids[3]!, reason: 'completed' });
    await runner.alive({ sid: sids[4]!, thinking: true });

    const expected = (await listed()).map(live).sort((a, b) => a.sid.localeCompare(b.sid));
    await waitFor(() => JSON.stringify([...dashboard.sessions.values()].map(live).sort((a, b) => a.sid.localeCompare(b.sid))) === JSON.stringify(expected), 5000, 'live map to match');
    expect(dashboard.sessions.get(sids[1]!)!.currentTurn).toMatchObject({ prompt: 'open turn', activityCount: 1 });
    expect(dashboard.sessions.get(sids[2]!)!.currentTurn).toBeNull();
    expect(dashboard.sessions.get(sids[3]!)!.lifecycle.state).toBe('ended');
  });

  it('reconnects from lastSeq and catches up on what it missed', async () => {
    const runner = await runnerClient(hub.url, hub.tokens.runner);
    const dashboard = await dashboardClient(hub.url, hub.tokens.dashboard);
    await dashboard.subscribe();
    const { session } = await runner.startSession({ tag: 'r', flavor: 'claude', source: 'startup' });
    await waitFor(() => dashboard.sessions.has(session.sid), 3000, 'session-created');
    let reconnects = 0;
    const disconnects: string[] = [];
    dashboard.on('reconnect', () => reconnects++);
    dashboard.on('disconnect', (reason) => disconnects.push(reason));

    dashboard.socket.io.engine.close();
    await runner.updateMetadata(session.sid, { patch: { missed: true } });
    const { session: later } = await runner.startSession({ tag: 'created-while-away', flavor: 'claude', source: 'startup' });
    await waitFor(() => reconnects === 1 && dashboard.sessions.get(session.sid)?.metadata.value.missed === true && dashboard.sessions.has(later.sid), 5000, 'catch up');
    expect(disconnects).toHaveLength(1); // socket.io's reason for engine.close(): 'forced close'
  });

  it('says refused, and stops retrying, when a reconnect finds its token gone', async () => {
    const dashboard = await dashboardClient(hub.url, hub.tokens.dashboard);
    await dashboard.subscribe();
    const seen: string[] = [];
    dashboard.on('disconnect', () => seen.push('disconnect'));
    dashboard.on('reconnect', () => seen.push('reconnect'));
    dashboard.on('refused', (error) => seen.push(`refused:${error.code}`));

    const port = hub.port;
    await hub.close();
    await waitFor(() => seen.includes('disconnect'), 5000, 'disconnect');
    // the same address again, with the dashboard token no longer configured
    const withoutDashboardToken = TEST_TOKEN_SPEC.split(',').filter((entry) => !entry.endsWith(TEST_TOKENS.dashboard)).join(',');
    hub = await startTestHub({ config: { port, tokens: withoutDashboardToken } });
    await waitFor(() => seen.includes('refused:unauthorized'), 10_000, 'refused');
    expect(seen).toEqual(['disconnect', 'refused:unauthorized']);
    expect(dashboard.socket.active).toBe(false);
  });

  it('moves updatedAt as the hub does, and takes a fetched resume status', async () => {
    const runner = await runnerClient(hub.url, hub.tokens.runner);
    const dashboard = await dashboardClient(hub.url, hub.tokens.dashboard);
    await dashboard.subscribe();
    const { session } = await runner.startSession({ tag: 'u', flavor: 'claude', source: 'startup', metadata: { claudeSessionId: 'abc' } });
    const fetched = () => getJson<SessionSnapshot>(`${hub.url}/api/sessions/${session.sid}`, hub.tokens.dashboard);
    const held = () => dashboard.sessions.get(session.sid);

    await runner.updateMetadata(session.sid, { patch: { step: 1 } });
    await waitFor(() => held()?.metadata.version === 2, 3000, 'metadata v2');
    expect(held()!.updatedAt).toBe((await fetched()).updatedAt);
    await runner.submitPrompt({ sid: session.sid, prompt: 'go' });
    await waitFor(() => held()?.currentTurn?.prompt === 'go', 3000, 'open turn');
    expect(held()!.updatedAt).toBe((await fetched()).updatedAt);

    const archived = await fetch(`${hub.url}/api/sessions/${session.sid}/archive`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'done' }),
    });
    expect(archived.status).toBe(200);
    await waitFor(() => held()?.lifecycle.state === 'archived', 3000, 'archived');
    const fresh = await fetched();
    const notices: string[] = [];
    dashboard.on('session', (s) => notices.push(s.sid));
    expect(dashboard.setResume(session.sid, fresh.resume)).toBe(true);
    expect(held()!.resume).toEqual(fresh.resume);
    expect(notices).toEqual([session.sid]);
    expect(dashboard.setResume('no-such-session', fresh.resume)).toBe(false);
  });

  it('resubscribes and replaces the map after a resync', async () => {
    const runner = await runnerClient(hub.url, hub.tokens.runner);
    const { session } = await runner.startSession({ tag: 'x', flavor: 'claude', source: 'startup' });
    const dashboard = await DashboardClient.connect({ url: hub.url, token: hub.tokens.dashboard, lastSeq: 1_000_000_000 });
    let resyncs = 0;
    dashboard.on('resync', () => resyncs++);
    await dashboard.subscribe();
    await waitFor(() => resyncs === 1, 3000, 'resync');
    expect([...dashboard.sessions.keys()]).toEqual([session.sid]);
    expect(dashboard.lastSeq).toBeGreaterThan(0);
    dashboard.close();
  });
});
