/**
 * Spec section 9 (revised, issue 22 point 1): a long turn is never cut short by the sweep. The turn
 * timeout counts from the turn's latest activity, and a turn-stop that comes after the sweep closed
 * its turn as `timeout` lands on that turn. A real hub, a real Socket.IO runner, the hub's manual clock.
 */
import { describe, expect, it } from 'vitest';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { collectUpdates, connectDashboard, waitFor } from '../helpers/clients.js';
import { useHubWithRunner } from '../helpers/hub.js';
import { fetchSession, fetchTurns } from './http.js';

const t = useHubWithRunner({ withSession: true });
const cfg = () => t.hub.deps.config;
const MINUTE = 60_000;
const SONNET = { model: 'claude-sonnet-4-5-20250929', inputTokens: 1200, outputTokens: 340 };

async function emit(event: string, payload: Record<string, unknown>): Promise<Record<string, unknown>> {
  const ack = (await (t.runner.emitWithAck as (e: string, p: unknown) => Promise<unknown>)(event, { sid: t.sid, ...payload })) as { ok: boolean; error?: { message: string } };
  if (!ack.ok) throw new Error(`${event}: ${ack.error?.message}`);
  return ack as Record<string, unknown>;
}
const prompt = async (text: string) => (await emit('prompt-submit', { prompt: text })).turnId as string;
const turnStatuses = async () => (await fetchTurns(t.hub, t.sid)).map((turn) => [turn.turnId, turn.status]);

describe('turn timeout: from the turn\'s latest activity', () => {
  it('a tool use, a usage report, an attention change and a thinking heartbeat each keep a long turn open; silence past the timeout closes it', async () => {
    const turnId = await prompt('refactor the parser');
    const step = cfg().turnTimeoutMs - MINUTE;
    // each activity comes `step` after the one before; a sweep just before each one finds the turn
    // quiet for `step` only if the one before counted (two steps are past the timeout)
    const activities: [string, Record<string, unknown>][] = [
      ['tool-use', { tool: 'Bash', input: { command: 'npm test' } }],
      ['usage', { usage: [SONNET] }],
      ['attention', { kind: 'question', message: 'Which branch?' }],
      ['attention', { kind: null }],
      ['session-alive', { thinking: true }],
    ];
    for (const [event, payload] of activities) {
      t.clock.advance(step);
      expect((await t.hub.sweepNow()).turnsTimedOut, `before ${event}`).toBe(0);
      await emit(event, event === 'session-alive' ? { ...payload, time: t.clock.now() } : payload);
    }
    t.clock.advance(cfg().turnTimeoutMs);
    await emit('session-alive', { time: t.clock.now(), thinking: false });
    // six times the timeout after the prompt, exactly the timeout after the thinking heartbeat
    expect((await t.hub.sweepNow()).turnsTimedOut).toBe(0);
    expect(await turnStatuses()).toEqual([[turnId, 'open']]);
    expect((await fetchSession(t.hub, t.sid)).activity).toBe('working');

    t.clock.advance(1);
    expect((await t.hub.sweepNow()).turnsTimedOut).toBe(1);
    expect(await turnStatuses()).toEqual([[turnId, 'timeout']]);
  });

  it('a heartbeat that is not thinking is no turn activity', async () => {
    const turnId = await prompt('long job');
    t.clock.advance(cfg().turnTimeoutMs - MINUTE);
    await emit('session-alive', { time: t.clock.now(), thinking: false });
    t.clock.advance(MINUTE + 1);
    expect((await t.hub.sweepNow()).turnsTimedOut).toBe(1);
    expect(await turnStatuses()).toEqual([[turnId, 'timeout']]);
  });
});

describe('turn-stop after the sweep closed its turn as timeout', () => {
  it('lands on that turn: the stop\'s status, its response and usage kept, broadcast, and no stray turn', async () => {
    const dashboard = await connectDashboard(t.hub.url, t.hub.tokens.dashboard);
    await dashboard.emitWithAck('subscribe', {});
    const seen: UpdateEvent[] = collectUpdates(dashboard);
    const turnId = await prompt('migrate the database');
    t.clock.advance(cfg().turnTimeoutMs + 1);
    expect((await t.hub.sweepNow()).turnsTimedOut).toBe(1);

    t.clock.advance(20 * MINUTE);
    const ack = await emit('turn-stop', { response: 'All done.', usage: [SONNET] });
    expect(ack.turn).toMatchObject({ turnId, status: 'completed', response: 'All done.', closedAt: t.clock.now() });

    const turns = await fetchTurns(t.hub, t.sid);
    expect(turns.map((turn) => [turn.turnId, turn.status, turn.response])).toEqual([[turnId, 'completed', 'All done.']]);
    expect(turns[0]!.usage).toMatchObject([{ model: SONNET.model, inputTokens: 1200, outputTokens: 340 }]);
    const session = await fetchSession(t.hub, t.sid);
    expect(session.usage.inputTokens).toBe(1200);
    expect(session.usage.costUsd).toBeGreaterThan(0);
    expect(session.currentTurn).toBeNull();
    await waitFor(
      () => seen.some((e) => e.body.t === 'turn' && e.body.turn.turnId === turnId && e.body.turn.status === 'completed' && e.body.turn.response === 'All done.'),
      2000,
      'the landed stop broadcast',
    );
  });

  it('an error or aborted stop lands with its own status', async () => {
    const turnId = await prompt('deploy');
    t.clock.advance(cfg().turnTimeoutMs + 1);
    await t.hub.sweepNow();
    await emit('turn-stop', { status: 'error', response: 'API error: overloaded' });
    expect((await fetchTurns(t.hub, t.sid)).map((turn) => [turn.turnId, turn.status, turn.response])).toEqual([[turnId, 'error', 'API error: overloaded']]);
  });

  it('once a newer turn is open, a stop closes that one and the timed-out turn stays as it is', async () => {
    const old = await prompt('first');
    t.clock.advance(cfg().turnTimeoutMs + 1);
    await t.hub.sweepNow();
    const newer = await prompt('second');
    await emit('turn-stop', { response: 'second answered' });
    expect((await fetchTurns(t.hub, t.sid)).map((turn) => [turn.turnId, turn.status, turn.response])).toEqual([
      [old, 'timeout', null],
      [newer, 'completed', 'second answered'],
    ]);
    // a second stop has no open or timed-out turn to land on
    expect((await emit('turn-stop', { response: 'again' })).turn).toBeNull();
    expect((await fetchTurns(t.hub, t.sid)).map((turn) => turn.response)).toEqual([null, 'second answered']);
  });
});
