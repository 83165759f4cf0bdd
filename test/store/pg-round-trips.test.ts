/**
 * Issue 31: what a group-committed batch costs in round trips to PostgreSQL, counted on the wire,
 * must not grow with the batch's size.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { loadConfig } from '../../hub/config.js';
import { startSession } from '../../hub/lifecycle/session-start.js';
import { applyHookEvents } from '../../hub/lifecycle/hook-events.js';
import { recordToolUse, submitPrompt } from '../../hub/lifecycle/turn-events.js';
import { createLogger } from '../../hub/log.js';
import type { HubDeps, OutgoingEvent } from '../../hub/services/deps.js';
import { updateMetadata } from '../../hub/lifecycle/versioned-writes.js';
import { PgStore } from '../../hub/store/postgres/pg-store.js';
import { startRoundTripCounter } from '../helpers/pg-round-trips.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { runnerActor } from '../helpers/services.js';

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
  store = await PgStore.open(counter.url);
  const published: OutgoingEvent[] = [];
  const deps: HubDeps = {
    store,
    hubId: 'test-hub',
    clock: new ManualClock(1_700_000_000_000),
    config: loadConfig({}, { logLevel: 'silent' }),
    log: createLogger('silent'),
    publisher: { publish: (events) => void published.push(...events) },
  };
  return { deps, published };
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

  it('a batch mixing hook events of several sessions (PreToolUse, PostToolUse, Stop), runner prompts and tool calls, and title-less patches costs 2 round trips at 1, 10 and 100 events', async () => {
    const { deps } = await counted();
    const actor = runnerActor();
    const agent = { ...actor, socketId: undefined };
    let hookSeq = 0;
    const hook = (tag: string, payload: object) =>
      applyHookEvents(deps, agent, [{ id: `h${hookSeq}`, flavor: 'claude', firedAt: 1_700_000_000_000, seq: hookSeq++, payload: { session_id: tag, cwd: '/p', ...payload } }]);
    // 111 agent sessions (hooks) and 111 runner sessions, each in an open turn
    const tags = Array.from({ length: 111 }, (_, i) => `agent-${i}`);
    await Promise.all(tags.map((tag) => hook(tag, { hook_event_name: 'UserPromptSubmit', prompt: 'p' })));
    const sids = await Promise.all(Array.from({ length: 111 }, async (_, i) => {
      const { session } = await startSession(deps, actor, { tag: `runner-${i}`, flavor: 'claude', source: 'startup', metadata: { path: '/p' } });
      await submitPrompt(deps, actor, { sid: session.sid, prompt: 'p' });
      return session.sid;
    }));
    /** The i-th event of a batch: one of six kinds, each to a session of its own. */
    const event = (i: number): Promise<unknown> => {
      // a hook UserPromptSubmit still reads its derived promptId's turn on its own (not yet batched)
      const tag = tags[i]!;
      const sid = sids[i]!;
      switch (i % 6) {
        case 0: return hook(tag, { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { i }, tool_use_id: `tu${i}` });
        case 1: return hook(tag, { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { i }, tool_response: 'ok', tool_use_id: `tu${i}` });
        case 2: return hook(tag, { hook_event_name: 'Stop' });
        case 3: return recordToolUse(deps, actor, { sid, tool: 'Bash', input: { i }, output: 'ok', toolUseId: `rt${i}` });
        case 4: return submitPrompt(deps, actor, { sid, prompt: `again ${i}` });
        default: return updateMetadata(deps, actor, { sid, expectedVersion: 1, patch: { step: i } });
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
  }, 120_000);

  it('hook events as the installed bridge sends them (each with its session\'s taker proof, the Stop taking what is queued) cost 2 round trips at 1, 10 and 100 events', async () => {
    const { deps } = await counted();
    const agent = { ...runnerActor(), socketId: undefined };
    let hookSeq = 0;
    const takerOf = (tag: string) => ({ key: `key-of-${tag}-0123456789abcdef`, process: `claude ${tag}` });
    const hook = (tag: string, payload: object, take?: true) =>
      applyHookEvents(deps, agent, [{ id: `b${hookSeq}`, flavor: 'claude', firedAt: 1_700_000_000_000, seq: hookSeq++, taker: takerOf(tag), ...(take ? { take } : {}), payload: { session_id: tag, cwd: '/p', ...payload } }]);
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
  }, 120_000);
});
