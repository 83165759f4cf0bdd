/**
 * Spec section 5: who receives each `update`, and replay of missed events (auth `lastSeq`,
 * `sinceSeq` in session-join / subscribe, which wins) after the ack, in seq order, as originally
 * sent; a gap (seq from the future, or pruned events) answers `resync { reason: 'gap' }`.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { collectUpdates, connectDashboard, connectRunner, startSession, waitFor, type DashboardSocket, type RunnerSocket } from '../helpers/clients.js';
import { closeTestHubsAfterEach, startTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub | undefined;
closeTestHubsAfterEach();

/** Lets in-flight broadcasts land before asserting that something did not arrive. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

/** Everything a socket receives after the call, ack included, in arrival order. */
function arrivals(socket: RunnerSocket | DashboardSocket) {
  const log: ({ kind: 'ack'; ack: any } | { kind: 'update'; event: UpdateEvent } | { kind: 'resync'; reason: string })[] = [];
  // the events both namespaces share (a runner also gets `message`, not listened to here)
  const common = socket as DashboardSocket;
  common.on('update', (event) => log.push({ kind: 'update', event }));
  common.on('resync', (event) => log.push({ kind: 'resync', reason: event.reason }));
  return {
    log,
    emit(event: string, payload: unknown): Promise<any> {
      return new Promise((resolve) =>
        (socket as unknown as { emit(e: string, p: unknown, ack: (a: unknown) => void): void }).emit(event, payload, (ack) => {
          log.push({ kind: 'ack', ack });
          resolve(ack);
        }),
      );
    },
    updates: () => log.filter((e) => e.kind === 'update').map((e) => (e as { event: UpdateEvent }).event),
  };
}

/** A running session with some history, and a namespace-wide dashboard recording every event as sent live. */
async function sessionsWithHistory(h: TestHub) {
  const recorder = await connectDashboard(h.url, h.tokens.dashboard);
  const sub = await recorder.emitWithAck('subscribe', {});
  if (!sub.ok) throw new Error('subscribe failed');
  const live = collectUpdates(recorder);
  const writer = await connectRunner(h.url, h.tokens.runner);
  const a = await startSession(writer, { tag: 'a' });
  const b = await startSession(writer, { tag: 'b' });
  for (let i = 0; i < 3; i++) {
    await writer.emitWithAck('update-metadata', { sid: a.sid, expectedVersion: 1 + i, patch: { n: i } });
    await writer.emitWithAck('update-metadata', { sid: b.sid, expectedVersion: 1 + i, patch: { n: i } });
  }
  await writer.emitWithAck('prompt-submit', { sid: a.sid, prompt: 'hello' });
  await waitFor(() => live.some((e) => e.body.t === 'turn'), 3000, 'recorded events');
  return { writer, a, b, live };
}

describe('replay', () => {
  it('replays a joined session\'s missed events from auth lastSeq after the ack, in seq order, as originally sent', async () => {
    hub = await startTestHub();
    const { a, live } = await sessionsWithHistory(hub);
    const from = live[2]!.seq;
    const expected = live.filter((e) => e.seq > from && e.body.sid === a.sid);
    expect(expected.length).toBeGreaterThanOrEqual(3);

    const rejoin = arrivals(await connectRunner(hub.url, hub.tokens.runner, { lastSeq: from }));
    const ack = await rejoin.emit('session-join', { sid: a.sid });
    expect(ack).toMatchObject({ ok: true, session: { sid: a.sid } });
    await waitFor(() => rejoin.updates().length >= expected.length, 2000, 'replay');
    await settle();
    expect(rejoin.log[0]!.kind).toBe('ack');
    expect(rejoin.updates()).toEqual(expected);
    expect(rejoin.updates().map((e) => e.seq)).toEqual([...expected.map((e) => e.seq)].sort((x, y) => x - y));
  });

  it('lets sinceSeq in session-join win over auth lastSeq', async () => {
    hub = await startTestHub();
    const { a, live } = await sessionsWithHistory(hub);
    const since = live.filter((e) => e.body.sid === a.sid).at(-2)!.seq;
    const rejoin = arrivals(await connectRunner(hub.url, hub.tokens.runner, { lastSeq: 0 }));
    await rejoin.emit('session-join', { sid: a.sid, sinceSeq: since });
    await waitFor(() => rejoin.updates().length >= 1, 2000, 'replay');
    await settle();
    expect(rejoin.updates()).toEqual(live.filter((e) => e.seq > since && e.body.sid === a.sid));

    // a lastSeq from the future in auth does not matter when sinceSeq is valid
    const again = arrivals(await connectRunner(hub.url, hub.tokens.runner, { lastSeq: 1_000_000 }));
    await again.emit('session-join', { sid: a.sid, sinceSeq: since });
    await waitFor(() => again.updates().length >= 1, 2000, 'replay');
    await settle();
    expect(again.log.filter((e) => e.kind === 'resync')).toEqual([]);
  });

  it('replays every session of the namespace to a dashboard subscribing to all, and one session to one subscribing by sid', async () => {
    hub = await startTestHub();
    const { b, live } = await sessionsWithHistory(hub);
    const other = await connectRunner(hub.url, hub.tokens.otherRunner);
    await startSession(other, { tag: 'other-ns' });
    const from = live[1]!.seq;

    const all = arrivals(await connectDashboard(hub.url, hub.tokens.dashboard, { lastSeq: from }));
    const ack = await all.emit('subscribe', {});
    expect(ack).toMatchObject({ ok: true, seq: live.at(-1)!.seq });
    const expectedAll = live.filter((e) => e.seq > from);
    await waitFor(() => all.updates().length >= expectedAll.length, 2000, 'replay to all');
    await settle();
    expect(all.log[0]!.kind).toBe('ack');
    expect(all.updates()).toEqual(expectedAll);

    const one = arrivals(await connectDashboard(hub.url, hub.tokens.dashboard, { lastSeq: 999 }));
    await one.emit('subscribe', { sids: [b.sid], sinceSeq: from });
    const expectedOne = live.filter((e) => e.seq > from && e.body.sid === b.sid);
    await waitFor(() => one.updates().length >= expectedOne.length, 2000, 'replay to one');
    await settle();
    expect(one.updates()).toEqual(expectedOne);
    expect(one.log.some((e) => e.kind === 'resync')).toBe(false);
  });

  it('answers a seq above the namespace\'s latest with resync gap and no partial replay', async () => {
    hub = await startTestHub();
    const { a, live } = await sessionsWithHistory(hub);
    const future = live.at(-1)!.seq + 1;

    const runner = arrivals(await connectRunner(hub.url, hub.tokens.runner, { lastSeq: future }));
    expect(await runner.emit('session-join', { sid: a.sid })).toMatchObject({ ok: true });
    const dashboard = arrivals(await connectDashboard(hub.url, hub.tokens.dashboard));
    expect(await dashboard.emit('subscribe', { sinceSeq: future })).toMatchObject({ ok: true });
    await waitFor(() => runner.log.length >= 2 && dashboard.log.length >= 2, 2000, 'resync');
    await settle();
    expect(runner.log.map((e) => e.kind)).toEqual(['ack', 'resync']);
    expect(dashboard.log.map((e) => e.kind)).toEqual(['ack', 'resync']);
    expect(dashboard.log[1]).toEqual({ kind: 'resync', reason: 'gap' });

    // the latest seq itself is no gap: nothing was missed
    const upToDate = arrivals(await connectDashboard(hub.url, hub.tokens.dashboard));
    await upToDate.emit('subscribe', { sinceSeq: future - 1 });
    await settle();
    expect(upToDate.log.map((e) => e.kind)).toEqual(['ack']);
  });

  it('accepts a valid token with a malformed auth lastSeq and answers resync gap instead of guessing where to replay from', async () => {
    hub = await startTestHub();
    const { a } = await sessionsWithHistory(hub);
    for (const lastSeq of ['12', -1, 1.5]) {
      const runner = arrivals(await connectRunner(hub.url, hub.tokens.runner, { lastSeq } as never));
      expect(await runner.emit('session-join', { sid: a.sid })).toMatchObject({ ok: true });
      const dashboard = arrivals(await connectDashboard(hub.url, hub.tokens.dashboard, { lastSeq } as never));
      expect(await dashboard.emit('subscribe', {})).toMatchObject({ ok: true });
      await waitFor(() => runner.log.length >= 2 && dashboard.log.length >= 2, 2000, 'resync');
      expect(runner.log.map((e) => e.kind)).toEqual(['ack', 'resync']);
      expect(dashboard.log.map((e) => e.kind)).toEqual(['ack', 'resync']);
    }
  });

  it('answers resync gap when the requested events were pruned, and replays what is still kept', async () => {
    const clock = new ManualClock();
    hub = await startTestHub({ clock, config: { eventKeep: 0, eventKeepMs: 0 } });
    const { a, writer, live } = await sessionsWithHistory(hub);
    clock.advance(1000);
    expect((await hub.sweepNow()).eventsPruned).toBe(live.length);
    const latest = live.at(-1)!.seq;

    const stale = arrivals(await connectDashboard(hub.url, hub.tokens.dashboard, { lastSeq: live[3]!.seq }));
    await stale.emit('subscribe', {});
    const staleRunner = arrivals(await connectRunner(hub.url, hub.tokens.runner));
    await staleRunner.emit('session-join', { sid: a.sid, sinceSeq: 0 });
    await waitFor(() => stale.log.length >= 2 && staleRunner.log.length >= 2, 2000, 'resync');
    expect(stale.log.map((e) => e.kind)).toEqual(['ack', 'resync']);
    expect(staleRunner.log.map((e) => e.kind)).toEqual(['ack', 'resync']);

    // events written after the prune are replayed to a client that saw everything before them
    await writer.emitWithAck('update-metadata', { sid: a.sid, expectedVersion: 4, patch: { after: true } });
    const fresh = arrivals(await connectDashboard(hub.url, hub.tokens.dashboard));
    await fresh.emit('subscribe', { sinceSeq: latest });
    await waitFor(() => fresh.updates().length >= 1, 2000, 'replay');
    await settle();
    expect(fresh.log.map((e) => e.kind)).toEqual(['ack', 'update']);
    expect(fresh.updates()[0]).toMatchObject({ seq: latest + 1, body: { t: 'update-session', sid: a.sid, metadata: { version: 5 } } });
  });
});

describe('who receives broadcasts', () => {
  it('reaches the session\'s room but the writer, and dashboards subscribed to the session or to all, not unsubscribed ones', async () => {
    hub = await startTestHub();
    const writer = await connectRunner(hub.url, hub.tokens.runner);
    const peer = await connectRunner(hub.url, hub.tokens.runner);
    const elsewhere = await connectRunner(hub.url, hub.tokens.runner);
    const session = await startSession(writer, { tag: 'target' });
    const otherSession = await startSession(elsewhere, { tag: 'elsewhere' });
    await peer.emitWithAck('session-join', { sid: session.sid });

    const dashboards = {
      all: await connectDashboard(hub.url, hub.tokens.dashboard),
      bySid: await connectDashboard(hub.url, hub.tokens.dashboard),
      otherSid: await connectDashboard(hub.url, hub.tokens.dashboard),
      unsubscribedAll: await connectDashboard(hub.url, hub.tokens.dashboard),
      unsubscribedSid: await connectDashboard(hub.url, hub.tokens.dashboard),
      never: await connectDashboard(hub.url, hub.tokens.dashboard),
    };
    await dashboards.all.emitWithAck('subscribe', {});
    await dashboards.bySid.emitWithAck('subscribe', { sids: [session.sid] });
    await dashboards.otherSid.emitWithAck('subscribe', { sids: [otherSession.sid] });
    await dashboards.unsubscribedAll.emitWithAck('subscribe', {});
    expect(await dashboards.unsubscribedAll.emitWithAck('unsubscribe', {})).toEqual({ ok: true });
    await dashboards.unsubscribedSid.emitWithAck('subscribe', { sids: [session.sid, otherSession.sid] });
    expect(await dashboards.unsubscribedSid.emitWithAck('unsubscribe', { sids: [session.sid] })).toEqual({ ok: true });

    const seen = {
      writer: collectUpdates(writer),
      peer: collectUpdates(peer),
      elsewhere: collectUpdates(elsewhere),
      ...Object.fromEntries(Object.entries(dashboards).map(([name, socket]) => [name, collectUpdates(socket)])),
    } as Record<string, UpdateEvent[]>;

    expect(await writer.emitWithAck('update-metadata', { sid: session.sid, expectedVersion: 1, patch: { title: 't' } })).toMatchObject({ result: 'success' });
    await waitFor(() => seen.peer!.length > 0 && seen.all!.length > 0 && seen.bySid!.length > 0, 2000, 'broadcast');
    await settle();
    const sids = (name: string) => seen[name]!.map((e) => e.body.sid);
    expect(sids('peer')).toEqual([session.sid]);
    expect(sids('all')).toEqual([session.sid]);
    expect(sids('bySid')).toEqual([session.sid]);
    for (const name of ['writer', 'elsewhere', 'otherSid', 'unsubscribedAll', 'unsubscribedSid', 'never']) expect(sids(name), name).toEqual([]);
    expect(seen.peer![0]).toEqual(seen.all![0]);

    // the one still watching otherSession by sid gets its updates
    await elsewhere.emitWithAck('update-metadata', { sid: otherSession.sid, expectedVersion: 1, patch: { title: 'o' } });
    await waitFor(() => seen.unsubscribedSid!.length > 0 && seen.otherSid!.length > 0, 2000, 'other session broadcast');

    // a hub-originated change (archive over HTTP) reaches every runner in the room, the writer included
    const response = await fetch(`${hub.url}/api/sessions/${session.sid}/archive`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.tokens.runner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'done' }),
    });
    expect(response.status).toBe(200);
    await waitFor(() => seen.writer!.length > 0 && seen.peer!.length > 1, 2000, 'hub-originated broadcast');
    expect(seen.writer!.at(-1)!.body).toMatchObject({ t: 'update-session', sid: session.sid, lifecycle: { state: 'archived', by: 'user' } });
  });
});
