import { describe, expect, it } from 'vitest';
import { HubRequestError } from '../../shared/client/errors.js';
import type { HistoryResponse } from '../../shared/protocol/http.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { waitFor } from '../helpers/clients.js';
import type { TestHub } from '../helpers/hub.js';
import { getJson, runnerClient, useSdkTestHub } from './sdk-helpers.js';

let hub: TestHub;
useSdkTestHub((started) => (hub = started));

const start = (tag: string) => ({ tag, flavor: 'claude', source: 'startup' as const, metadata: { path: '/p', claudeSessionId: 'c-1', ids: [] } });

describe('RunnerClient.updateMetadata', () => {
  it('converges with no lost update when several clients append concurrently through updaters', async () => {
    const owner = await runnerClient(hub.url, hub.tokens.runner);
    const { session } = await owner.startSession(start('concurrent'));
    const writers = await Promise.all([1, 2, 3, 4].map(() => runnerClient(hub.url, hub.tokens.runner)));
    await Promise.all(writers.map((w) => w.joinSession(session.sid)));

    await Promise.all(
      writers.flatMap((writer, w) =>
        Array.from({ length: 20 }, (_, i) =>
          writer.updateMetadata(session.sid, (m) => ({ ...m, ids: [...((m.ids as string[]) ?? []), `w${w}-${i}`] })),
        ),
      ),
    );

    const stored = await getJson<SessionSnapshot>(`${hub.url}/api/sessions/${session.sid}`, hub.tokens.runner);
    const ids = stored.metadata.value.ids as string[];
    expect(ids).toHaveLength(80);
    expect(new Set(ids).size).toBe(80);
    // each writer's own appends stay in call order (one lock per session and field)
    for (let w = 0; w < 4; w++) expect(ids.filter((id) => id.startsWith(`w${w}-`))).toEqual(Array.from({ length: 20 }, (_, i) => `w${w}-${i}`));
    expect(stored.metadata.value.claudeSessionId).toBe('c-1');
    expect(stored.metadata.version).toBe(81);
  });

  it('applies no write twice when the socket drops in the middle of a burst', async () => {
    const owner = await runnerClient(hub.url, hub.tokens.runner);
    const { session } = await owner.startSession(start('reconnect'));
    const writer = await runnerClient(hub.url, hub.tokens.runner, { requestTimeoutMs: 500 });
    await writer.joinSession(session.sid);
    let reconnects = 0;
    writer.on('reconnect', () => reconnects++);

    const burst = Array.from({ length: 30 }, (_, i) => writer.updateMetadata(session.sid, (m) => ({ ...m, ids: [...((m.ids as number[]) ?? []), i] })));
    // cut the transport under the writes (socket.io-client reconnects by itself)
    setTimeout(() => writer.socket.io.engine.close(), 5);
    await Promise.all(burst);
    await writer.flush();

    const stored = await getJson<SessionSnapshot>(`${hub.url}/api/sessions/${session.sid}`, hub.tokens.runner);
    expect(stored.metadata.value.ids).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(stored.metadata.version).toBe(31);
    const { history } = await getJson<HistoryResponse>(`${hub.url}/api/sessions/${session.sid}/history`, hub.tokens.runner);
    expect(history).toHaveLength(31);
    await waitFor(() => reconnects >= 1, 5000, 'reconnect');
    expect(writer.session(session.sid)!.metadata.version).toBe(31);
  });

  it('supports merge patches and keeps protected keys (a stale cache never writes a sparse blob)', async () => {
    const runner = await runnerClient(hub.url, hub.tokens.runner);
    const { session } = await runner.startSession(start('patch'));
    const other = await runnerClient(hub.url, hub.tokens.runner);
    await other.joinSession(session.sid);
    await other.updateMetadata(session.sid, { patch: { title: 'from other' } });
    // runner's cache is one version behind only if it missed the broadcast; either way the updater sees the stored doc
    const result = await runner.updateMetadata(session.sid, (m) => ({ ...m, archived: true }));
    expect(result.metadata).toMatchObject({ path: '/p', claudeSessionId: 'c-1', title: 'from other', archived: true });
  });

  it('rejects with a final HubRequestError for an unknown session and a document over the limit', async () => {
    const runner = await runnerClient(hub.url, hub.tokens.runner);
    const unknown = await runner.updateMetadata('no-such-session', { patch: { a: 1 } }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(HubRequestError);
    expect((unknown as HubRequestError).code).toBe('not_found');

    const { session } = await runner.startSession(start('too-large'));
    let calls = 0;
    const tooLarge = await runner.updateMetadata(session.sid, (m) => (calls++, { ...m, blob: 'x'.repeat(70 * 1024) })).catch((e: unknown) => e);
    expect(tooLarge).toBeInstanceOf(HubRequestError);
    expect((tooLarge as HubRequestError).code).toBe('payload_too_large');
    expect(calls).toBe(1); // final: not retried

    const invalid = await runner.submitPrompt({ sid: session.sid, prompt: 42 as never }).catch((e: unknown) => e);
    expect((invalid as HubRequestError).code).toBe('invalid_payload');
  });

  it('applies an incoming update-session only when its version is newer', async () => {
    const a = await runnerClient(hub.url, hub.tokens.runner);
    const b = await runnerClient(hub.url, hub.tokens.runner);
    const { session } = await a.startSession(start('incoming'));
    await b.joinSession(session.sid);
    await b.updateMetadata(session.sid, { patch: { n: 1 } });
    await waitFor(() => a.session(session.sid)?.metadata.version === 2, 3000, 'broadcast to a');
    // a replayed (older) event must not roll the cache back
    a.socket.listeners('update').forEach((listener) =>
      listener({ id: 'x', seq: 1, createdAt: 0, body: { t: 'update-session', sid: session.sid, metadata: { version: 1, value: {} }, agentState: null, lifecycle: null, presence: null, attention: null, title: 'incoming', activity: 'idle', lastPrompt: null } }),
    );
    expect(a.session(session.sid)!.metadata).toEqual({ version: 2, value: expect.objectContaining({ n: 1, path: '/p' }) });
  });
});

describe('RunnerClient replay', () => {
  it('refetches (re-joins) its sessions after a resync', async () => {
    const runner = await runnerClient(hub.url, hub.tokens.runner);
    const { session } = await runner.startSession(start('resync'));
    await runner.updateMetadata(session.sid, { patch: { x: 1 } });
    // a client that believes it saw seq 10^9 asks for a replay the hub cannot give
    const late = await runnerClient(hub.url, hub.tokens.runner, { lastSeq: 1_000_000_000 });
    const resyncs: string[][] = [];
    late.on('resync', (sids) => resyncs.push(sids));
    await late.joinSession(session.sid);
    await waitFor(() => resyncs.length === 1, 3000, 'resync refetch');
    expect(resyncs[0]).toEqual([session.sid]);
    expect(late.lastSeq).toBeUndefined();
    expect(late.session(session.sid)!.metadata.value.x).toBe(1);

    // after the refetch it follows live broadcasts again
    await runner.updateMetadata(session.sid, { patch: { x: 2 } });
    await waitFor(() => late.session(session.sid)?.metadata.value.x === 2, 3000, 'live update after resync');
    expect(late.lastSeq).toBeGreaterThan(0);
  });

  it('replays what it missed while disconnected, from lastSeq', async () => {
    const runner = await runnerClient(hub.url, hub.tokens.runner);
    const watcher = await runnerClient(hub.url, hub.tokens.runner);
    const { session } = await runner.startSession(start('replay'));
    await watcher.joinSession(session.sid);
    await runner.updateMetadata(session.sid, { patch: { step: 1 } });
    await waitFor(() => watcher.session(session.sid)?.metadata.value.step === 1, 3000, 'first update');
    const seen: number[] = [];
    watcher.on('update', (event) => seen.push(event.seq));

    watcher.socket.io.engine.close();
    await runner.updateMetadata(session.sid, { patch: { step: 2 } });
    await waitFor(() => watcher.session(session.sid)?.metadata.value.step === 2, 5000, 'replayed update');
    expect(seen.length).toBeGreaterThan(0);
  });
});

describe('RunnerClient lifecycle', () => {
  it('drives a session through a turn and finalize, and flush waits for in-flight writes', async () => {
    const runner = await runnerClient(hub.url, hub.tokens.runner);
    const { session, created } = await runner.startSession(start('lifecycle'));
    expect(created).toBe(true);
    const { turnId } = await runner.submitPrompt({ sid: session.sid, prompt: 'hi', promptId: 'p1' });
    expect((await runner.submitPrompt({ sid: session.sid, prompt: 'hi', promptId: 'p1' })).turnId).toBe(turnId);
    await runner.toolUse({ sid: session.sid, tool: 'Bash', toolUseId: 't1', input: { command: 'ls' } });
    const closed = await runner.stopTurn({ sid: session.sid, response: 'done' });
    expect(closed).toMatchObject({ turnId, status: 'completed', activityCount: 1 });
    const pending = runner.updateMetadata(session.sid, { patch: { last: true } });
    await runner.flush();
    await expect(pending).resolves.toMatchObject({ version: 2 });
    const ended = await runner.finalizeSession({ sid: session.sid, reason: 'completed' });
    expect(ended.lifecycle).toMatchObject({ state: 'ended', lastRun: { status: 'success' } });
    const error = await runner.submitPrompt({ sid: 'nope', prompt: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HubRequestError);
    expect((error as HubRequestError).code).toBe('not_found');
  });

  it('refuses a dashboard token with forbidden', async () => {
    const error = await runnerClient(hub.url, hub.tokens.dashboard).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HubRequestError);
    expect((error as HubRequestError).code).toBe('forbidden');
  });
});
