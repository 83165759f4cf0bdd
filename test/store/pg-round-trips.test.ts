/**
 * Issue 31: what a group-committed batch costs in round trips to PostgreSQL, counted on the wire,
 * must not grow with the batch's size. Here every batch reads its rows afresh (`carryRows: false`:
 * two round trips); test/store/pg-carried-rows.test.ts counts batches on rows carried from the one
 * before (one).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { startSession } from '../../hub/lifecycle/session-start.js';
import { archive, endSession, runnerSocketsLost } from '../../hub/lifecycle/session-events.js';
import { sweep } from '../../hub/lifecycle/sweeps.js';
import { applyHookEvents } from '../../hub/lifecycle/hook-events.js';
import { listTurnTexts } from '../../hub/store/turn-texts.js';
import { recordToolUse, stopTurn, submitPrompt } from '../../hub/lifecycle/turn-events.js';
import { reportUsage } from '../../hub/lifecycle/usage-events.js';
import { setAttention } from '../../hub/people/attention.js';
import { getSessionUsage } from '../../hub/store/usage.js';
import type { UsageReport } from '../../shared/protocol/usage.js';
import type { HubDeps, OutgoingEvent } from '../../hub/services/deps.js';
import { updateMetadata } from '../../hub/lifecycle/versioned-writes.js';
import { decideApproval, openApproval } from '../../hub/people/approvals.js';
import { cancelMessage, queueMessage } from '../../hub/people/messages.js';
import { listApprovals, listPendingApprovals } from '../../hub/store/approvals.js';
import { listQueuedMessages } from '../../hub/store/messages.js';
import { PgStore } from '../../hub/store/postgres/pg-store.js';
import { getSession, getSessionByTag } from '../../hub/store/sessions.js';
import { findActivityByToolUseId, listTurns } from '../../hub/store/turns.js';
import { startRoundTripCounter } from '../helpers/pg-round-trips.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { depsOnStore, runnerActor } from '../helpers/services.js';

let database: TestDatabase | undefined;
let store: PgStore | undefined;
let counter: Awaited<ReturnType<typeof startRoundTripCounter>> | undefined;
afterEach(async () => {
  await store?.close();
  await counter?.close();
  await database?.drop();
  store = database = counter = undefined;
});

async function counted(): Promise<{ deps: HubDeps; published: OutgoingEvent[] }> {
  database = await createTestDatabase();
  counter = await startRoundTripCounter(database.url);
  store = await PgStore.open(counter.url, { carryRows: false });
  const published: OutgoingEvent[] = [];
  return { deps: depsOnStore(store, published), published };
}

describe('round trips of a batch (PostgreSQL)', () => {
  it('a batch of metadata patches setting no title costs 2 round trips at 1, 10 and 100 writes, and each event carries the first prompt as title', async () => {
    const { deps, published } = await counted();
    const actor = runnerActor();
    // set up together (batched like any writes)
    const sids = await Promise.all(Array.from({ length: 111 }, async (_, i) => {
      const { session } = await startSession(deps, actor, { tag: `t${i}`, flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
      await submitPrompt(deps, actor, { sid: session.sid, prompt: `fix   bug ${i}` });
      return session.sid;
    }));
    const costs: number[] = [];
    let from = 0;
    for (const size of [1, 10, 100]) {
      const batch = sids.slice(from, (from += size));
      published.length = 0;
      const before = counter!.roundTrips();
      const acks = await Promise.all(batch.map((sid, i) => updateMetadata(deps, actor, { sid, expectedVersion: 1, patch: { step: i } })));
      costs.push(counter!.roundTrips() - before);
      expect(acks.every((ack) => ack.result === 'success')).toBe(true);
      const titles = published.map(({ event }) => (event.body as { title?: string }).title);
      expect(titles).toEqual(batch.map((_, i) => `fix bug ${from - size + i}`));
    }
    // BEGIN with the locks and the batch's reads; the writes with COMMIT
    expect(costs).toEqual([2, 2, 2]);
  }, 60_000);

  it('a batch mixing every kind of event (hook prompts, tool starts and ends, stops, session starts and ends; runner sessions started, ended and archived, prompts and tool calls; title-less patches, approvals, messages) costs 2 round trips at 1, 10 and 100 events', async () => {
    const { deps } = await counted();
    const actor = runnerActor();
    const agent = { ...actor, socketId: undefined };
    const person = { namespace: actor.namespace, role: 'dashboard' as const, by: 'user' as const, socketId: 'person' };
    let hookSeq = 0;
    const hook = (tag: string, payload: object) =>
      applyHookEvents(deps, agent, [{ id: `h${hookSeq}`, flavor: 'claude', firedAt: 1_700_000_000_000, seq: hookSeq++, payload: { session_id: tag, cwd: '/p', ...payload } }]);
    // 111 agent sessions (hooks), each in an open turn with a tool running, and 111 runner sessions in an open turn
    const tags = Array.from({ length: 111 }, (_, i) => `agent-${i}`);
    await Promise.all(tags.map(async (tag, i) => {
      await hook(tag, { hook_event_name: 'UserPromptSubmit', prompt: 'p' });
      await hook(tag, { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { i }, tool_use_id: `running-${i}` });
    }));
    const sids = await Promise.all(Array.from({ length: 111 }, async (_, i) => {
      const { session } = await startSession(deps, actor, { tag: `runner-${i}`, flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
      await submitPrompt(deps, actor, { sid: session.sid, prompt: 'p' });
      return session.sid;
    }));
    /** The i-th event of a batch: one of fourteen kinds, each to a session of its own. */
    const KINDS = 14;
    const event = (i: number): Promise<unknown> => {
      const tag = tags[i]!;
      const sid = sids[i]!;
      switch (i % KINDS) {
        case 0: return hook(tag, { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { i }, tool_use_id: `tu${i}` });
        case 1: return hook(tag, { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { i }, tool_response: 'ok', tool_use_id: `running-${i}` });
        case 2: return hook(tag, { hook_event_name: 'Stop' });
        case 3: return hook(tag, { hook_event_name: 'UserPromptSubmit', prompt: `next step ${i}` });
        case 4: return hook(`new-agent-${i}`, { hook_event_name: 'SessionStart', source: 'startup' });
        case 5: return hook(tag, { hook_event_name: 'SessionEnd', reason: 'exit' });
        case 6: return recordToolUse(deps, actor, { sid, tool: 'Bash', input: { i }, output: 'ok', toolUseId: `rt${i}` });
        case 7: return submitPrompt(deps, actor, { sid, prompt: `again ${i}` });
        case 8: return updateMetadata(deps, actor, { sid, expectedVersion: 1, patch: { step: i } });
        case 9: return openApproval(deps, actor, { sid, tool: 'Bash', input: { command: `rm ${i}` } });
        case 10: return queueMessage(deps, person, { sid, text: `please also ${i}`, by: { tokenId: 'token', label: null } });
        case 11: return startSession(deps, actor, { tag: `new-runner-${i}`, flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
        case 12: return endSession(deps, actor, { sid, reason: 'exit' });
        default: return archive(deps, actor, { sid, reason: 'user' });
      }
    };
    const costs: number[] = [];
    let from = 0;
    for (const size of [1, 10, 100]) {
      const indexes = Array.from({ length: size }, (_, k) => from + k);
      from += size;
      const before = counter!.roundTrips();
      const answers = await Promise.all(indexes.map(event));
      costs.push(counter!.roundTrips() - before);
      expect(answers).toHaveLength(size);
      for (const answer of answers) {
        if (Array.isArray(answer)) expect(answer.map((result: { outcome: string }) => result.outcome)).toEqual(['applied']);
      }
    }
    // BEGIN with the locks and every read of the batch; the writes with COMMIT
    expect(costs).toEqual([2, 2, 2]);
    // and each did what it says: the running tools ended, the prompts opened turns, the approvals and
    // messages wait, the new sessions run, the ended ones ended and the archived ones are archived
    const sidOf = async (tag: string) => (await getSessionByTag(store!, { namespace: actor.namespace, tag }))!.sid;
    const every = (kind: number) => Array.from({ length: 111 }, (_, i) => i).filter((i) => i % KINDS === kind);
    for (const i of every(1)) expect((await findActivityByToolUseId(store!, { sid: await sidOf(tags[i]!), toolUseId: `running-${i}` }))?.status).toBe('done');
    for (const i of every(3)) expect((await listTurns(store!, await sidOf(tags[i]!))).map((turn) => turn.prompt)).toEqual(['p', `next step ${i}`]);
    for (const i of every(4)) expect((await getSessionByTag(store!, { namespace: actor.namespace, tag: `new-agent-${i}` }))?.lifecycle.state).toBe('running');
    for (const i of every(5)) {
      const ended = (await getSessionByTag(store!, { namespace: actor.namespace, tag: tags[i]! }))!;
      expect([ended.lifecycle.state, ended.lastRun?.status]).toEqual(['ended', 'success']);
      // the tool it left running was abandoned with it
      expect((await findActivityByToolUseId(store!, { sid: ended.sid, toolUseId: `running-${i}` }))?.status).toBe('abandoned');
    }
    for (const i of every(9)) expect(await listPendingApprovals(store!, sids[i]!)).toHaveLength(1);
    for (const i of every(10)) expect((await listQueuedMessages(store!, sids[i]!)).map((message) => message.text)).toEqual([`please also ${i}`]);
    for (const i of every(11)) expect((await getSessionByTag(store!, { namespace: actor.namespace, tag: `new-runner-${i}` }))?.lastRun?.status).toBe('running');
    for (const i of every(12)) expect((await getSession(store!, { namespace: actor.namespace, sid: sids[i]! }))?.lifecycle.state).toBe('ended');
    for (const i of every(13)) expect((await getSession(store!, { namespace: actor.namespace, sid: sids[i]! }))?.lifecycle.state).toBe('archived');
  }, 120_000);

  it('hook events as the installed bridge sends them (each with its session\'s taker proof, the agent\'s words read from its transcript, the Stop taking what is queued) cost 2 round trips at 1, 10 and 100 events', async () => {
    const { deps } = await counted();
    const agent = { ...runnerActor(), socketId: undefined };
    let hookSeq = 0;
    const takerOf = (tag: string) => ({ key: `key-of-${tag}-0123456789abcdef`, process: `claude ${tag}` });
    // a tool hook or Stop carries what the agent wrote before it (hub/hook/agent-texts.ts)
    const said = (payload: object) => ('tool_name' in payload || 'last_assistant_message' in payload ? { texts: [{ text: `said ${hookSeq}`, at: 1_700_000_000_000 }, { text: 'and more' }] } : {});
    const hook = (tag: string, payload: object, take?: true) =>
      applyHookEvents(deps, agent, [{ id: `b${hookSeq}`, flavor: 'claude', firedAt: 1_700_000_000_000, ...said(payload), seq: hookSeq++, taker: takerOf(tag), ...(take ? { take } : {}), payload: { session_id: tag, cwd: '/p', ...payload } }]);
    // 111 agent sessions in an open turn, their takers registered by their first event
    const tags = Array.from({ length: 111 }, (_, i) => `bridge-${i}`);
    await Promise.all(tags.map((tag) => hook(tag, { hook_event_name: 'UserPromptSubmit', prompt: 'p' })));
    const event = (i: number) => {
      const tag = tags[i]!;
      switch (i % 3) {
        case 0: return hook(tag, { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { i }, tool_use_id: `bt${i}` });
        case 1: return hook(tag, { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { i }, tool_response: 'ok', tool_use_id: `bt${i}` });
        default: return hook(tag, { hook_event_name: 'Stop', last_assistant_message: 'done' }, true);
      }
    };
    const costs: number[] = [];
    let from = 0;
    for (const size of [1, 10, 100]) {
      const indexes = Array.from({ length: size }, (_, k) => from + k);
      from += size;
      const before = counter!.roundTrips();
      const answers = await Promise.all(indexes.map(event));
      costs.push(counter!.roundTrips() - before);
      for (const answer of answers) expect(answer.map((result: { outcome: string }) => result.outcome)).toEqual(['applied']);
    }
    expect(costs).toEqual([2, 2, 2]);
    // the words were written with the batch's commit: each event's, in its turn
    const sidOf = async (tag: string) => (await getSessionByTag(store!, { namespace: agent.namespace, tag }))!.sid;
    for (const i of [0, 1, 2, 110]) {
      const [turn] = await listTurns(store!, await sidOf(tags[i]!));
      expect((await listTurnTexts(store!, turn!.turnId)).map((t) => t.text), `event ${i}`).toEqual([`said ${111 + i}`, 'and more']);
    }
  }, 120_000);

  it('a person\'s decisions (allow, deny ending its tool) and cancels, attention and usage reports (mid-turn, with the stop, from a hook\'s Stop) cost 2 round trips at 1, 10 and 100 writes, and the totals they show are the stored ones', async () => {
    const { deps, published } = await counted();
    const actor = runnerActor();
    const agent = { ...actor, socketId: undefined };
    const person = { namespace: actor.namespace, role: 'operator' as const, by: 'user' as const, socketId: 'person' };
    let hookSeq = 0;
    const hook = (tag: string, payload: object, usage?: UsageReport[]) =>
      applyHookEvents(deps, agent, [{ id: `u${hookSeq}`, flavor: 'claude', firedAt: 1_700_000_000_000, seq: hookSeq++, payload: { session_id: tag, cwd: '/p', ...payload }, ...(usage ? { usage } : {}) }]);
    const priced = (n: number): UsageReport => ({ model: 'claude-sonnet-4-5', inputTokens: 1000 * n, outputTokens: 10 * n, cacheReadTokens: n });
    const unpriced = (n: number): UsageReport => ({ model: 'a-model-with-no-price', inputTokens: 7 * n, outputTokens: n });
    // 111 runner sessions in an open turn with usage so far, a pending approval and a queued message; 111 agents in an open turn
    const sessions = await Promise.all(Array.from({ length: 111 }, async (_, i) => {
      const { session } = await startSession(deps, actor, { tag: `person-${i}`, flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
      await submitPrompt(deps, actor, { sid: session.sid, prompt: 'p' });
      await reportUsage(deps, actor, { sid: session.sid, usage: [priced(1), unpriced(1)] });
      const approval = await openApproval(deps, actor, { sid: session.sid, tool: 'Bash', input: { command: `ls ${i}` } });
      const message = await queueMessage(deps, person, { sid: session.sid, text: `note ${i}`, by: { tokenId: 'token', label: null } });
      return { sid: session.sid, approvalId: approval.approvalId, messageId: message.id };
    }));
    // and 111 agents in an open turn, each with a tool running that waits for a person
    const tags = Array.from({ length: 111 }, (_, i) => `usage-agent-${i}`);
    const asked = await Promise.all(tags.map(async (tag, i) => {
      await hook(tag, { hook_event_name: 'UserPromptSubmit', prompt: 'p' });
      await hook(tag, { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: `rm -r ${i}` }, tool_use_id: `deny-${i}` });
      const sid = (await getSessionByTag(store!, { namespace: actor.namespace, tag }))!.sid;
      return { sid, approvalId: (await openApproval(deps, agent, { sid, tool: 'Bash', input: { command: `rm -r ${i}` }, toolUseId: `deny-${i}` })).approvalId };
    }));
    const KINDS = 7;
    const event = (i: number): Promise<unknown> => {
      const { sid, approvalId, messageId } = sessions[i]!;
      switch (i % KINDS) {
        case 0: return decideApproval(deps, person, { sid, approvalId, decision: 'allow', decidedBy: 'token' });
        case 1: return cancelMessage(deps, person, { sid, messageId });
        case 2: return setAttention(deps, actor, { sid, kind: 'question', message: `which ${i}?` });
        case 3: return reportUsage(deps, actor, { sid, usage: [priced(2)] });
        case 4: return stopTurn(deps, actor, { sid, response: 'done', usage: [priced(3), unpriced(3)] });
        case 5: return hook(tags[i]!, { hook_event_name: 'Stop' }, [priced(4), unpriced(2)]);
        default: return decideApproval(deps, person, { ...asked[i]!, decision: 'deny', message: 'not that', decidedBy: 'token' });
      }
    };
    const costs: number[] = [];
    let from = 0;
    for (const size of [1, 10, 100]) {
      const indexes = Array.from({ length: size }, (_, k) => from + k);
      from += size;
      const before = counter!.roundTrips();
      await Promise.all(indexes.map(event));
      costs.push(counter!.roundTrips() - before);
    }
    expect(costs).toEqual([2, 2, 2]);
    const every = (kind: number) => Array.from({ length: 111 }, (_, i) => i).filter((i) => i % KINDS === kind);
    for (const i of every(0)) expect((await listApprovals(store!, sessions[i]!.sid)).map((a) => a.status)).toEqual(['allowed']);
    for (const i of every(1)) expect(await listQueuedMessages(store!, sessions[i]!.sid)).toEqual([]);
    // a deny ends the tool it was about, with who and why
    for (const i of every(6)) {
      expect((await listApprovals(store!, asked[i]!.sid)).map((a) => a.status)).toEqual(['denied']);
      const tool = await findActivityByToolUseId(store!, { sid: asked[i]!.sid, toolUseId: `deny-${i}` });
      expect([tool?.status, tool?.output]).toEqual(['denied', { deniedBy: 'token', message: 'not that' }]);
    }
    for (const i of every(2)) expect((await getSession(store!, { namespace: actor.namespace, sid: sessions[i]!.sid }))?.attention).toMatchObject({ kind: 'question', message: `which ${i}?` });
    // the totals each write showed (its last turn event's) are what the database sums now
    const shown = new Map<string, unknown>();
    for (const { event } of published) if (event.body.t === 'turn' && event.body.sessionUsage) shown.set(event.body.sid, event.body.sessionUsage);
    const sidOf = async (tag: string) => (await getSessionByTag(store!, { namespace: actor.namespace, tag }))!.sid;
    for (const i of [...every(3), ...every(4), ...every(5)]) {
      const sid = i % KINDS === 5 ? await sidOf(tags[i]!) : sessions[i]!.sid;
      const stored = await getSessionUsage(store!, sid);
      expect(stored.inputTokens, `event ${i}`).toBeGreaterThan(0);
      expect(shown.get(sid), `event ${i}`).toEqual(stored);
    }
    // the stop replaced the mid-turn figures: a priced model and one with no price known
    expect(await getSessionUsage(store!, sessions[4]!.sid)).toMatchObject({ inputTokens: 3000 + 21, outputTokens: 30 + 3, cacheReadTokens: 3, unpricedTokens: 21 + 3 });
  }, 120_000);

  it('a sweep with 1, 10 and 100 of everything due (turns timed out, runs whose runner was lost, messages past their time, quiet sessions going inactive and idle) costs the same round trips, and does it all', async () => {
    const { deps, published } = await counted();
    const actor = runnerActor();
    const person = { namespace: actor.namespace, role: 'operator' as const, by: 'user' as const, socketId: 'person' };
    const costs: number[] = [];
    for (const size of [1, 10, 100]) {
      const sids = await Promise.all(Array.from({ length: size }, async (_, i) => {
        const { session } = await startSession(deps, actor, { tag: `swept-${size}-${i}`, flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
        await submitPrompt(deps, actor, { sid: session.sid, prompt: 'p' });
        await queueMessage(deps, person, { sid: session.sid, text: 'hi', by: { tokenId: 'token', label: null } });
        return session.sid;
      }));
      await runnerSocketsLost(deps, sids);
      // and as many whose runner stays connected but quiet: they go inactive, then idle
      const quiet = await Promise.all(Array.from({ length: size }, async (_, i) => (await startSession(deps, actor, { tag: `quiet-${size}-${i}`, flavor: 'claude', source: 'startup', metadata: { path: '/p' } })).session.sid));
      (deps.clock as ManualClock).advance(2 * 86_400_000);
      published.length = 0;
      const before = counter!.roundTrips();
      const report = await sweep(deps);
      costs.push(counter!.roundTrips() - before);
      expect(report).toMatchObject({ turnsTimedOut: size, runsInterrupted: size, messagesExpired: size, sessionsIdled: size });
      expect(report.sessionsInactive).toBeGreaterThanOrEqual(size);
      for (const sid of quiet) {
        const session = (await getSession(store!, { namespace: actor.namespace, sid }))!;
        expect([session.lifecycle.state, session.presence.active]).toEqual(['idle', false]);
      }
      for (const sid of sids) {
        const session = (await getSession(store!, { namespace: actor.namespace, sid }))!;
        expect([session.lifecycle.state, session.lastRun?.status, session.lastRun?.reason, session.currentTurnId]).toEqual(['ended', 'interrupted', 'runner_lost', null]);
        expect((await listTurns(store!, sid)).map((turn) => turn.status)).toEqual(['timeout']);
        expect(await listQueuedMessages(store!, sid)).toEqual([]);
      }
      // each session's end was told: its last update says ended
      const last = new Map<string, string>();
      for (const { event } of published) if (event.body.t === 'update-session' && event.body.lifecycle) last.set(event.body.sid, event.body.lifecycle.state);
      expect(sids.map((sid) => last.get(sid))).toEqual(sids.map(() => 'ended'));
    }
    expect(new Set(costs).size, `round trips: ${costs.join(' / ')}`).toBe(1);
  }, 120_000);
});
