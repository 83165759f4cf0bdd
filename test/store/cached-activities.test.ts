/**
 * A PostgreSQL batch keeps its sessions' tools in its rowCache (hub/store/turns.ts): each tool by
 * its id, each session's running tools and the turns with tools running. A turn that closes with a
 * tool still running abandons it in SQL; the cached entries of that turn's session must follow, and
 * only theirs (they are found through a per-session index, not a scan of every carried row).
 * Shown through what the hub publishes and stores, on SQLite the same way as on PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { applyHookEvents } from '../../hub/lifecycle/hook-events.js';
import { decideApproval, openApproval } from '../../hub/people/approvals.js';
import type { OutgoingEvent } from '../../hub/services/deps.js';
import { getSessionByTag } from '../../hub/store/sessions.js';
import { findActivityByToolUseId, listTurns } from '../../hub/store/turns.js';
import { depsOnStore, runnerActor } from '../helpers/services.js';
import { STORE_ENGINES, storeForEachTest } from '../helpers/store-engines.js';

const agent = { ...runnerActor(), socketId: undefined };
const person = { namespace: agent.namespace, role: 'operator' as const, by: 'user' as const, socketId: 'person' };

describe.each(STORE_ENGINES)('a turn closed with a tool running ($name)', (engine) => {
  const storeOf = storeForEachTest(engine);
  it('its tool ends abandoned and leaves the cached lists, so the session\'s end shows nothing more of it; another session\'s running tool is untouched', async () => {
    const store = storeOf();
    const published: OutgoingEvent[] = [];
    const deps = depsOnStore(store, published);
    let seq = 0;
    const events = (tag: string, payloads: object[]) =>
      applyHookEvents(deps, agent, payloads.map((payload) => ({ id: `h${seq}`, flavor: 'claude', firedAt: 1_700_000_000_000, seq: seq++, payload: { session_id: tag, cwd: '/p', ...payload } })));
    for (const tag of ['a', 'b']) {
      await events(tag, [{ hook_event_name: 'UserPromptSubmit', prompt: `fix ${tag}` }]);
      await events(tag, [{ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'make' }, tool_use_id: `tool-${tag}` }]);
    }
    // the batch reads a's turns with tools running (its end is in it) before its stop closes the turn
    published.length = 0;
    await events('a', [{ hook_event_name: 'Stop', last_assistant_message: 'done' }, { hook_event_name: 'SessionEnd', reason: 'exit' }]);

    const sidOf = async (tag: string) => (await getSessionByTag(store, { namespace: agent.namespace, tag }))!.sid;
    const a = await sidOf('a');
    const [turn] = await listTurns(store, a);
    expect(turn!.status).toBe('completed');
    expect((await findActivityByToolUseId(store, { sid: a, toolUseId: 'tool-a' }))?.status).toBe('abandoned');
    // the stop published the turn closed; the end found no turn of a with a tool still running
    const turnEvents = published.filter(({ event }) => event.body.t === 'turn' && event.body.turn.turnId === turn!.turnId);
    expect(turnEvents).toHaveLength(1);

    // b's tool was running throughout, and its end lands as b's
    const b = await sidOf('b');
    expect((await findActivityByToolUseId(store, { sid: b, toolUseId: 'tool-b' }))?.status).toBe('running');
    await events('b', [{ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'make' }, tool_response: { stdout: 'ok' }, tool_use_id: 'tool-b' }]);
    expect((await findActivityByToolUseId(store, { sid: b, toolUseId: 'tool-b' }))?.status).toBe('done');
    // a's tool ending late still takes its result (spec: an abandoned tool finishes when its end comes)
    await events('a', [{ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'make' }, tool_response: { stdout: 'late' }, tool_use_id: 'tool-a' }]);
    expect((await findActivityByToolUseId(store, { sid: a, toolUseId: 'tool-a' }))?.status).toBe('done');
  });

  it('a deny after the turn closed leaves its abandoned tool as it is (the session\'s running tools, read for an earlier deny, no longer hold it)', async () => {
    const store = storeOf();
    const deps = depsOnStore(store);
    let seq = 0;
    const events = (payloads: object[]) =>
      applyHookEvents(deps, agent, payloads.map((payload) => ({ id: `h${seq}`, flavor: 'claude', firedAt: 1_700_000_000_000, seq: seq++, payload: { session_id: 'a', cwd: '/p', ...payload } })));
    await events([{ hook_event_name: 'UserPromptSubmit', prompt: 'fix a' }]);
    await events([{ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'make' }, tool_use_id: 'tool-a' }]);
    const sid = (await getSessionByTag(store, { namespace: agent.namespace, tag: 'a' }))!.sid;
    const make = await openApproval(deps, agent, { sid, tool: 'Bash', input: { command: 'make' }, toolUseId: 'tool-a' });
    const other = await openApproval(deps, agent, { sid, tool: 'Bash', input: { command: 'rm -rf build' } });
    // a deny of another call reads the session's running tools (tool-a among them) and leaves them
    await decideApproval(deps, person, { sid, approvalId: other.approvalId, decision: 'deny', decidedBy: 'tok' });
    expect((await findActivityByToolUseId(store, { sid, toolUseId: 'tool-a' }))?.status).toBe('running');
    // the turn closes: tool-a ends abandoned
    await events([{ hook_event_name: 'Stop', last_assistant_message: 'gave up' }]);
    expect((await findActivityByToolUseId(store, { sid, toolUseId: 'tool-a' }))?.status).toBe('abandoned');
    // a person denies tool-a's approval late: the tool is no longer running, so nothing of it changes
    await decideApproval(deps, person, { sid, approvalId: make.approvalId, decision: 'deny', decidedBy: 'tok' }).catch(() => undefined);
    expect((await findActivityByToolUseId(store, { sid, toolUseId: 'tool-a' }))?.status).toBe('abandoned');
  });
});
