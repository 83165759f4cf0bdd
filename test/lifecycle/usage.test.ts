/**
 * Usage and cost over the real hub (docs/usage.md): `turn-stop` with the turn's usage, the `usage`
 * event mid-turn (totals so far: a count never goes down, a repeat changes nothing), the cost the
 * hub computes from its price table, unknown models (tokens, no cost), the `turn` broadcast with the
 * session's new totals, the snapshot's totals, and every bad report refused naming its field.
 */
import { describe, expect, it } from 'vitest';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { UsageReport } from '../../shared/protocol/usage.js';
import { collectUpdates, connectDashboard, startSession, waitFor } from '../helpers/clients.js';
import { useHubWithRunner } from '../helpers/hub.js';
import { fetchSession, fetchTurns } from './http.js';

const t = useHubWithRunner({ withSession: true });

/** claude-sonnet-4-5 (hub/usage/price-table.ts): $3 input, $15 output, $0.30 cache read, $3.75 cache write per million. */
const SONNET = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const costOf = (r: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number }, p = SONNET) =>
  (r.inputTokens * p.input + r.outputTokens * p.output + r.cacheReadTokens * p.cacheRead + r.cacheWriteTokens * p.cacheWrite) / 1_000_000;

async function submit(prompt = 'do it'): Promise<string> {
  const ack = await t.runner.emitWithAck('prompt-submit', { sid: t.sid, prompt });
  if (!ack.ok) throw new Error(ack.error.message);
  return ack.turnId;
}

async function report(usage: UsageReport[], turnId?: string) {
  const ack = await t.runner.emitWithAck('usage', { sid: t.sid, usage, ...(turnId === undefined ? {} : { turnId }) });
  if (!ack.ok) throw new Error(ack.error.message);
  return ack.turn;
}

describe('usage on turn-stop', () => {
  it('stores the closing turn usage per model with the hub cost, in the ack, the broadcast, the turns and the snapshot totals', async () => {
    const dashboard = await connectDashboard(t.hub.url, t.hub.tokens.dashboard);
    await dashboard.emitWithAck('subscribe', {});
    const seen = collectUpdates(dashboard);
    const turnId = await submit();
    const sonnet = { model: 'claude-sonnet-4-5-20250929', inputTokens: 1200, outputTokens: 340, cacheReadTokens: 50_000, cacheWriteTokens: 8000 };
    const haiku = { model: 'claude-haiku-4-5', inputTokens: 10, outputTokens: 20 };
    const ack = await t.runner.emitWithAck('turn-stop', { sid: t.sid, response: 'done', usage: [sonnet, haiku] });
    if (!ack.ok) throw new Error(ack.error.message);

    const expected = [
      { model: 'claude-haiku-4-5', inputTokens: 10, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: (10 * 1 + 20 * 5) / 1_000_000 },
      { ...sonnet, costUsd: costOf(sonnet) },
    ];
    expect(ack.turn).toMatchObject({ turnId, status: 'completed' });
    expect(ack.turn!.usage).toEqual(expected);
    expect((await fetchTurns(t.hub, t.sid))[0]!.usage).toEqual(expected);

    const totalCost = expected[0]!.costUsd + expected[1]!.costUsd;
    const session = await fetchSession(t.hub, t.sid);
    expect(session.usage).toEqual({ inputTokens: 1210, outputTokens: 360, cacheReadTokens: 50_000, cacheWriteTokens: 8000, costUsd: expect.closeTo(totalCost, 12), unpricedTokens: 0 });

    // dashboards see the closed turn with its usage and the session's new totals in one event
    await waitFor(() => seen.some((e) => e.body.t === 'turn' && e.body.turn.status === 'completed'), 3000, 'closed turn broadcast');
    const closed = seen.find((e): e is UpdateEvent & { body: { t: 'turn' } } => e.body.t === 'turn' && e.body.turn.status === 'completed')!;
    expect(closed.body.turn.usage).toEqual(expected);
    expect(closed.body.sessionUsage).toEqual(session.usage);
  });

  it('keeps tokens of a model without a price and gives it no cost; the totals count them as unpriced', async () => {
    await submit();
    const ack = await t.runner.emitWithAck('turn-stop', { sid: t.sid, usage: [{ model: 'some-local-model', inputTokens: 100, outputTokens: 50, cacheReadTokens: 5 }] });
    if (!ack.ok) throw new Error(ack.error.message);
    expect(ack.turn!.usage).toEqual([{ model: 'some-local-model', inputTokens: 100, outputTokens: 50, cacheReadTokens: 5, cacheWriteTokens: 0, costUsd: null }]);
    expect((await fetchSession(t.hub, t.sid)).usage).toEqual({ inputTokens: 100, outputTokens: 50, cacheReadTokens: 5, cacheWriteTokens: 0, costUsd: null, unpricedTokens: 155 });
  });

  it('prices exact ids, dated snapshots and Claude Code\'s 1M-context ids of them: a newer model of a known family gets no guessed price', async () => {
    await submit();
    const ack = await t.runner.emitWithAck('turn-stop', {
      sid: t.sid,
      usage: [
        { model: 'claude-opus-4-99', inputTokens: 1, outputTokens: 1 },
        { model: 'claude-opus-4-20250514', inputTokens: 1_000_000, outputTokens: 0 },
        // what Claude Code 2.1.197 reports for its default model (test/hook/fixtures/agents/)
        { model: 'claude-opus-4-8[1m]', inputTokens: 1_000_000, outputTokens: 1_000_000 },
        { model: 'claude-opus-4-99[1m]', inputTokens: 1, outputTokens: 1 },
        { model: 'claude-opus-4-8[2m]', inputTokens: 1, outputTokens: 1 },
      ],
    });
    if (!ack.ok) throw new Error(ack.error.message);
    expect(Object.fromEntries(ack.turn!.usage.map((u) => [u.model, u.costUsd]))).toEqual({
      'claude-opus-4-99': null,
      'claude-opus-4-20250514': 15,
      'claude-opus-4-8[1m]': 30,
      'claude-opus-4-99[1m]': null,
      'claude-opus-4-8[2m]': null,
    });
  });

  it('a turn-stop with usage and no open turn stores nothing (a repeated turn-stop does not count twice)', async () => {
    await submit();
    const usage = [{ model: 'claude-sonnet-4-5', inputTokens: 100, outputTokens: 10 }];
    expect(await t.runner.emitWithAck('turn-stop', { sid: t.sid, usage })).toMatchObject({ ok: true });
    expect(await t.runner.emitWithAck('turn-stop', { sid: t.sid, usage: [{ ...usage[0]!, inputTokens: 999 }] })).toMatchObject({ ok: true, turn: null });
    expect((await fetchSession(t.hub, t.sid)).usage.inputTokens).toBe(100);
  });
});

describe('the usage event', () => {
  it('adds to the open turn mid-turn; counts never go down and a repeat changes nothing; turn-stop then closes with the larger', async () => {
    const turnId = await submit();
    const first = await report([{ model: 'claude-sonnet-4-5', inputTokens: 100, outputTokens: 10 }]);
    expect(first).toMatchObject({ turnId, status: 'open', usage: [{ model: 'claude-sonnet-4-5', inputTokens: 100, outputTokens: 10 }] });
    // a late report (smaller input) raises only what grew
    const second = await report([{ model: 'claude-sonnet-4-5', inputTokens: 80, outputTokens: 30, cacheReadTokens: 7 }]);
    expect(second.usage).toEqual([{ model: 'claude-sonnet-4-5', inputTokens: 100, outputTokens: 30, cacheReadTokens: 7, cacheWriteTokens: 0, costUsd: costOf({ inputTokens: 100, outputTokens: 30, cacheReadTokens: 7, cacheWriteTokens: 0 }) }]);
    expect(await report([{ model: 'claude-sonnet-4-5', inputTokens: 100, outputTokens: 30, cacheReadTokens: 7 }])).toEqual(second);
    const ack = await t.runner.emitWithAck('turn-stop', { sid: t.sid, usage: [{ model: 'claude-sonnet-4-5', inputTokens: 150, outputTokens: 30 }] });
    if (!ack.ok) throw new Error(ack.error.message);
    expect(ack.turn!.usage).toMatchObject([{ inputTokens: 150, outputTokens: 30, cacheReadTokens: 7 }]);
    expect((await fetchSession(t.hub, t.sid)).usage).toMatchObject({ inputTokens: 150, outputTokens: 30, cacheReadTokens: 7 });
  });

  it('goes to the named turn, even a closed one, and the session totals follow', async () => {
    const early = await submit('first');
    await t.runner.emitWithAck('turn-stop', { sid: t.sid });
    await submit('second');
    const turn = await report([{ model: 'gpt-5-codex', inputTokens: 1_000_000, outputTokens: 1_000_000, cacheReadTokens: 1_000_000 }], early);
    expect(turn).toMatchObject({ turnId: early, status: 'completed', usage: [{ model: 'gpt-5-codex', costUsd: 1.25 + 10 + 0.125 }] });
    expect((await fetchSession(t.hub, t.sid)).usage.costUsd).toBeCloseTo(11.375, 9);
  });

  it('refuses a turnId of another session, or no turn at all, naming turnId', async () => {
    const other = (await startSession(t.runner, { tag: 'other' })).sid;
    const otherTurn = await t.runner.emitWithAck('prompt-submit', { sid: other, prompt: 'x' });
    if (!otherTurn.ok) throw new Error('prompt');
    for (const turnId of [otherTurn.turnId, 'no-such-turn']) {
      const ack = await t.runner.emitWithAck('usage', { sid: t.sid, turnId, usage: [{ model: 'm', inputTokens: 1, outputTokens: 1 }] });
      expect(ack).toMatchObject({ ok: false, error: { code: 'invalid_payload', message: expect.stringMatching(/^turnId: no turn/) } });
    }
    expect((await fetchSession(t.hub, other)).usage.inputTokens).toBe(0);
  });
});

describe('bad usage reports', () => {
  const good = { model: 'claude-sonnet-4-5', inputTokens: 1, outputTokens: 1 };
  const cases: [string, unknown, RegExp][] = [
    ['a negative count', [{ ...good, inputTokens: -1 }], /^usage\.0\.inputTokens: must not be negative/],
    ['a fraction', [{ ...good, outputTokens: 1.5 }], /^usage\.0\.outputTokens: must be a whole number/],
    ['a huge count', [{ ...good, cacheReadTokens: 1e15 }], /^usage\.0\.cacheReadTokens: must be at most 10000000000 tokens/],
    ['a count as text', [{ ...good, cacheWriteTokens: '5' }], /^usage\.0\.cacheWriteTokens: /],
    ['an empty model', [{ ...good, model: '' }], /^usage\.0\.model: must not be empty/],
    ['a model named twice', [good, { ...good, inputTokens: 2 }], /^usage\.1\.model: model "claude-sonnet-4-5" is named twice/],
    ['no list', { model: 'x' }, /^usage: /],
  ];
  for (const [what, usage, message] of cases) {
    it(`refuses ${what} with invalid_payload naming the field, on turn-stop and on usage, and stores nothing`, async () => {
      await submit();
      for (const event of ['usage', 'turn-stop'] as const) {
        const ack = await t.runner.emitWithAck(event, { sid: t.sid, usage } as never);
        expect(ack, event).toMatchObject({ ok: false, error: { code: 'invalid_payload', message: expect.stringMatching(message) } });
      }
      const session = await fetchSession(t.hub, t.sid);
      expect(session.currentTurn).not.toBeNull();
      expect(session.usage.inputTokens + session.usage.outputTokens).toBe(0);
    });
  }

  it('refuses a usage event that names no model', async () => {
    const ack = await t.runner.emitWithAck('usage', { sid: t.sid, usage: [] });
    expect(ack).toMatchObject({ ok: false, error: { code: 'invalid_payload', message: expect.stringMatching(/^usage: must name at least one model/) } });
  });
});
