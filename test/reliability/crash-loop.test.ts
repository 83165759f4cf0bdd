import { describe, expect, it } from 'vitest';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { closeAllClients, collectUpdates, connectDashboard, connectRunner, startSession, waitFor } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';
import { expectAckedWritesStored, FloodWriter, Follower, getJson, SeqLedger, type Versioned } from './flood.js';

const SESSIONS = 4;
const CRASHES = 10;
/** Acks each writer must have in an epoch before the crash, so every crash hits a live flood. */
const ACKS_PER_EPOCH = 5;
const ENV = { SESSION_HUB_RATE_LIMIT: '100000', SESSION_HUB_RATE_BURST: '100000', SESSION_HUB_TOKEN_RATE_LIMIT: '100000', SESSION_HUB_TOKEN_RATE_BURST: '100000' };

let hub: HubProcess | undefined;
stopHubsAfterEach();

/** A runner reconnecting after a crash: `session-join` tells it the hub's truth. */
async function rejoinWriter(url: string, token: string, writer: FloodWriter) {
  const socket = await connectRunner(url, token);
  const join = await socket.emitWithAck('session-join', { sid: writer.sid });
  if (!join.ok) throw new Error(`session-join: ${join.error.message}`);
  writer.cache = join.session.metadata;
  return socket;
}

/** A follower reconnecting with `lastSeq`: it catches up from the replay alone, not the snapshot. */
async function rejoinFollower(url: string, token: string, follower: Follower) {
  const socket = await connectRunner(url, token, { lastSeq: follower.maxSeq });
  follower.attach(socket);
  const join = await socket.emitWithAck('session-join', { sid: follower.sid });
  if (!join.ok) throw new Error(`session-join: ${join.error.message}`);
  return socket;
}

describe('crash loop: kill -9 ten times during a write flood', () => {
  it('loses no acknowledged write, never reuses a seq, and every runner cache converges', async () => {
    hub = await spawnHub({ env: ENV });
    const { dataDir, port, tokens } = hub;
    const ledger = new SeqLedger();
    const writers: FloodWriter[] = [];
    const followers: Follower[] = [];

    const setup = await connectRunner(hub.url, tokens.runner);
    for (let i = 0; i < SESSIONS; i++) {
      const session = await startSession(setup);
      writers.push(new FloodWriter(session.sid, `w${i}`, session.metadata));
      followers.push(new Follower(session.sid, session.metadata, ledger));
    }
    setup.disconnect();

    for (let crash = 0; crash <= CRASHES; crash++) {
      if (crash > 0) hub = await spawnHub({ dataDir, port, env: ENV });
      const url = hub.url;
      await Promise.all(followers.map((follower) => rejoinFollower(url, tokens.runner, follower)));
      if (crash === CRASHES) break; // the last start only reconnects and checks
      const stop = { stopped: false };
      const runs: Promise<void>[] = [];
      for (const writer of writers) {
        writer.ackedThisRun = 0;
        runs.push(rejoinWriter(hub.url, tokens.runner, writer).then((socket) => writer.run(socket, stop)));
      }
      await waitFor(() => writers.every((w) => w.ackedThisRun >= ACKS_PER_EPOCH), 15_000, `acks before crash ${crash + 1}`);
      await hub.kill9();
      await Promise.all(runs);
      closeAllClients();
    }

    // every runner converges on the hub's stored version and value
    for (const follower of followers) {
      const stored = (await getJson<{ metadata: Versioned }>(`${hub.url}/api/sessions/${follower.sid}`, tokens.runner)).metadata;
      await waitFor(() => follower.cache.version === stored.version, 5000, `follower of ${follower.sid} at v${stored.version}`);
      expect(follower.cache).toEqual(stored);
      expect(follower.resyncs).toBe(0);
    }
    for (const writer of writers) {
      const stored = (await getJson<{ metadata: Versioned }>(`${hub.url}/api/sessions/${writer.sid}`, tokens.runner)).metadata;
      await rejoinWriter(hub.url, tokens.runner, writer);
      expect(writer.cache).toEqual(stored);
    }

    const checked = await expectAckedWritesStored(hub.url, tokens.runner, writers);
    expect(checked).toBeGreaterThanOrEqual(SESSIONS * ACKS_PER_EPOCH * CRASHES);

    // seq never reused: the same seq always carried the same event, live or replayed, before or after a crash
    expect(ledger.reused).toEqual([]);
    const dashboard = await connectDashboard(hub.url, tokens.dashboard);
    const replayed: UpdateEvent[] = collectUpdates(dashboard);
    await dashboard.emitWithAck('subscribe', { sinceSeq: 0 });
    await waitFor(() => replayed.some((e) => e.seq >= ledger.maxSeq()), 5000, 'full replay');
    const seqs = replayed.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    const idBySeq = new Map(replayed.map((e) => [e.seq, e.id]));
    for (const [seq, id] of ledger.idBySeq) expect(idBySeq.get(seq), `seq ${seq}`).toBe(id);
    // ~1 s per crash on a quiet machine, mostly process start; room for a loaded CI box
  }, 120_000);
});
