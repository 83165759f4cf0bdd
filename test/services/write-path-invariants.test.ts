/**
 * The write path's promises under load, on a real SQLite file with the parsed-session cache: several
 * writers race compare-and-set on one session's two fields (patches, whole documents, duplicated
 * requestIds sent into the same batch), while units of work that write and then throw share their
 * batches and heartbeats change the same row. Every acknowledged write is stored exactly once, each
 * accepted version is the previous + 1, a requestId sent twice answers the same, the history and
 * the events hold one entry per version, and what the acks say is what the database holds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../shared/protocol/json.js';
import { heartbeat } from '../../hub/lifecycle/session-events.js';
import { startSession } from '../../hub/lifecycle/session-start.js';
import { runWrite } from '../../hub/services/changes.js';
import { updateMetadata, updateState } from '../../hub/lifecycle/versioned-writes.js';
import { listHistory } from '../../hub/store/history.js';
import { getSession, touchActivity, updateMetadata as storeMetadata } from '../../hub/store/sessions.js';
import { openServices, runnerActor, type ServiceHarness } from '../helpers/services.js';

let harness: ServiceHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A deterministic pseudo-random sequence, so a failure replays the same way. */
function random(seed: number): () => number {
  let state = seed;
  return () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

describe('the write path under racing writers', () => {
  it('stores every acknowledged write exactly once, versions +1, requestId replays answering the same', async () => {
    const h = (harness = openServices());
    const owner = runnerActor('default', 'owner');
    const { session } = await startSession(h.deps, owner, { tag: 'hot', flavor: 'claude', source: 'startup', metadata: { path: '/p', claudeSessionId: 'c1' } });
    const sid = session.sid;
    const next = random(7);
    const writers = ['w1', 'w2', 'w3', 'w4'];
    const acked = { metadata: new Map<number, JsonObject>(), agentState: new Map<number, JsonObject | null>() };
    const firstAnswers = new Map<string, unknown>();
    let rolledBack = 0;

    const writer = async (socketId: string) => {
      const actor = runnerActor('default', socketId);
      const held = { metadata: { version: 1, value: {} as JsonObject }, agentState: { version: 1, value: null as JsonObject | null } };
      for (let i = 0; i < 25; i++) {
        const requestId = `${socketId}-${i}`;
        const field = next() < 0.7 ? 'metadata' : 'agentState';
        for (;;) {
          const send = () =>
            field === 'metadata'
              ? updateMetadata(h.deps, actor, next() < 0.5
                ? { sid, expectedVersion: held.metadata.version, patch: { [socketId]: i }, requestId }
                : { sid, expectedVersion: held.metadata.version, metadata: { ...held.metadata.value, [socketId]: i, title: requestId }, requestId })
              : updateState(h.deps, actor, { sid, expectedVersion: held.agentState.version, agentState: { by: socketId, i }, requestId });
          // the same request twice into one batch, as a runner's retry after a lost ack would
          const duplicated = next() < 0.3;
          const [ack, again] = await Promise.all([send(), duplicated ? send() : undefined]);
          // a sibling in the batches that writes the same row and then fails
          if (next() < 0.2) {
            await runWrite(h.deps, async (tx) => {
              const row = (await getSession(tx, { namespace: 'default', sid }))!;
              await storeMetadata(tx, { sid, metadata: { rolledBack: true }, version: row.metadataVersion + 1, now: 1, countsAsActivity: true, previousActivityAt: 0 });
              await touchActivity(tx, { sid, now: 2 });
              throw new Error('rolled back');
            }).catch(() => (rolledBack += 1));
          }
          if (next() < 0.2) await heartbeat(h.deps, actor, { sid, time: h.clock.now(), thinking: next() < 0.5 });
          if (ack.result === 'error') throw new Error(`${requestId}: ${ack.code} ${ack.message}`);
          const value = field === 'metadata' ? (ack as { metadata: JsonObject }).metadata : (ack as { agentState: JsonObject | null }).agentState;
          if (again) expect(again).toEqual(ack);
          if (ack.result === 'version-mismatch') {
            held[field] = { version: ack.version, value: value as JsonObject };
            continue;
          }
          expect(ack.result).toBe('success');
          const previous = firstAnswers.get(`${field}:${requestId}`);
          if (previous) expect(ack).toEqual(previous);
          firstAnswers.set(`${field}:${requestId}`, ack);
          const versions = acked[field] as Map<number, unknown>;
          if (!versions.has(ack.version)) versions.set(ack.version, value);
          else expect(value).toEqual(versions.get(ack.version));
          held[field] = { version: ack.version, value: value as JsonObject };
          // the same requestId again, later and alone: the same answer, nothing written
          if (next() < 0.2) expect(await send()).toEqual(ack);
          break;
        }
      }
    };
    await Promise.all(writers.map(writer));
    expect(rolledBack).toBeGreaterThan(0);

    const stored = await h.deps.store.transaction((tx) => getSession(tx, { namespace: 'default', sid }));
    const raw = h.store.db.prepare(`SELECT metadata, metadata_version, agent_state, agent_state_version FROM sessions WHERE sid = ?`).get(sid) as {
      metadata: string; metadata_version: number; agent_state: string | null; agent_state_version: number;
    };
    // the cache and the row agree
    expect({ metadata: stored!.metadata, version: stored!.metadataVersion, state: stored!.agentState, stateVersion: stored!.agentStateVersion }).toEqual({
      metadata: JSON.parse(raw.metadata), version: raw.metadata_version, state: raw.agent_state === null ? null : JSON.parse(raw.agent_state), stateVersion: raw.agent_state_version,
    });
    // versions 2..n each acknowledged once (no gap, none twice), and the last acked is what is stored
    const metadataVersions = [...acked.metadata.keys()].sort((a, b) => a - b);
    expect(metadataVersions).toEqual(Array.from({ length: raw.metadata_version - 1 }, (_, i) => i + 2));
    expect(acked.metadata.get(raw.metadata_version)).toEqual(JSON.parse(raw.metadata));
    const stateVersions = [...acked.agentState.keys()].sort((a, b) => a - b);
    expect(stateVersions).toEqual(Array.from({ length: raw.agent_state_version - 1 }, (_, i) => i + 2));
    expect(acked.agentState.get(raw.agent_state_version)).toEqual(JSON.parse(raw.agent_state!));
    // the history holds each acknowledged document under its version, and nothing rolled back
    const history = await listHistory(h.deps.store, sid);
    expect(history.map((entry) => entry.version)).toEqual(Array.from({ length: raw.metadata_version }, (_, i) => i + 1));
    for (const entry of history.slice(1)) expect(entry.metadata).toEqual(acked.metadata.get(entry.version));
    // one update-session event per accepted version of each field, with the acknowledged value
    const published = h.published.map((event) => event.event.body).filter((body) => body.t === 'update-session');
    const metadataEvents = published.flatMap((body) => (body.t === 'update-session' && body.metadata ? [body.metadata] : []));
    expect(metadataEvents.map((m) => m.version)).toEqual(metadataVersions);
    for (const m of metadataEvents) expect(m.value).toEqual(acked.metadata.get(m.version));
    const stateEvents = published.flatMap((body) => (body.t === 'update-session' && body.agentState ? [body.agentState] : []));
    expect(stateEvents.map((s) => s.version)).toEqual(stateVersions);
    const logged = h.store.db.prepare(`SELECT COUNT(*) AS n FROM events`).get() as { n: number };
    expect(logged.n).toBe(h.published.length);
  });
});
