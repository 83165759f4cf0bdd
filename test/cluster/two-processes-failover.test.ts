import { describe, expect, it } from 'vitest';
import type { RunnerClient } from '../../shared/client/index.js';
import type { JsonObject } from '../../shared/protocol/json.js';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { waitFor } from '../helpers/clients.js';
import {
  dashboardOn,
  gapsIn,
  getHistory,
  getSession,
  getTurns,
  lifecycleEnds,
  rawUpdates,
  runEndedBySweepsTotal,
  runnerOn,
  startTwoHubs,
  sweepsRun,
  twoHubsAfterEach,
} from './two-hubs.js';

twoHubsAfterEach();

/** One runner's stream of metadata writes `key` = 1, 2, 3… (whole-document updaters, so CAS matters). */
interface Writer {
  key: string;
  next: number;
  /** The write sent but not answered yet: what a runner re-sends (same requestId) after a failover. */
  inflight?: { value: number; requestId: string };
  acked: { value: number; version: number; metadata: JsonObject }[];
}

const newWriter = (key: string): Writer => ({ key, next: 1, acked: [] });

async function write(runner: RunnerClient, sid: string, writer: Writer, value: number, requestId: string): Promise<void> {
  writer.inflight = { value, requestId };
  const result = await runner.updateMetadata(sid, (current) => ({ ...current, [writer.key]: value }), { requestId });
  writer.acked.push({ value, version: result.version, metadata: result.metadata });
  writer.inflight = undefined;
}

/** Writes until `done()`; a write that fails (the process died under it) ends the burst and stays `inflight`. */
async function burst(runner: RunnerClient, sid: string, writer: Writer, done: () => boolean): Promise<void> {
  while (!done()) {
    const value = writer.next;
    await write(runner, sid, writer, value, `${writer.key}-${value}`);
    writer.next = value + 1;
  }
}

const RUN_GRACE_MS = 2000;

describe('two hub processes: one dies, the other carries on', () => {
  it('kill -9 during a burst of writes: runners rejoin on B with no acknowledged write lost, their run lives on, a run whose runner never returns ends once', { timeout: 60_000 }, async () => {
    const { a, b, tokens } = await startTwoHubs({
      SESSION_HUB_HEARTBEAT_MS: '200',
      SESSION_HUB_SWEEP_MS: '200',
      SESSION_HUB_RUN_GRACE_MS: String(RUN_GRACE_MS),
    });
    const dashboard = await dashboardOn(b, tokens.dashboard);
    const seen = rawUpdates(dashboard);
    await dashboard.subscribe();
    const subscribedAt = dashboard.lastSeq!;

    // a short ack wait on A's runners: their last write stops waiting soon after A is gone
    const onA = { requestTimeoutMs: 1000 };
    const first = await runnerOn(a, tokens.runner, onA);
    const { session } = await first.startSession({ tag: 'survivor', flavor: 'claude', source: 'startup', metadata: { path: '/work/project' } });
    expect(session.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
    const onB = await runnerOn(b, tokens.runner);
    await onB.joinSession(session.sid);
    const second = await runnerOn(a, tokens.runner, onA);
    await second.joinSession(session.sid); // the last bind: the run is held by A
    const abandoned = await runnerOn(a, tokens.runner, onA);
    const lost = (await abandoned.startSession({ tag: 'lost', flavor: 'claude', source: 'startup', metadata: { path: '/work/other' } })).session;
    await abandoned.submitPrompt({ sid: lost.sid, prompt: 'never finished' });

    // bounded bursts: an unbounded hot writer starves the others' compare-and-set retries (the SDK's
    // backoff grows with each lost race while the winner starts every write afresh)
    const perWriter = 40;
    const writers = { first: newWriter('first'), second: newWriter('second'), onB: newWriter('onB') };
    const burstB = burst(onB, session.sid, writers.onB, () => writers.onB.next > perWriter);
    // these end when A dies: their last write keeps retrying on a dead socket until its budget runs out
    let killed = false;
    for (const [runner, writer] of [[first, writers.first], [second, writers.second]] as const) {
      burst(runner, session.sid, writer, () => writer.next > perWriter).catch((error: unknown) => {
        if (!killed) throw error;
      });
    }
    await waitFor(() => writers.first.acked.length + writers.second.acked.length >= 10, 20_000, 'writes acknowledged on A');
    killed = true;
    await a.kill9();

    // A's runners fail over to B. They were given A's URL alone, so the test reconnects them, as a
    // runner behind a balancer would be: a new connection to B with its lastSeq, session-join, and the
    // unanswered write re-sent with its requestId (applied at most once).
    const failedOver: RunnerClient[] = [];
    for (const [old, writer] of [[first, writers.first], [second, writers.second]] as const) {
      old.socket.disconnect();
      const runner = await runnerOn(b, tokens.runner, { lastSeq: old.lastSeq });
      const rejoined = await runner.joinSession(session.sid);
      expect(rejoined.lifecycle).toEqual(session.lifecycle);
      failedOver.push(runner);
      if (writer.inflight) await write(runner, session.sid, writer, writer.inflight.value, writer.inflight.requestId);
      writer.next = Math.max(0, ...writer.acked.map((ack) => ack.value)) + 1;
    }
    abandoned.socket.disconnect(); // never comes back
    const resumedFrom = { first: writers.first.next, second: writers.second.next };
    await Promise.all([
      burst(failedOver[0]!, session.sid, writers.first, () => writers.first.next >= resumedFrom.first + 10),
      burst(failedOver[1]!, session.sid, writers.second, () => writers.second.next >= resumedFrom.second + 10),
      burstB,
    ]);

    // the lost run: B presumes A dead after 3 missed heartbeats, then the grace runs out
    await waitFor(() => lifecycleEnds(seen, lost.sid).length > 0, 20_000, 'the abandoned run to end');
    // a few more sweeps, then a new event as a barrier: a second end would be in the log before it
    const sweeps = await sweepsRun(b);
    await waitFor(async () => (await sweepsRun(b)) >= sweeps + 3, 10_000, 'three more sweeps on B');
    const barrier = await failedOver[0]!.updateMetadata(session.sid, { patch: { barrier: true } });
    await waitFor(() => seen.some((event) => event.body.t === 'update-session' && event.body.metadata?.version === barrier.version), 5000, 'the barrier');

    const ended = lifecycleEnds(seen, lost.sid);
    expect(ended).toHaveLength(1);
    expect(ended[0]!.body).toMatchObject({ lifecycle: { state: 'ended', reason: 'runner_lost', by: 'hub' } });
    expect(await runEndedBySweepsTotal([b])).toBe(1);
    const lostNow = await getSession(b, lost.sid, tokens.dashboard);
    expect(lostNow.lifecycle).toMatchObject({ state: 'ended', reason: 'runner_lost', by: 'hub', lastRun: { status: 'interrupted', reason: 'runner_lost' } });
    expect(lostNow.currentTurn).toBeNull();

    // the survivors rejoined within the grace: the same run, still live, long after the lost one ended
    const survivor = await getSession(b, session.sid, tokens.dashboard);
    expect(survivor.lifecycle).toEqual(session.lifecycle); // running, its run running, unchanged since the start
    expect(lifecycleEnds(seen, session.sid)).toEqual([]);

    // no acknowledged write lost, none applied twice (the re-sent one included), versions gapless
    const history = await getHistory(b, session.sid, tokens.dashboard);
    expect(history.map((row) => row.version)).toEqual(Array.from({ length: history.length }, (_, i) => i + 1));
    expect(survivor.metadata.version).toBe(history.length);
    for (const writer of Object.values(writers)) {
      for (const ack of writer.acked) expect(history[ack.version - 1]!.metadata[writer.key]).toBe(ack.value);
      // the key's successive values across the history: 1, 2, 3… each once
      const values = history.map((row) => row.metadata[writer.key]).filter((value, i, all) => value !== undefined && value !== all[i - 1]);
      const last = Math.max(0, ...writer.acked.map((ack) => ack.value));
      expect(values, writer.key).toEqual(Array.from({ length: last }, (_, i) => i + 1));
      expect(survivor.metadata.value[writer.key]).toBe(last);
    }
    const distinctWrites = Object.values(writers).reduce((sum, writer) => sum + Math.max(0, ...writer.acked.map((ack) => ack.value)), 0);
    expect(history.length).toBe(1 + distinctWrites + 1); // session-start, the writes, the barrier

    // B's dashboard saw every event in seq order with no gap, across the kill (what A committed but
    // never published came from the event log); seq kept rising on B after A died
    const seqs = seen.map((event) => event.seq);
    expect(seqs[0]).toBe(subscribedAt + 1);
    expect(gapsIn(seqs)).toEqual([]);
    const versionsSeen = seen.flatMap((event: UpdateEvent) => (event.body.t === 'update-session' && event.body.metadata ? [event.body.metadata.version] : []));
    expect(versionsSeen).toEqual(Array.from({ length: history.length - 1 }, (_, i) => i + 2));
  });

  it('two live processes sweeping every 50 ms end a lost run exactly once', { timeout: 60_000 }, async () => {
    const { a, b, tokens } = await startTwoHubs({
      SESSION_HUB_HEARTBEAT_MS: '100',
      SESSION_HUB_SWEEP_MS: '50',
      SESSION_HUB_RUN_GRACE_MS: '300',
    });
    const dashboards = [await dashboardOn(a, tokens.dashboard), await dashboardOn(b, tokens.dashboard)];
    const seen = dashboards.map((dashboard) => rawUpdates(dashboard));
    for (const dashboard of dashboards) await dashboard.subscribe();

    const runner = await runnerOn(a, tokens.runner);
    const { session } = await runner.startSession({ tag: 'lost', flavor: 'claude', source: 'startup', metadata: { path: '/work/project' } });
    const { turnId } = await runner.submitPrompt({ sid: session.sid, prompt: 'left open' });
    await runner.close();

    await waitFor(() => seen.every((events) => lifecycleEnds(events, session.sid).length > 0), 10_000, 'the end on both dashboards');
    const sweeps = async () => (await sweepsRun(a)) + (await sweepsRun(b));
    const sweptBefore = await sweeps();
    await waitFor(async () => (await sweeps()) >= sweptBefore + 6, 10_000, 'six more sweeps in the cluster');
    // a barrier event: a second end, committed before it, would reach the dashboards before it
    const other = await runnerOn(b, tokens.runner);
    const barrier = (await other.startSession({ tag: 'barrier', flavor: 'claude', source: 'startup', metadata: { path: '/work/x' } })).session;
    await waitFor(() => seen.every((events) => events.some((event) => event.body.t === 'session-created' && event.body.sid === barrier.sid)), 5000, 'the barrier');

    for (const events of seen) {
      const ended = lifecycleEnds(events, session.sid);
      expect(ended).toHaveLength(1);
      expect(ended[0]!.body).toMatchObject({ lifecycle: { state: 'ended', reason: 'runner_lost', by: 'hub' } });
      expect(events.filter((event) => event.body.t === 'turn' && event.body.turn.turnId === turnId && event.body.turn.status !== 'open')).toHaveLength(1);
      expect(gapsIn(events.map((event) => event.seq))).toEqual([]);
    }
    expect(seen[1]).toEqual(seen[0]);
    expect(await runEndedBySweepsTotal([a, b])).toBe(1);
    for (const hub of [a, b]) {
      const stored = await getSession(hub, session.sid, tokens.dashboard);
      expect(stored.lifecycle).toMatchObject({ state: 'ended', reason: 'runner_lost', by: 'hub', lastRun: { status: 'interrupted', reason: 'runner_lost' } });
      expect(stored.currentTurn).toBeNull();
      const turns = await getTurns(hub, session.sid, tokens.dashboard);
      expect(turns).toHaveLength(1);
      expect(turns[0]).toMatchObject({ turnId });
      expect(turns[0]!.status).not.toBe('open');
      expect(turns[0]!.closedAt).not.toBeNull();
    }
  });
});
