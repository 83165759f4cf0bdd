import { afterEach, describe, expect, it } from 'vitest';
import { DashboardClient, RunnerClient } from '../../shared/client/index.js';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { waitFor } from '../helpers/clients.js';
import { gapsIn, getHistory, getSession, lifecycleEnds, runnerOn, startTwoHubs, twoHubsAfterEach } from './two-hubs.js';

twoHubsAfterEach();

// registered after twoHubsAfterEach, so it runs first: the SDK clients go before the processes do
const clients: { socket: { disconnect(): unknown } }[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.socket.disconnect();
});

const RUN_GRACE_MS = 2000;

describe('the SDK fails over between hub processes by itself', () => {
  it('kill -9 of the process a RunnerClient and a DashboardClient given [A, B] are on: both land on B, no acknowledged write lost or applied twice, the run lives on, no seq gap', { timeout: 60_000 }, async () => {
    const { a, b, tokens } = await startTwoHubs({
      SESSION_HUB_HEARTBEAT_MS: '200',
      SESSION_HUB_SWEEP_MS: '200',
      SESSION_HUB_RUN_GRACE_MS: String(RUN_GRACE_MS),
    });
    const both = [a.url, b.url];
    const dashboard = await DashboardClient.connect({ url: both, token: tokens.dashboard, socketOptions: { transports: ['websocket'] } });
    clients.push(dashboard);
    const seen: UpdateEvent[] = [];
    dashboard.on('update', (event) => seen.push(event));
    await dashboard.subscribe();
    const subscribedAt = dashboard.lastSeq!;

    // a short ack wait: the write the kill leaves unanswered is re-sent soon after
    const runner = await RunnerClient.connect({ url: both, token: tokens.runner, requestTimeoutMs: 1000 });
    clients.push(runner);
    expect([runner.url, dashboard.url]).toEqual([a.url, a.url]); // the first URL that answers
    const { session } = await runner.startSession({ tag: 'survivor', flavor: 'claude', source: 'startup', metadata: { path: '/work/project' } });
    expect(session.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
    let reconnects = 0;
    runner.on('reconnect', () => reconnects++);
    // a run held by A whose runner (given only A) never comes back: when it has ended, the grace of
    // A's runs is over
    const abandoned = await runnerOn(a, tokens.runner);
    const lost = (await abandoned.startSession({ tag: 'lost', flavor: 'claude', source: 'startup', metadata: { path: '/work/other' } })).session;

    // whole-document updaters `n` = 1, 2, 3…, each with its own requestId, one after the other, flat out
    const acked: { value: number; version: number }[] = [];
    let inflight: number | undefined;
    let stop = false;
    const loop = (async () => {
      for (let value = 1; !stop; value++) {
        inflight = value;
        const result = await runner.updateMetadata(session.sid, (current) => ({ ...current, n: value }), { requestId: `n-${value}` });
        acked.push({ value, version: result.version });
        inflight = undefined;
      }
    })();

    // the write out when the connection drops is the unanswered one (the loop always has one out)
    let unanswered: number | undefined;
    let ackedBeforeKill = 0;
    runner.socket.once('disconnect', () => {
      unanswered = inflight;
      ackedBeforeKill = acked.length;
    });
    await waitFor(() => acked.length >= 10, 20_000, 'writes acknowledged on A');
    await a.kill9();
    await waitFor(() => unanswered !== undefined, 5000, 'the runner to see A gone');
    expect(unanswered).toBe(ackedBeforeKill + 1);

    // no reconnecting by hand: both clients move to B, the runner rejoins, the write goes on
    await waitFor(() => acked.length >= ackedBeforeKill + 10, 20_000, 'writes acknowledged on B');
    // the idle dashboard may still be in its backoff before trying B: it gets there on its own
    await waitFor(() => dashboard.url === b.url && dashboard.socket.connected, 20_000, 'the dashboard on B');
    expect([runner.url, dashboard.url]).toEqual([b.url, b.url]);
    expect(reconnects).toBe(1);
    expect(acked.map((ack) => ack.value)).toContain(unanswered);

    // B presumes A dead after 3 missed heartbeats, then the grace of A's runs runs out
    await waitFor(() => lifecycleEnds(seen, lost.sid).length > 0, 20_000, 'the abandoned run to end');
    stop = true;
    await loop;
    const barrier = await runner.updateMetadata(session.sid, { patch: { barrier: true } });
    await waitFor(() => seen.some((event) => event.body.t === 'update-session' && event.body.metadata?.version === barrier.version), 5000, 'the barrier on the dashboard');

    // the runner rejoined on B within the grace: its run is the same, still running
    const survivor = await getSession(b, session.sid, tokens.dashboard);
    expect(survivor.lifecycle).toEqual(session.lifecycle);
    expect(lifecycleEnds(seen, session.sid)).toEqual([]);
    expect(lifecycleEnds(seen, lost.sid)[0]!.body).toMatchObject({ lifecycle: { state: 'ended', reason: 'runner_lost', by: 'hub' } });

    // every acknowledged write in B's history at its version; each value once, the re-sent one too
    const history = await getHistory(b, session.sid, tokens.dashboard);
    expect(history.map((row) => row.version)).toEqual(Array.from({ length: history.length }, (_, i) => i + 1));
    for (const ack of acked) expect(history[ack.version - 1]!.metadata.n).toBe(ack.value);
    const values = history.map((row) => row.metadata.n).filter((value, i, all) => value !== undefined && value !== all[i - 1]);
    expect(values).toEqual(acked.map((ack) => ack.value));
    expect(history).toHaveLength(1 + acked.length + 1); // session-start, the writes, the barrier

    // the dashboard saw every event in seq order, with no gap and none twice, across the failover
    const seqs = seen.map((event) => event.seq);
    expect(seqs[0]).toBe(subscribedAt + 1);
    expect(gapsIn(seqs)).toEqual([]);
    const versions = seen.flatMap((event) => (event.body.t === 'update-session' && event.body.sid === session.sid && event.body.metadata ? [event.body.metadata.version] : []));
    expect(versions).toEqual(Array.from({ length: history.length - 1 }, (_, i) => i + 2));
    expect(dashboard.sessions.get(session.sid)!.metadata).toEqual(survivor.metadata);
  });
});
