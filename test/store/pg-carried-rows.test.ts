/**
 * Issue 31: carried rows. A namespace's next transaction starts from the rows its last one left
 * (hub/store/postgres/pg-store.ts), so a fleet's steady traffic costs one round trip a batch; the
 * writer chain (postgres/migrations/024) catches every other writer, and a row taken as new that
 * exists after all, and the batch then runs again on rows read afresh and answers as it would have.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyHookEvents } from '../../hub/lifecycle/hook-events.js';
import { startSession } from '../../hub/lifecycle/session-start.js';
import { recordToolUse, submitPrompt } from '../../hub/lifecycle/turn-events.js';
import { updateMetadata } from '../../hub/lifecycle/versioned-writes.js';
import { openApproval } from '../../hub/people/approvals.js';
import { queueMessage } from '../../hub/people/messages.js';
import type { OutgoingEvent } from '../../hub/services/deps.js';
import { mintToken } from '../../hub/services/tokens.js';
import { createWebhook } from '../../hub/services/webhooks.js';
import { listPendingApprovals } from '../../hub/store/approvals.js';
import { listHistory } from '../../hub/store/history.js';
import { listQueuedMessages } from '../../hub/store/messages.js';
import { PgStore } from '../../hub/store/postgres/pg-store.js';
import { getSession, getSessionByTag } from '../../hub/store/sessions.js';
import { findActivityByToolUseId, listTurns } from '../../hub/store/turns.js';
import { startPgRelay } from '../helpers/pg-relay.js';
import { startRoundTripCounter } from '../helpers/pg-round-trips.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { depsOnStore as depsOf, runnerActor } from '../helpers/services.js';

let database: TestDatabase | undefined;
const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of closing.splice(0).reverse()) await item.close();
  await database?.drop();
  database = undefined;
});

/** A hub's store behind a round-trip counter, and (`other`) a second process's on the same database. */
async function stores() {
  database = await createTestDatabase();
  const counter = await startRoundTripCounter(database.url);
  closing.push(counter);
  const store = await PgStore.open(counter.url, { carryRows: true });
  closing.push(store);
  const other = await PgStore.open(database.url, { carryRows: true });
  closing.push(other);
  return { counter, store, other };
}

const actor = runnerActor();
const agent = { ...actor, socketId: undefined };
const person = { namespace: actor.namespace, role: 'operator' as const, by: 'user' as const, socketId: 'person' };

describe('carried rows (PostgreSQL)', () => {
  it('a fleet\'s steady traffic (hook events, tool calls, title-less patches, approvals, messages) costs one round trip a batch at 1, 10 and 100 events, and stores what it says', async () => {
    const { counter, store } = await stores();
    const published: OutgoingEvent[] = [];
    const deps = depsOf(store, published);
    let hookSeq = 0;
    const hook = (tag: string, payload: object) =>
      applyHookEvents(deps, agent, [{ id: `h${hookSeq}`, flavor: 'claude', firedAt: 1_700_000_000_000, seq: hookSeq++, payload: { session_id: tag, cwd: '/p', ...payload } }]);
    // 111 agents and 111 runner sessions, each in an open turn
    const tags = Array.from({ length: 111 }, (_, i) => `agent-${i}`);
    await Promise.all(tags.map((tag) => hook(tag, { hook_event_name: 'UserPromptSubmit', prompt: 'p' })));
    const sids = await Promise.all(Array.from({ length: 111 }, async (_, i) => {
      const { session } = await startSession(deps, actor, { tag: `runner-${i}`, flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
      await submitPrompt(deps, actor, { sid: session.sid, prompt: `fix   bug ${i}` });
      return session.sid;
    }));
    const versions = new Map(sids.map((sid) => [sid, 1]));
    const KINDS = 6;
    const event = async (i: number, round: number): Promise<void> => {
      const sid = sids[i]!;
      switch (i % KINDS) {
        case 0: return void (await hook(tags[i]!, { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { i }, tool_use_id: `tu-${round}-${i}` }));
        case 1: return void (await hook(tags[i]!, { hook_event_name: 'UserPromptSubmit', prompt: `step ${round}` }));
        case 2: return void (await recordToolUse(deps, actor, { sid, tool: 'Bash', input: { i }, output: 'ok', toolUseId: `rt-${round}-${i}` }));
        case 3: {
          const ack = await updateMetadata(deps, actor, { sid, expectedVersion: versions.get(sid)!, patch: { round } });
          expect(ack.result).toBe('success');
          versions.set(sid, (ack as { version: number }).version);
          return;
        }
        case 4: return void (await openApproval(deps, actor, { sid, tool: 'Bash', input: { command: `rm ${round}` } }));
        default: return void (await queueMessage(deps, person, { sid, text: `note ${round}`, by: { tokenId: 'token', label: null } }));
      }
    };
    const costs = async (round: number) => {
      const out: number[] = [];
      let from = 0;
      for (const size of [1, 10, 100]) {
        const indexes = Array.from({ length: size }, (_, k) => from + k);
        from += size;
        const before = counter.roundTrips();
        await Promise.all(indexes.map((i) => event(i, round)));
        out.push(counter.roundTrips() - before);
      }
      return out;
    };
    // the first time a session's lists (running tools, messages…) are asked for, they are read
    await costs(0);
    published.length = 0;
    // then everything each batch reads is held: BEGIN, the locks and the claim, the writes, COMMIT
    expect(await costs(1)).toEqual([1, 1, 1]);

    // and each did what it says
    const every = (kind: number) => Array.from({ length: 111 }, (_, i) => i).filter((i) => i % KINDS === kind);
    const sidOf = async (tag: string) => (await getSessionByTag(store, { namespace: actor.namespace, tag }))!.sid;
    for (const i of every(0)) expect((await findActivityByToolUseId(store, { sid: await sidOf(tags[i]!), toolUseId: `tu-1-${i}` }))?.status).toBe('running');
    for (const i of every(1)) expect((await listTurns(store, await sidOf(tags[i]!))).map((turn) => turn.prompt)).toEqual(['p', 'step 0', 'step 1']);
    for (const i of every(2)) expect((await findActivityByToolUseId(store, { sid: sids[i]!, toolUseId: `rt-1-${i}` }))?.status).toBe('done');
    for (const i of every(3)) {
      const session = (await getSession(store, { namespace: actor.namespace, sid: sids[i]! }))!;
      expect([session.metadataVersion, session.metadata.round]).toEqual([3, 1]);
    }
    for (const i of every(4)) expect(await listPendingApprovals(store, sids[i]!)).toHaveLength(2);
    for (const i of every(5)) expect((await listQueuedMessages(store, sids[i]!)).map((message) => message.text).sort()).toEqual(['note 0', 'note 1']);
    // a title-less patch's event carries the first prompt as the title, from the carried row
    const patched = published.filter(({ sid }) => every(3).some((i) => sids[i] === sid) && (published.find((e) => e.sid === sid) !== undefined));
    expect(patched.length).toBeGreaterThan(0);
    for (const { sid, event } of patched) {
      if (event.body.t === 'update-session' && event.body.metadata) expect((event.body as { title?: string }).title).toBe(`fix bug ${sids.indexOf(sid)}`);
    }
    // the namespace's seq has no gap
    const seqs = published.map(({ event }) => event.seq).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, k) => seqs[0]! + k));
  }, 120_000);

  it('another process\'s write to the namespace: the next batch finds the claim moved, runs again on rows read afresh, and answers from what that process stored', async () => {
    const { counter, store, other } = await stores();
    const deps = depsOf(store);
    const { session } = await startSession(deps, actor, { tag: 'shared', flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
    expect((await updateMetadata(deps, actor, { sid: session.sid, expectedVersion: 1, patch: { by: 'this' } })).result).toBe('success');
    // held here: one round trip
    let before = counter.roundTrips();
    expect((await updateMetadata(deps, actor, { sid: session.sid, expectedVersion: 2, patch: { again: 'this' } })).result).toBe('success');
    expect(counter.roundTrips() - before).toBe(1);

    // the other process writes version 4 of the same session
    expect((await updateMetadata(depsOf(other), actor, { sid: session.sid, expectedVersion: 3, patch: { by: 'other' } })).result).toBe('success');

    // rows held here say version 3; the claim check fails the first attempt, the second reads version 4
    before = counter.roundTrips();
    const ack = await updateMetadata(deps, actor, { sid: session.sid, expectedVersion: 4, patch: { after: 'other' } });
    expect(ack).toMatchObject({ result: 'success', version: 5 });
    // the attempt (BEGIN … COMMIT, which the failed claim makes a ROLLBACK), then the batch reading its rows afresh
    expect(counter.roundTrips() - before).toBe(3);
    const stored = (await getSession(store, { namespace: actor.namespace, sid: session.sid }))!;
    expect(stored.metadata).toEqual({ path: '/p', by: 'other', again: 'this', after: 'other' });
    expect((await listHistory(store, session.sid)).map((entry) => entry.version)).toEqual([1, 2, 3, 4, 5]);

    // a stale version is still refused with the stored one, whoever wrote last
    expect(await updateMetadata(deps, actor, { sid: session.sid, expectedVersion: 4, patch: { late: true } })).toMatchObject({ result: 'version-mismatch', version: 5 });
  }, 60_000);

  it('a batch whose reads go out in several round trips issued together, on rows another process has changed: the claim\'s refusal, not the reads aborted after it, decides (it runs again and succeeds)', async () => {
    const { store, other } = await stores();
    const deps = depsOf(store);
    const { session: mine } = await startSession(deps, actor, { tag: 'mine', flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
    expect((await updateMetadata(deps, actor, { sid: mine.sid, expectedVersion: 1, patch: { step: 1 } })).result).toBe('success');
    // a session the other process started: this one holds nothing of it, so its prompt reads the
    // session, its current turn and its approvals, each statement sent as it is issued
    const { session: theirs } = await startSession(depsOf(other), actor, { tag: 'theirs', flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
    expect((await submitPrompt(deps, actor, { sid: theirs.sid, prompt: 'from here' })).turnId).toEqual(expect.any(String));
    expect((await listTurns(store, theirs.sid)).map((t) => t.prompt)).toEqual(['from here']);
  }, 60_000);

  it('a transaction outside group commit (a webhook added) on rows another process has changed since: run again on rows read afresh, not failed', async () => {
    const { store, other } = await stores();
    const deps = depsOf(store);
    const { session } = await startSession(deps, actor, { tag: 'hooked', flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
    expect((await updateMetadata(depsOf(other), actor, { sid: session.sid, expectedVersion: 1, patch: { by: 'other' } })).result).toBe('success');
    const { webhook } = await createWebhook(store, { url: 'http://127.0.0.1:9/hook', events: ['all'], format: 'json', namespace: actor.namespace, now: 1_700_000_000_000 });
    // its cursor starts at the namespace's last seq, the other process's event included
    expect(webhook.cursorSeq).toBe(2);
  }, 60_000);

  it('a request id and a hook event id taken as new that were applied before: the batch runs again, and the retry answers what the first produced', async () => {
    const { store } = await stores();
    const deps = depsOf(store);
    const { session } = await startSession(deps, actor, { tag: 'retry', flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
    const first = await updateMetadata(deps, actor, { sid: session.sid, expectedVersion: 1, patch: { step: 1 }, requestId: 'req-1' });
    expect(first).toMatchObject({ result: 'success', version: 2 });
    const hookEvent = { id: 'hook-event-1', flavor: 'claude', firedAt: 1_700_000_000_000, seq: 0, payload: { session_id: 'agent', cwd: '/p', hook_event_name: 'UserPromptSubmit', prompt: 'p' } };
    expect((await applyHookEvents(deps, agent, [hookEvent]))[0]!.outcome).toBe('applied');

    // a write of no one namespace (a token made, as the CLI does) makes the next transaction read
    // afresh: the rows it then holds (another session's) know nothing of req-1 or hook-event-1
    await store.transaction((tx) => mintToken(tx, { role: 'dashboard', namespace: actor.namespace, source: 'cli', now: 1_700_000_000_000 }));
    const { session: elsewhere } = await startSession(deps, actor, { tag: 'elsewhere', flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
    expect((await updateMetadata(deps, actor, { sid: elsewhere.sid, expectedVersion: 1, patch: { step: 1 } })).result).toBe('success');

    // the retries: taken as new on the carried rows, found applied by the check, answered as the first time
    const retried = await updateMetadata(deps, actor, { sid: session.sid, expectedVersion: 1, patch: { step: 1 }, requestId: 'req-1' });
    expect(retried).toEqual(first);
    expect((await listHistory(store, session.sid)).map((entry) => entry.version)).toEqual([1, 2]);
    expect((await applyHookEvents(deps, agent, [hookEvent]))[0]!.outcome).toBe('duplicate');
    const agentSession = (await getSessionByTag(store, { namespace: actor.namespace, tag: 'agent' }))!;
    expect(await listTurns(store, agentSession.sid)).toHaveLength(1);
  }, 60_000);

  // Carried rows put a namespace's transactions on one connection, where the server keeps their
  // order; without them each has a connection of its own, and this guard keeps it.
  it('on connections of their own (rows not carried), a transaction that reads before its COMMIT, after one that sent its locks only with its COMMIT, waits until that one holds them (else it takes the lock first and waits for it: a deadlock)', async () => {
    database = await createTestDatabase();
    // holds the next transaction's round trip 300 ms on its way to the server
    let holding = false;
    const relay = await startPgRelay(database.url, (client, upstream) => {
      client.on('data', (chunk: Buffer) => {
        if (holding && chunk.includes('hub_begin')) {
          holding = false;
          setTimeout(() => upstream.write(chunk), 300);
          return;
        }
        upstream.write(chunk);
      });
      client.on('close', () => upstream.end());
    });
    closing.push(relay);
    const store = await PgStore.open(relay.url, { carryRows: false, idleInTransactionTimeoutMs: 15_000 });
    closing.push(store);
    const touch = "UPDATE write_claims SET writer = writer WHERE scope = 'nothing'";

    const started = Date.now();
    holding = true;
    let second: Promise<void> | undefined;
    // reading nothing: BEGIN, the locks, the write and COMMIT in one round trip, held;
    // the next starts once it is sent, as group commit's overlapping batches do, and waits for it
    // before its own COMMIT (here with real savepoints: it carries nothing and sends its locks at once)
    const first: Promise<void> = store.transaction(async (tx) => tx.write(touch), {
      namespace: 'default',
      onCommitSent: () => {
        second = store.transaction(async (tx) => {
          await tx.get('SELECT 1 AS one');
          await first;
        }, { namespace: 'default', savepoints: 'always' });
      },
    });
    await first;
    await second;
    // within a second, not when PostgreSQL's idle-in-transaction timeout broke the wait
    expect(Date.now() - started).toBeLessThan(3000);
  }, 60_000);
});
