import { describe, expect, it } from 'vitest';
import type { RunnerClient } from '../../shared/client/index.js';
import type { JsonObject } from '../../shared/protocol/json.js';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { collectUpdates, connectDashboard, waitFor } from '../helpers/clients.js';
import { dashboardOn, gapsIn, getHistory, getSession, rawUpdates, runnerOn, startTwoHubs, twoHubsAfterEach } from './two-hubs.js';

twoHubsAfterEach();

interface Acked {
  key: string;
  value: number;
  version: number;
  metadata: JsonObject;
}

/**
 * `count` metadata writes of `key` = 1..count through the SDK, one after another. A whole-document
 * updater (every other writer) loses the other writers' keys unless compare-and-set holds across
 * processes, since it rebuilds the document from the version it read; a patch exercises the merge path.
 */
async function writeKey(runner: RunnerClient, sid: string, key: string, count: number, style: 'document' | 'patch', acked: Acked[]): Promise<void> {
  for (let value = 1; value <= count; value += 1) {
    const result =
      style === 'document'
        ? await runner.updateMetadata(sid, (current) => ({ ...current, [key]: value }))
        : await runner.updateMetadata(sid, { patch: { [key]: value } });
    acked.push({ key, value, version: result.version, metadata: result.metadata });
  }
}

const metadataVersions = (events: UpdateEvent[]) =>
  events.flatMap((event) => (event.body.t === 'update-session' && event.body.metadata ? [event.body.metadata.version] : []));

describe('two hub processes on one PostgreSQL database and one Redis', () => {
  it('concurrent writes to one session from runners on both processes: compare-and-set holds, nothing acknowledged is lost', { timeout: 60_000 }, async () => {
    const { a, b, tokens } = await startTwoHubs();
    const writers = await Promise.all([a, a, a, a, b, b, b, b].map((hub) => runnerOn(hub, tokens.runner)));
    const { session } = await writers[0]!.startSession({ tag: 'shared', flavor: 'claude', source: 'startup', metadata: { path: '/work/project' } });
    await Promise.all(writers.slice(1).map((writer) => writer.joinSession(session.sid)));

    const perWriter = 15;
    const acked: Acked[] = [];
    await Promise.all(writers.map((writer, i) => writeKey(writer, session.sid, `k${i}`, perWriter, i % 2 === 0 ? 'document' : 'patch', acked)));

    const total = writers.length * perWriter;
    expect(acked).toHaveLength(total);
    // one version per accepted write, each handed out once, none skipped
    expect(acked.map((ack) => ack.version).sort((x, y) => x - y)).toEqual(Array.from({ length: total }, (_, i) => i + 2));
    for (const ack of acked) expect(ack.metadata[ack.key]).toBe(ack.value);

    const expectedKeys = Object.fromEntries(writers.map((_, i) => [`k${i}`, perWriter]));
    for (const hub of [a, b]) {
      const stored = await getSession(hub, session.sid, tokens.dashboard);
      expect(stored.metadata.version).toBe(1 + total);
      expect(stored.metadata.value).toEqual({ ...session.metadata.value, ...expectedKeys });
    }

    const history = await getHistory(b, session.sid, tokens.dashboard);
    expect(history.map((row) => row.version)).toEqual(Array.from({ length: total + 1 }, (_, i) => i + 1));
    for (const ack of acked) expect(history[ack.version - 1]!.metadata).toEqual(ack.metadata);
    // every version is the previous one with exactly one writer's key moved on by one: no write was
    // computed from a stale version and none overwrote another
    for (let v = 1; v < history.length; v += 1) {
      const before = history[v - 1]!.metadata;
      const after = history[v]!.metadata;
      const changed = Object.keys({ ...before, ...after }).filter((key) => before[key] !== after[key]);
      expect(changed, `version ${v + 1}`).toHaveLength(1);
      expect(after[changed[0]!]).toBe(((before[changed[0]!] as number | undefined) ?? 0) + 1);
    }
  });

  it('broadcasts cross processes in seq order: dashboards on both see the same gapless sequence, a runner on B sees the writes made on A', { timeout: 60_000 }, async () => {
    const { a, b, tokens } = await startTwoHubs();
    const dashboardA = await dashboardOn(a, tokens.dashboard);
    const dashboardB = await dashboardOn(b, tokens.dashboard);
    const seenA = rawUpdates(dashboardA);
    const seenB = rawUpdates(dashboardB);
    await dashboardA.subscribe();
    await dashboardB.subscribe();
    const subscribedAt = Math.max(dashboardA.lastSeq!, dashboardB.lastSeq!);
    expect(dashboardA.lastSeq).toBe(dashboardB.lastSeq);

    const runnerA = await runnerOn(a, tokens.runner);
    const runnerB = await runnerOn(b, tokens.runner);
    const { session } = await runnerA.startSession({ tag: 'broadcast', flavor: 'claude', source: 'startup', metadata: { path: '/work/project' } });
    await runnerB.joinSession(session.sid);
    const heardByB: UpdateEvent[] = [];
    runnerB.on('update', (event) => heardByB.push(event));

    const perWriter = 30;
    const ackedA: Acked[] = [];
    const ackedB: Acked[] = [];
    await Promise.all([
      writeKey(runnerA, session.sid, 'fromA', perWriter, 'patch', ackedA),
      writeKey(runnerB, session.sid, 'fromB', perWriter, 'patch', ackedB),
    ]);
    const finalVersion = 1 + 2 * perWriter;
    const sawFinal = (events: UpdateEvent[]) => metadataVersions(events).includes(finalVersion);
    await waitFor(() => sawFinal(seenA) && sawFinal(seenB), 10_000, 'the last write on both dashboards');

    const seqsA = seenA.map((event) => event.seq);
    expect(seqsA[0]).toBe(subscribedAt + 1);
    expect(gapsIn(seqsA)).toEqual([]);
    // the same events, in the same order, on both processes
    expect(seenB.map((event) => [event.seq, event.id])).toEqual(seenA.map((event) => [event.seq, event.id]));
    expect(seenB).toEqual(seenA);
    // every acknowledged write from either side, once each, in version order
    expect(metadataVersions(seenA)).toEqual(Array.from({ length: 2 * perWriter }, (_, i) => i + 2));

    // the runner on B is in the session's room: it hears each write made on A, in seq order
    const versionsHeardByB = metadataVersions(heardByB);
    for (const ack of ackedA) expect(versionsHeardByB).toContain(ack.version);
    for (const ack of ackedB) expect(versionsHeardByB).not.toContain(ack.version); // the writer has its ack
    const heardSeqs = heardByB.map((event) => event.seq);
    expect(heardSeqs).toEqual([...heardSeqs].sort((x, y) => x - y));
    expect(new Set(heardSeqs).size).toBe(heardSeqs.length);
    expect(runnerB.session(session.sid)!.metadata.version).toBe(finalVersion);
  });

  it('a dashboard that leaves A and reconnects to B with its lastSeq gets exactly the events it missed', { timeout: 60_000 }, async () => {
    const { a, b, tokens } = await startTwoHubs();
    const watcher = await dashboardOn(b, tokens.dashboard); // connected throughout: the reference
    const reference = rawUpdates(watcher);
    await watcher.subscribe();
    const leaving = await dashboardOn(a, tokens.dashboard);
    await leaving.subscribe();

    const runnerA = await runnerOn(a, tokens.runner);
    const runnerB = await runnerOn(b, tokens.runner);
    const { session } = await runnerA.startSession({ tag: 'replay', flavor: 'claude', source: 'startup', metadata: { path: '/work/project' } });
    await runnerB.joinSession(session.sid);
    await writeKey(runnerA, session.sid, 'before', 5, 'patch', []);
    await waitFor(() => leaving.sessions.get(session.sid)?.metadata.version === 6, 5000, 'the first writes on the leaving dashboard');
    leaving.close();
    const lastSeq = leaving.lastSeq!;

    // missed: writes on both processes and a turn, while the dashboard is away
    await Promise.all([writeKey(runnerA, session.sid, 'missedA', 5, 'patch', []), writeKey(runnerB, session.sid, 'missedB', 5, 'patch', [])]);
    await runnerB.submitPrompt({ sid: session.sid, prompt: 'while you were away' });
    await waitFor(() => metadataVersions(reference).includes(16) && reference.some((event) => event.body.t === 'turn'), 5000, 'the missed events on the reference');
    const missed = reference.filter((event) => event.seq > lastSeq);
    expect(missed.length).toBeGreaterThanOrEqual(11);

    // the SDK way (sinceSeq in subscribe), and a plain socket with auth.lastSeq
    const back = await dashboardOn(b, tokens.dashboard, { lastSeq });
    const replayed = rawUpdates(back);
    await back.subscribe();
    const plain = await connectDashboard(b.url, tokens.dashboard, { lastSeq });
    const replayedPlain = collectUpdates(plain);
    const ack = await plain.emitWithAck('subscribe', {});
    expect(ack.ok).toBe(true);
    await waitFor(() => replayed.length >= missed.length && replayedPlain.length >= missed.length, 5000, 'the replay');

    // one live event after the replay: it follows, and nothing else arrived in between
    await runnerA.updateMetadata(session.sid, { patch: { after: true } });
    const sawLive = (events: UpdateEvent[]) => metadataVersions(events).includes(17);
    await waitFor(() => sawLive(replayed) && sawLive(replayedPlain) && sawLive(reference), 5000, 'the live event after the replay');
    const expected = reference.filter((event) => event.seq > lastSeq);
    expect(replayed).toEqual(expected);
    expect(replayedPlain).toEqual(expected);
    expect(back.sessions.get(session.sid)).toEqual(watcher.sessions.get(session.sid));
  });
});
