/**
 * Spec section 10 (`/dashboard`): subscribe by sids vs to all (sessions created later), unsubscribe
 * per sid and all, the subscribe ack's `seq` against the snapshots and the live stream, and a
 * dashboard that can never change data with any /runner event.
 * Already covered elsewhere, not repeated here: a dashboard token refused on /runner and 403 on the
 * HTTP writes (test/reliability/security.test.ts, test/socket/bad-input.test.ts), replay on
 * subscribe and one broadcast per audience (test/socket/replay.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { RunnerClientToServerEvents } from '../../shared/protocol/events.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { collectUpdates, connectDashboard, connectRunner, startSession, waitFor, type DashboardSocket, type RunnerSocket } from '../helpers/clients.js';
import { closeTestHubsAfterEach, startTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub | undefined;
closeTestHubsAfterEach();

/** Lets in-flight broadcasts land before asserting that something did not arrive. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

async function subscribe(dashboard: DashboardSocket, payload: { sids?: string[]; sinceSeq?: number } = {}) {
  const ack = await dashboard.emitWithAck('subscribe', payload);
  if (!ack.ok) throw new Error(`subscribe failed: ${ack.error.message}`);
  return ack;
}

async function snapshotOf(h: TestHub, sid: string): Promise<SessionSnapshot> {
  const response = await fetch(`${h.url}/api/sessions/${sid}`, { headers: { authorization: `Bearer ${h.tokens.dashboard}` } });
  return (await response.json()) as SessionSnapshot;
}

/** Writes a metadata patch with the right expectedVersion and returns the version it made. */
async function write(h: TestHub, runner: RunnerSocket, sid: string, patch: Record<string, string | number>): Promise<number> {
  const ack = await runner.emitWithAck('update-metadata', { sid, expectedVersion: (await snapshotOf(h, sid)).metadata.version, patch });
  if (ack.result !== 'success') throw new Error(`write failed: ${JSON.stringify(ack)}`);
  return ack.version;
}

const sidsOf = (events: UpdateEvent[]) => events.map((e) => `${e.body.t}:${e.body.sid}`);

describe('subscribe', () => {
  it('to all: sessions created later arrive as session-created; by sids: only the chosen, found, own sessions, never later ones', async () => {
    hub = await startTestHub();
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const chosen = await startSession(runner, { tag: 'chosen' });
    const notChosen = await startSession(runner, { tag: 'not-chosen' });
    const foreignRunner = await connectRunner(hub.url, hub.tokens.otherRunner);
    const foreign = await startSession(foreignRunner, { tag: 'foreign' });

    const all = await connectDashboard(hub.url, hub.tokens.dashboard);
    const bySids = await connectDashboard(hub.url, hub.tokens.dashboard);
    const allAck = await subscribe(all);
    expect(new Set(allAck.sessions.map((s) => s.sid))).toEqual(new Set([chosen.sid, notChosen.sid]));
    // an unknown sid and another tenant's sid are simply absent, as they are from GET /api/sessions/:sid
    const bySidsAck = await subscribe(bySids, { sids: [chosen.sid, 'no-such-session', foreign.sid] });
    expect(bySidsAck.sessions.map((s) => s.sid)).toEqual([chosen.sid]);
    expect(bySidsAck.sessions[0]).toEqual(await snapshotOf(hub, chosen.sid));
    const seen = { all: collectUpdates(all), bySids: collectUpdates(bySids) };

    const later = await startSession(runner, { tag: 'later' });
    await write(hub, runner, later.sid, { n: 1 });
    await write(hub, runner, notChosen.sid, { n: 1 });
    await foreignRunner.emitWithAck('update-metadata', { sid: foreign.sid, expectedVersion: 1, patch: { n: 1 } });
    await write(hub, runner, chosen.sid, { sentinel: 1 }); // published last: once it arrives, so has everything before it
    await waitFor(() => seen.all.some((e) => e.body.sid === chosen.sid) && seen.bySids.some((e) => e.body.sid === chosen.sid), 3000, 'sentinel');

    expect(sidsOf(seen.all)).toEqual([`session-created:${later.sid}`, `update-session:${later.sid}`, `update-session:${notChosen.sid}`, `update-session:${chosen.sid}`]);
    const created = seen.all[0]!.body;
    expect(created.t === 'session-created' && created.session).toMatchObject({ sid: later.sid, tag: 'later', lifecycle: { state: 'running' } });
    expect(sidsOf(seen.bySids)).toEqual([`update-session:${chosen.sid}`]);
    // one stream, in seq order, each seq once
    const seqs = seen.all.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
  });

  it("acks the seq the snapshots include: every event up to it is in them, none after it; the next update carries a larger seq", async () => {
    hub = await startTestHub();
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const recorder = await connectDashboard(hub.url, hub.tokens.dashboard);
    expect((await subscribe(recorder)).seq).toBe(0);
    const recorded = collectUpdates(recorder);
    const sessions = [await startSession(runner, { tag: 'a' }), await startSession(runner, { tag: 'b' }), await startSession(runner, { tag: 'c' })];

    // subscribe again and again while writes to every session are in flight
    const watcher = await connectDashboard(hub.url, hub.tokens.dashboard);
    const versions = new Map(sessions.map((s) => [s.sid, 1]));
    const writes: Promise<unknown>[] = [];
    const pendingAcks: ReturnType<typeof subscribe>[] = [];
    for (let round = 0; round < 8; round++) {
      for (const s of sessions) {
        const version = versions.get(s.sid)!;
        versions.set(s.sid, version + 1);
        writes.push(runner.emitWithAck('update-metadata', { sid: s.sid, expectedVersion: version, patch: { round } }));
      }
      // not awaited: the subscribe is read between and inside write batches
      pendingAcks.push(subscribe(watcher));
      if (round % 2 === 1) await pendingAcks.at(-1);
    }
    const acks = await Promise.all(pendingAcks);
    expect(new Set(acks.map((ack) => ack.seq)).size).toBeGreaterThan(1);
    expect((await Promise.all(writes)).every((ack) => (ack as { result: string }).result === 'success')).toBe(true);
    const lastSeq = 3 + 8 * 3; // three session-created, then every write
    await waitFor(() => recorded.length === lastSeq, 3000, 'every event recorded');
    expect(recorded.map((e) => e.seq)).toEqual(Array.from({ length: lastSeq }, (_, i) => i + 1));

    for (const ack of acks) {
      for (const snapshot of ack.sessions) {
        // the metadata version of the last event for this session at or before ack.seq
        const upTo = recorded.filter((e) => e.seq <= ack.seq && e.body.sid === snapshot.sid);
        const expected = upTo.reduce((v, e) => (e.body.t === 'update-session' && e.body.metadata ? e.body.metadata.version : v), 1);
        expect(snapshot.metadata.version, `ack seq ${ack.seq}, ${snapshot.sid}`).toBe(expected);
      }
    }
    // the ack's seq is the namespace's: another tenant's writes do not move it
    const foreignRunner = await connectRunner(hub.url, hub.tokens.otherRunner);
    await startSession(foreignRunner, { tag: 'foreign' });
    const settled = await subscribe(watcher, { sids: [sessions[1]!.sid] });
    expect(settled.seq).toBe(lastSeq);

    // what follows the ack carries a larger seq, for an all-subscriber and a by-sids one alike
    const fresh = await connectDashboard(hub.url, hub.tokens.dashboard);
    const freshAck = await subscribe(fresh, { sids: [sessions[0]!.sid] });
    const freshSeen = collectUpdates(fresh);
    const watcherSeen = collectUpdates(watcher);
    await write(hub, runner, sessions[0]!.sid, { after: 1 });
    await waitFor(() => freshSeen.length === 1 && watcherSeen.length === 1, 3000, 'update after subscribe');
    expect(freshSeen[0]!.seq).toBe(freshAck.seq + 1);
    expect(watcherSeen[0]!.seq).toBe(settled.seq + 1);
  });
});

describe('unsubscribe', () => {
  it('per sid stops that session only; without sids stops everything, later sessions included; subscribing again resumes', async () => {
    hub = await startTestHub();
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const a = await startSession(runner, { tag: 'a' });
    const b = await startSession(runner, { tag: 'b' });
    const control = await connectDashboard(hub.url, hub.tokens.dashboard);
    await subscribe(control);
    const controlSeen = collectUpdates(control);
    /** Runs `act`, waits until the control (subscribed to all) saw its events, then lets the rest land. */
    const round = async (act: () => Promise<unknown>, events: number) => {
      const target = controlSeen.length + events;
      await act();
      await waitFor(() => controlSeen.length >= target, 3000, 'control saw the round');
      await settle();
    };

    const bySids = await connectDashboard(hub.url, hub.tokens.dashboard);
    const toAll = await connectDashboard(hub.url, hub.tokens.dashboard);
    await subscribe(bySids, { sids: [a.sid, b.sid] });
    await subscribe(toAll);
    const seen = { bySids: collectUpdates(bySids), toAll: collectUpdates(toAll) };

    expect(await bySids.emitWithAck('unsubscribe', { sids: [a.sid] })).toEqual({ ok: true });
    // sids name sessions subscribed by sid: they do not carve a session out of a subscription to all
    expect(await toAll.emitWithAck('unsubscribe', { sids: [a.sid] })).toEqual({ ok: true });
    await round(async () => {
      await write(hub!, runner, a.sid, { n: 1 });
      await write(hub!, runner, b.sid, { n: 1 });
    }, 2);
    expect(sidsOf(seen.bySids)).toEqual([`update-session:${b.sid}`]);
    expect(sidsOf(seen.toAll)).toEqual([`update-session:${a.sid}`, `update-session:${b.sid}`]);

    expect(await bySids.emitWithAck('unsubscribe', {})).toEqual({ ok: true });
    expect(await toAll.emitWithAck('unsubscribe', {})).toEqual({ ok: true });
    let later: SessionSnapshot | undefined;
    await round(async () => {
      later = await startSession(runner, { tag: 'later' });
      await write(hub!, runner, a.sid, { n: 2 });
      await write(hub!, runner, b.sid, { n: 2 });
    }, 3);
    expect(sidsOf(seen.bySids)).toEqual([`update-session:${b.sid}`]);
    expect(sidsOf(seen.toAll)).toEqual([`update-session:${a.sid}`, `update-session:${b.sid}`]);
    expect(bySids.connected && toAll.connected).toBe(true);

    // subscribing again picks the stream back up
    await subscribe(toAll);
    await subscribe(bySids, { sids: [later!.sid] });
    await round(() => write(hub!, runner, later!.sid, { n: 1 }), 1);
    expect(sidsOf(seen.toAll).at(-1)).toBe(`update-session:${later!.sid}`);
    expect(sidsOf(seen.bySids).at(-1)).toBe(`update-session:${later!.sid}`);
  });
});

describe('a dashboard is read only', () => {
  it('answers every /runner event on /dashboard with a forbidden error ack and changes nothing, for a dashboard and an admin token', async () => {
    hub = await startTestHub();
    const runner = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(runner, { tag: 'target' });
    await runner.emitWithAck('prompt-submit', { sid: session.sid, prompt: 'open a turn' });
    const meta = await snapshotOf(hub, session.sid);
    const sid = session.sid;

    // payloads each of which a runner may send: the typed map fails to compile if an event is added
    const payloads: { [E in keyof RunnerClientToServerEvents]: Parameters<RunnerClientToServerEvents[E]>[0] } = {
      'update-metadata': { sid, expectedVersion: meta.metadata.version, patch: { title: 'from a dashboard' } },
      'update-state': { sid, expectedVersion: meta.agentState.version, agentState: { busy: true } },
      'session-start': { tag: 'from-a-dashboard', flavor: 'claude', source: 'startup' },
      'session-join': { sid },
      'prompt-submit': { sid, prompt: 'from a dashboard' },
      'tool-use': { sid, tool: 'Bash', input: { command: 'rm -rf /' } },
      'turn-stop': { sid, response: 'done' },
      usage: { sid, usage: [{ model: 'claude-sonnet-4-5', inputTokens: 1, outputTokens: 1 }] },
      'session-end': { sid, reason: 'exit' },
      'session-finalize': { sid },
      'session-archive': { sid, reason: 'from a dashboard' },
      'session-alive': { sid, time: Date.now(), thinking: true },
      'resume-failed': { sid, tokenKey: 'claudeSessionId', token: 'claude-abc', stage: 'resume', emitted: false, aborted: true, error: 'x' },
      attention: { sid, kind: 'question', message: 'from a dashboard' },
      'approval-ask': { sid, tool: 'Bash', toolUseId: null, input: { command: 'ls' }, cwd: null, waitMs: 1000 },
      'machine-register': { machineId: 'machine-from-a-dashboard', name: 'x', host: 'x', platform: 'linux', roots: ['/tmp'], agents: [] },
    };
    const versioned = new Set(['update-metadata', 'update-state']);

    const recorder = await connectDashboard(hub.url, hub.tokens.dashboard);
    const { seq: seqBefore } = await subscribe(recorder);
    const recorded = collectUpdates(recorder);
    const read = async () => {
      const headers = { authorization: `Bearer ${hub!.tokens.dashboard}` };
      const get = async (path: string) => (await fetch(`${hub!.url}${path}`, { headers })).json();
      return { session: await get(`/api/sessions/${sid}`), history: await get(`/api/sessions/${sid}/history`), turns: await get(`/api/sessions/${sid}/turns`), list: await get('/api/sessions') };
    };
    const before = await read();

    for (const token of [hub.tokens.dashboard, hub.tokens.operator, hub.tokens.admin]) {
      const dashboard = await connectDashboard(hub.url, token);
      await subscribe(dashboard);
      const raw = dashboard as unknown as { emitWithAck(event: string, payload: unknown): Promise<unknown> };
      for (const [event, payload] of Object.entries(payloads)) {
        const ack = await raw.emitWithAck(event, payload);
        const message = expect.stringMatching(new RegExp(`${event}.*read only`));
        expect(ack, event).toEqual(versioned.has(event) ? { result: 'error', code: 'forbidden', message } : { ok: false, error: { code: 'forbidden', message } });
      }
      expect(dashboard.connected).toBe(true);
    }
    expect(await read()).toEqual(before);
    expect((await subscribe(recorder)).seq).toBe(seqBefore);
    await settle();
    expect(recorded).toEqual([]);

    // the same payloads do change things on /runner: the refusals above were not about the payloads
    const control = await connectRunner(hub.url, hub.tokens.runner);
    const rawRunner = control as unknown as { emitWithAck(event: string, payload: unknown): Promise<unknown> };
    for (const event of ['update-metadata', 'update-state', 'tool-use', 'session-archive'] as const) {
      const ack = await rawRunner.emitWithAck(event, payloads[event]);
      expect(ack, event).toMatchObject(versioned.has(event) ? { result: 'success' } : { ok: true });
    }
    expect((await read()).session).not.toEqual(before.session);
  });
});
