/**
 * Long turns and running tools through the hook route (POST /api/hooks, real HTTP, real Claude Code
 * payloads from test/hook/fixtures), swept on the hub's manual clock:
 * - a running tool holds its turn open up to the tool timeout (issue 22.1), then the tool is `abandoned`;
 * - a `Stop` hook after the sweep timed its turn out keeps its closing message and usage (issue 22.1);
 * - the hub's arrival time, not the agent machine's clock, drives liveness and timeouts (issue 26.3);
 * - a tool still running when its turn closes or its session ends is closed `abandoned` (issue 23).
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { UsageReport } from '../../shared/protocol/usage.js';
import { collectUpdates, connectDashboard, waitFor } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { fixture } from '../hook/run-cli.js';
import { hookPoster } from './hook-poster.js';
import { fetchSession, fetchTurns } from './http.js';

let hub: TestHub;
let clock: ManualClock;
// the idle time (which ends a silent detached run) past the tool timeout, so the turn's own timeout is what is seen
useTestHub((started) => (hub = started), () => ({ clock: (clock = new ManualClock(1_700_000_000_000)), config: { idleMs: 3 * 3_600_000 } }));

const MINUTE = 60_000;
const cfg = () => hub.deps.config;
const SONNET: UsageReport = { model: 'claude-sonnet-4-5-20250929', inputTokens: 2400, outputTokens: 610 };

// Claude Code's own payloads: SessionStart, UserPromptSubmit, PreToolUse (Bash), and a Stop and a SessionEnd moved to this session
const lifecycle = fixture('claude-tool-lifecycle.json');
const TAG = lifecycle[0]!.session_id as string;
const [SESSION_START, PROMPT, PRE_BASH] = [lifecycle[0]!, lifecycle[1]!, lifecycle[2]!];
const POST_BASH = { ...lifecycle[2]!, hook_event_name: 'PostToolUse', tool_response: { stdout: 'ok', stderr: '', interrupted: false } };
const sessionPayloads = fixture('claude-session.json');
const STOP = { ...sessionPayloads.find((p) => p.hook_event_name === 'Stop')!, session_id: TAG };
const SESSION_END = { ...sessionPayloads.find((p) => p.hook_event_name === 'SessionEnd')!, session_id: TAG };
const STOP_TEXT = (STOP as Record<string, unknown>).last_assistant_message as string;

/** Posts one hook event as the bridge does, fired `behindMs` before the hub's clock reads. */
const hook = hookPoster(() => ({ hub, clock }));
async function sid(): Promise<string> {
  const response = await hook(SESSION_START);
  return response.results[0]!.sid!;
}

describe('a running tool holds its turn open up to the tool timeout', () => {
  it('a turn whose Bash is still running is not timed out at 30 min and reads working; past the tool timeout it times out and the tool reads abandoned', async () => {
    const id = await sid();
    await hook(PROMPT);
    await hook(PRE_BASH);
    clock.advance(30 * MINUTE);
    expect((await hub.sweepNow()).turnsTimedOut).toBe(0);
    const session = await fetchSession(hub, id);
    expect(session.activity).toBe('working');
    expect(session.currentTurn).toMatchObject({ status: 'open' });
    expect((await fetchTurns(hub, id))[0]!.activities.map((a) => [a.tool, a.status])).toEqual([['Bash', 'running']]);

    clock.advance(cfg().toolTimeoutMs - 30 * MINUTE);
    expect((await hub.sweepNow()).turnsTimedOut).toBe(0);
    clock.advance(1);
    expect((await hub.sweepNow()).turnsTimedOut).toBe(1);
    const [turn] = await fetchTurns(hub, id);
    expect(turn!.status).toBe('timeout');
    expect(turn!.activities.map((a) => [a.tool, a.status, a.endedAt])).toEqual([['Bash', 'abandoned', clock.now()]]);
  });

  it('once the tool ended, the turn times out after the turn timeout from that end', async () => {
    const id = await sid();
    await hook(PROMPT);
    await hook(PRE_BASH);
    clock.advance(40 * MINUTE);
    await hook(POST_BASH);
    clock.advance(cfg().turnTimeoutMs);
    expect((await hub.sweepNow()).turnsTimedOut).toBe(0);
    clock.advance(1);
    expect((await hub.sweepNow()).turnsTimedOut).toBe(1);
    expect((await fetchTurns(hub, id))[0]!.activities.map((a) => a.status)).toEqual(['done']);
  });
});

describe('a Stop hook after the sweep timed its turn out', () => {
  it('keeps the closing message and the usage on that turn, broadcast; the session\'s cost is not 0', async () => {
    const id = await sid();
    const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
    await dashboard.emitWithAck('subscribe', {});
    const seen: UpdateEvent[] = collectUpdates(dashboard);
    await hook(PROMPT);
    clock.advance(cfg().turnTimeoutMs + 1);
    expect((await hub.sweepNow()).turnsTimedOut).toBe(1);

    clock.advance(12 * MINUTE);
    await hook(STOP, { usage: [SONNET] });
    const turns = await fetchTurns(hub, id);
    expect(turns.map((turn) => [turn.kind, turn.status, turn.response])).toEqual([['prompt', 'completed', STOP_TEXT]]);
    expect(turns[0]!.usage).toMatchObject([{ model: SONNET.model, inputTokens: 2400, outputTokens: 610 }]);
    expect((await fetchSession(hub, id)).usage.costUsd).toBeGreaterThan(0);
    await waitFor(() => seen.some((e) => e.body.t === 'turn' && e.body.turn.status === 'completed' && e.body.turn.response === STOP_TEXT), 2000, 'landed stop broadcast');
  });
});

describe('the hub\'s clock, not the agent machine\'s, drives liveness and timeouts', () => {
  it('an agent 6 minutes behind keeps its live turn and its Stop\'s answer', async () => {
    const behindMs = 6 * MINUTE;
    const id = (await hook(SESSION_START, { behindMs })).results[0]!.sid!;
    await hook(PROMPT, { behindMs });
    const report = await hub.sweepNow();
    expect(report).toMatchObject({ turnsTimedOut: 0, sessionsInactive: 0 });
    clock.advance(2 * MINUTE);
    await hook(PRE_BASH, { behindMs });
    clock.advance(2 * MINUTE);
    await hook(POST_BASH, { behindMs });
    expect((await hub.sweepNow()).turnsTimedOut).toBe(0);
    clock.advance(MINUTE);
    await hook(STOP, { behindMs, usage: [SONNET] });

    const turns = await fetchTurns(hub, id);
    expect(turns.map((turn) => [turn.status, turn.response])).toEqual([['completed', STOP_TEXT]]);
    expect(turns[0]!.usage).toMatchObject([{ inputTokens: 2400 }]);
    // firedAt is what is shown: the turn's times are the agent's, in its order
    expect(turns[0]!.closedAt).toBe(clock.now() - behindMs);
    expect(turns[0]!.closedAt! - turns[0]!.openedAt).toBe(5 * MINUTE);
    expect((await fetchSession(hub, id)).presence.active).toBe(true);
  });

  it('an agent 30 s behind does not flap presence between its hooks', async () => {
    const behindMs = 30_000;
    const id = (await hook(SESSION_START, { behindMs })).results[0]!.sid!;
    for (const payload of [PROMPT, PRE_BASH, POST_BASH]) {
      clock.advance(10_000);
      await hook(payload, { behindMs });
      clock.advance(1_000);
      expect((await hub.sweepNow()).sessionsInactive).toBe(0);
      expect((await fetchSession(hub, id)).presence.active).toBe(true);
    }
    // silence for the alive timeout after the last arrival is what makes it inactive
    clock.advance(cfg().aliveTimeoutMs);
    expect((await hub.sweepNow()).sessionsInactive).toBe(1);
  });
});

describe('running tools end when their turn closes or their session ends', () => {
  it('a Stop closes the turn and its tool still running (no PostToolUse came: a tool denied in claude -p) as abandoned', async () => {
    const id = await sid();
    await hook(PROMPT);
    await hook(PRE_BASH);
    clock.advance(5_000);
    await hook(STOP);
    const [turn] = await fetchTurns(hub, id);
    expect(turn!.status).toBe('completed');
    expect(turn!.activities.map((a) => [a.status, a.endedAt])).toEqual([['abandoned', clock.now()]]);
    // the tool's late result still lands: a person reads what it did
    await hook(POST_BASH);
    expect((await fetchTurns(hub, id))[0]!.activities.map((a) => [a.status, a.output])).toEqual([['done', POST_BASH.tool_response]]);
  });

  it('a new prompt supersedes the turn and abandons its running tool', async () => {
    const id = await sid();
    await hook(PROMPT);
    await hook(PRE_BASH);
    await hook({ ...PROMPT, prompt: 'never mind, do something else' });
    const turns = await fetchTurns(hub, id);
    expect(turns.map((turn) => [turn.status, turn.activities.map((a) => a.status)])).toEqual([
      ['superseded', ['abandoned']],
      ['open', []],
    ]);
  });

  it('SessionEnd abandons every tool of the session still running, also one in a turn already closed, and broadcasts the turns', async () => {
    const id = await sid();
    const dashboard = await connectDashboard(hub.url, hub.tokens.dashboard);
    await dashboard.emitWithAck('subscribe', {});
    const seen: UpdateEvent[] = collectUpdates(dashboard);
    await hook(PROMPT);
    await hook(STOP);
    // a PreToolUse just after the Stop goes to the turn that just closed (within a minute), running
    await hook(PRE_BASH);
    expect((await fetchTurns(hub, id))[0]!.activities.map((a) => a.status)).toEqual(['running']);
    const turnId = (await fetchTurns(hub, id))[0]!.turnId;
    const turnBroadcasts = () => seen.filter((e) => e.body.t === 'turn' && e.body.turn.turnId === turnId).length;
    await waitFor(() => turnBroadcasts() >= 3, 2000, 'prompt, stop and tool broadcasts');
    const before = turnBroadcasts();
    clock.advance(3_000);
    await hook(SESSION_END);
    const [turn] = await fetchTurns(hub, id);
    expect(turn!.activities.map((a) => [a.status, a.endedAt])).toEqual([['abandoned', clock.now()]]);
    await waitFor(() => turnBroadcasts() > before, 2000, 'the turn broadcast when its tool was abandoned');
    expect((await fetchSession(hub, id)).lifecycle.state).toBe('ended');
  });
});
