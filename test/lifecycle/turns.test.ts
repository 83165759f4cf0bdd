import { describe, expect, it } from 'vitest';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { TurnSummary } from '../../shared/protocol/session.js';
import { collectUpdates, connectDashboard, connectRunner, startSession, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { useHubWithRunner } from '../helpers/hub.js';
import { fetchSession, fetchTurns } from './http.js';

const t = useHubWithRunner({ withSession: true });

const turnBodies = (events: UpdateEvent[]): TurnSummary[] => events.flatMap((e) => (e.body.t === 'turn' ? [e.body.turn] : []));
async function submit(prompt: string, promptId?: string): Promise<string> {
  const ack = await t.runner.emitWithAck('prompt-submit', { sid: t.sid, prompt, ...(promptId ? { promptId } : {}) });
  if (!ack.ok) throw new Error(ack.error.message);
  return ack.turnId;
}
async function tool(payload: { tool?: string; toolUseId?: string; input?: unknown; output?: unknown } = {}) {
  const ack = await t.runner.emitWithAck('tool-use', { sid: t.sid, tool: 'Bash', ...payload } as Parameters<RunnerSocket['emitWithAck']>[1] & { sid: string; tool: string });
  if (!ack.ok) throw new Error(ack.error.message);
  return ack;
}

describe('prompt-submit', () => {
  it('opens a turn that becomes currentTurn, and broadcasts it to the room and to dashboards', async () => {
    const watcher = await connectRunner(t.hub.url, t.hub.tokens.runner);
    await watcher.emitWithAck('session-join', { sid: t.sid });
    const dashboard = await connectDashboard(t.hub.url, t.hub.tokens.dashboard);
    await dashboard.emitWithAck('subscribe', {});
    const roomSeen = collectUpdates(watcher);
    const dashSeen = collectUpdates(dashboard);
    const writerSeen = collectUpdates(t.runner);

    const turnId = await submit('fix the bug');

    const expected = { turnId, sid: t.sid, kind: 'prompt', prompt: 'fix the bug', promptTruncated: false, status: 'open', openedAt: t.clock.now(), closedAt: null, response: null, activityCount: 0, usage: [] };
    expect((await fetchSession(t.hub, t.sid)).currentTurn).toEqual(expected);
    for (const seen of [roomSeen, dashSeen]) await waitFor(() => turnBodies(seen).length === 1, 2000, 'turn broadcast');
    expect(turnBodies(roomSeen)[0]).toEqual(expected);
    expect(turnBodies(dashSeen)[0]).toEqual(expected);
    expect(turnBodies(writerSeen)).toEqual([]);
  });

  it('closes an earlier open turn as superseded first', async () => {
    const first = await submit('one');
    t.clock.advance(10);
    const second = await submit('two');
    const turns = await fetchTurns(t.hub, t.sid);
    expect(turns.map((turn) => [turn.turnId, turn.status, turn.closedAt])).toEqual([
      [first, 'superseded', t.clock.now()],
      [second, 'open', null],
    ]);
  });

  it('stores a repeated promptId once and answers the same turn', async () => {
    const a = await submit('once', 'p-1');
    const b = await submit('once again', 'p-1');
    expect(b).toBe(a);
    const turns = await fetchTurns(t.hub, t.sid);
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({ prompt: 'once', status: 'open' });
  });

  it('stores a prompt over 256 KiB cut at a character boundary and flagged', async () => {
    // 'a' then 3-byte characters, so the 262144-byte limit falls inside one of them
    const prompt = 'a' + '€'.repeat(100_000);
    await submit(prompt);
    const [turn] = await fetchTurns(t.hub, t.sid);
    expect(turn!.promptTruncated).toBe(true);
    expect(Buffer.byteLength(turn!.prompt!, 'utf8')).toBe(1 + 3 * Math.floor((256 * 1024 - 1) / 3));
    expect(prompt.startsWith(turn!.prompt!)).toBe(true);
    expect(turn!.prompt).not.toContain('\uFFFD');

    await submit('short');
    expect((await fetchTurns(t.hub, t.sid))[1]).toMatchObject({ prompt: 'short', promptTruncated: false });
  });

  it('answers not_found for an unknown session and invalid_payload for a missing prompt', async () => {
    expect(await t.runner.emitWithAck('prompt-submit', { sid: 'nope', prompt: 'x' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await t.runner.emitWithAck('prompt-submit', { sid: t.sid } as never)).toMatchObject({ ok: false, error: { code: 'invalid_payload' } });
  });
});

describe('tool-use', () => {
  it('records activity on the open turn, in order, with a turn broadcast as it gains activity', async () => {
    const watcher = await connectRunner(t.hub.url, t.hub.tokens.runner);
    await watcher.emitWithAck('session-join', { sid: t.sid });
    const seen = collectUpdates(watcher);
    const turnId = await submit('go');
    const a = await tool({ tool: 'Read', toolUseId: 'u1', input: { file: 'a.ts' }, output: 'contents' });
    const b = await tool({ tool: 'Edit', toolUseId: 'u2', input: { file: 'a.ts' } });
    const c = await tool({ tool: 'Bash', input: 'ls', output: { code: 0 } });
    expect([a.turnId, b.turnId, c.turnId]).toEqual([turnId, turnId, turnId]);

    const [turn] = await fetchTurns(t.hub, t.sid);
    expect(turn!.activityCount).toBe(3);
    expect(turn!.activities).toEqual([
      { activityId: a.activityId, toolUseId: 'u1', tool: 'Read', input: { file: 'a.ts' }, output: 'contents', at: t.clock.now(), truncated: false, status: 'done', endedAt: t.clock.now() },
      { activityId: b.activityId, toolUseId: 'u2', tool: 'Edit', input: { file: 'a.ts' }, output: null, at: t.clock.now(), truncated: false, status: 'done', endedAt: t.clock.now() },
      { activityId: c.activityId, toolUseId: null, tool: 'Bash', input: 'ls', output: { code: 0 }, at: t.clock.now(), truncated: false, status: 'done', endedAt: t.clock.now() },
    ]);
    await waitFor(() => turnBodies(seen).length === 4, 2000, 'turn broadcasts');
    expect(turnBodies(seen).map((turn) => turn.activityCount)).toEqual([0, 1, 2, 3]);
  });

  it('stores a duplicate toolUseId once and answers the first activity', async () => {
    await submit('go');
    const first = await tool({ toolUseId: 'dup', input: 'one' });
    const again = await tool({ toolUseId: 'dup', input: 'two' });
    expect(again).toEqual(first);
    const [turn] = await fetchTurns(t.hub, t.sid);
    expect(turn!.activities.map((x) => x.input)).toEqual(['one']);
    expect(turn!.activityCount).toBe(1);
  });

  it('attaches activity with no open turn to the turn that closed within 60 s', async () => {
    const turnId = await submit('go');
    await t.runner.emitWithAck('turn-stop', { sid: t.sid });
    t.clock.advance(60_000);
    const late = await tool({ toolUseId: 'late' });
    expect(late.turnId).toBe(turnId);
    const [turn] = await fetchTurns(t.hub, t.sid);
    expect(turn).toMatchObject({ status: 'completed', activityCount: 1 });
  });

  it('puts activity with no recent turn into a recovery turn created closed (completed)', async () => {
    await submit('go');
    await t.runner.emitWithAck('turn-stop', { sid: t.sid });
    t.clock.advance(60_001);
    const orphan = await tool({ toolUseId: 'orphan' });
    const turns = await fetchTurns(t.hub, t.sid);
    expect(turns).toHaveLength(2);
    expect(turns[1]).toMatchObject({ turnId: orphan.turnId, kind: 'recovery', prompt: null, status: 'completed', openedAt: t.clock.now(), closedAt: t.clock.now(), activityCount: 1 });
    expect((await fetchSession(t.hub, t.sid)).currentTurn).toBeNull();

    // a session that never had a turn gets one too
    const fresh = await startSession(t.runner);
    const ack = await t.runner.emitWithAck('tool-use', { sid: fresh.sid, tool: 'Read' });
    expect(ack.ok).toBe(true);
    expect((await fetchTurns(t.hub, fresh.sid)).map((turn) => [turn.kind, turn.status, turn.activityCount])).toEqual([['recovery', 'completed', 1]]);
  });

  it('stores tool input and output over 64 KiB cut at a character boundary, as a string, flagged', async () => {
    await submit('go');
    const limit = 64 * 1024;
    const input = 'ab' + '😀'.repeat(20_000); // 4-byte characters: the limit falls inside one
    const output = { text: 'é'.repeat(40_000) }; // not a string: measured and cut as its JSON
    await tool({ toolUseId: 'big', input, output });
    await tool({ toolUseId: 'small', input: { ok: true }, output: 'fine' });
    const [turn] = await fetchTurns(t.hub, t.sid);
    const [big, small] = turn!.activities;
    expect(big!.truncated).toBe(true);
    expect(typeof big!.input).toBe('string');
    expect(Buffer.byteLength(big!.input as string)).toBe(2 + 4 * Math.floor((limit - 2) / 4));
    expect(input.startsWith(big!.input as string)).toBe(true);
    expect(typeof big!.output).toBe('string');
    const outJson = JSON.stringify(output);
    expect(outJson.startsWith(big!.output as string)).toBe(true);
    expect(Buffer.byteLength(big!.output as string)).toBeLessThanOrEqual(limit);
    expect(Buffer.byteLength(big!.output as string)).toBeGreaterThan(limit - 2);
    expect(`${big!.input}${big!.output}`).not.toContain('\uFFFD');
    expect(small).toMatchObject({ input: { ok: true }, output: 'fine', truncated: false });
  });
});

describe('turn-stop', () => {
  it('closes the open turn with the response and status (completed by default) and broadcasts the closed turn', async () => {
    const dashboard = await connectDashboard(t.hub.url, t.hub.tokens.dashboard);
    await dashboard.emitWithAck('subscribe', { sids: [t.sid] });
    const seen = collectUpdates(dashboard);
    const turnId = await submit('one');
    t.clock.advance(5);
    const stop = await t.runner.emitWithAck('turn-stop', { sid: t.sid, response: 'done it' });
    expect(stop).toMatchObject({ ok: true, turn: { turnId, status: 'completed', response: 'done it', closedAt: t.clock.now() } });
    await waitFor(() => turnBodies(seen).some((turn) => turn.status === 'completed'), 2000, 'closed turn broadcast');

    for (const status of ['aborted', 'error'] as const) {
      await submit(status);
      expect(await t.runner.emitWithAck('turn-stop', { sid: t.sid, status })).toMatchObject({ ok: true, turn: { status } });
    }
    expect(await t.runner.emitWithAck('turn-stop', { sid: t.sid })).toEqual({ ok: true, turn: null });
    expect((await fetchSession(t.hub, t.sid)).currentTurn).toBeNull();
    expect((await fetchTurns(t.hub, t.sid)).map((turn) => turn.status)).toEqual(['completed', 'aborted', 'error']);
  });
});
