/**
 * POST /api/hooks over real HTTP (an in-process hub): raw hook payloads mapped on the hub, a
 * session's events applied in seq order at their firing time (clamped), once per event id; tools
 * shown running until they end; every bad input answered with a status and a message naming it.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { HookBatchResponse, HookEvent } from '../../shared/protocol/hooks.js';
import type { SessionSnapshot, TurnWithActivity } from '../../shared/protocol/session.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { fixture, hubReader } from '../hook/run-cli.js';

let hub: TestHub;
useTestHub((started) => (hub = started));
const { get, sessionByTag } = hubReader(() => hub);

const tools = fixture('claude-tool-lifecycle.json');
const tag = tools[0]!.session_id as string;

function post(body: unknown, token: string | null = hub.tokens.runner, raw?: string): Promise<Response> {
  return fetch(`${hub.url}/api/hooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
    body: raw ?? JSON.stringify(body),
  });
}

async function send(events: HookEvent[]): Promise<HookBatchResponse> {
  const response = await post({ events });
  expect(response.status).toBe(200);
  return (await response.json()) as HookBatchResponse;
}

/** Events for payloads, fired `gapMs` apart starting `start`, with seqs from `firstSeq`. */
function events(payloads: Record<string, unknown>[], start: number, options: { gapMs?: number; firstSeq?: number } = {}): HookEvent[] {
  return payloads.map((payload, i) => ({
    id: randomUUID(),
    flavor: 'claude',
    firedAt: start + i * (options.gapMs ?? 1000),
    seq: (options.firstSeq ?? 0) + i,
    payload: payload as HookEvent['payload'],
  }));
}

async function turnsOf(session: SessionSnapshot): Promise<TurnWithActivity[]> {
  return get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
}

describe('POST /api/hooks', () => {
  it('applies events at the time they fired: the session start, the turn and each tool keep their times', async () => {
    const start = Date.now() - 60_000;
    const batch = events(tools, start);
    const { results } = await send(batch);
    expect(results.map((r) => r.outcome)).toEqual(['applied', 'applied', 'applied', 'applied', 'applied', 'applied', 'applied']);
    const session = await sessionByTag(tag);
    expect(session.lifecycle).toMatchObject({ state: 'running', since: start });
    const [turn] = await turnsOf(session);
    expect(turn).toMatchObject({ prompt: 'Run the test suite', openedAt: start + 1000, status: 'open' });
    expect(turn!.activities.map((a) => [a.tool, a.status, a.at, a.endedAt])).toEqual([
      ['Bash', 'failed', start + 2000, start + 3000],
      ['Write', 'done', start + 4000, start + 5000],
    ]);
    expect(turn!.activities[0]!.output).toEqual({ error: 'Command exited with non-zero status code 1' });
    expect(turn!.activities[1]!.output).toEqual({ filePath: '/work/app/notes.txt', success: true });
    // hooks are signs of life: active since the start (the sweep makes it inactive after the alive timeout)
    expect(session.presence).toMatchObject({ active: true, activeAt: start });
  });

  it('shows a tool as running from PreToolUse until its PostToolUse', async () => {
    const start = Date.now() - 10_000;
    const [begin, prompt, pre] = events(tools.slice(0, 3), start);
    await send([begin!, prompt!, pre!]);
    const session = await sessionByTag(tag);
    expect((await turnsOf(session))[0]!.activities.map((a) => [a.tool, a.status, a.endedAt])).toEqual([['Bash', 'running', null]]);
  });

  it('applies a session\'s events in seq order, whatever order they arrive in', async () => {
    const start = Date.now() - 30_000;
    const batch = events(tools.slice(0, 6), start);
    const { results } = await send([...batch].reverse());
    expect(results.map((r) => r.id)).toEqual(batch.map((e) => e.id));
    const [turn] = await turnsOf(await sessionByTag(tag));
    expect(turn!.activities.map((a) => [a.toolUseId, a.status])).toEqual([['toolu_01ABC123', 'failed'], ['toolu_01DEF456', 'done']]);
  });

  it('is idempotent by event id: a re-sent batch answers duplicate and changes nothing', async () => {
    const batch = events(tools, Date.now() - 20_000);
    await send(batch);
    const session = await sessionByTag(tag);
    const before = { session, turns: await turnsOf(session), history: await get(`/api/sessions/${session.sid}/history`) };
    const again = await send(batch);
    expect(again.results.every((r) => r.outcome === 'duplicate')).toBe(true);
    const after = await sessionByTag(tag);
    expect({ session: after, turns: await turnsOf(after), history: await get(`/api/sessions/${after.sid}/history`) }).toEqual(before);
  });

  it('clamps times: never in the hub\'s future, never before the session\'s previous event', async () => {
    const now = Date.now();
    const [begin, prompt] = events(tools.slice(0, 2), now - 5000);
    await send([begin!, prompt!]);
    // fired "before" the prompt (a skewed clock), and one fired in the future
    const [early] = events([tools[2]!], now - 60_000, { firstSeq: 2 });
    const [late] = events([{ ...tools[5]!, tool_use_id: 'toolu_future' }], now + 3_600_000, { firstSeq: 3 });
    await send([early!, late!]);
    const after = Date.now();
    const [turn] = await turnsOf(await sessionByTag(tag));
    const at = Object.fromEntries(turn!.activities.map((a) => [a.toolUseId, a.at]));
    expect(at.toolu_01ABC123).toBe(now - 4000);
    expect(at.toolu_future).toBeGreaterThanOrEqual(now);
    expect(at.toolu_future).toBeLessThanOrEqual(after);
  });

  it('applies a turn-stop event\'s usage (read by the bridge) to the turn it closes, priced by the hub', async () => {
    const start = Date.now() - 10_000;
    const batch = events(tools.slice(0, 2), start);
    const stop = { ...tools[1]!, hook_event_name: 'Stop', last_assistant_message: 'Done.' };
    const usage = [{ model: 'claude-opus-4-6', inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, { model: 'no-such-model', inputTokens: 7, outputTokens: 3 }];
    const [stopEvent] = events([stop], start + 5000, { firstSeq: 2 });
    const { results } = await send([...batch, { ...stopEvent!, usage }]);
    expect(results.map((r) => r.outcome)).toEqual(['applied', 'applied', 'applied']);
    const [turn] = await turnsOf(await sessionByTag(tag));
    expect(turn!.status).toBe('completed');
    expect(turn!.usage.map((u) => [u.model, u.inputTokens, u.outputTokens, u.costUsd]).sort()).toEqual([
      ['claude-opus-4-6', 1_000_000, 0, 5],
      // an unknown model keeps its tokens and gets no cost
      ['no-such-model', 7, 3, null],
    ]);
  });

  it('answers ignored for a hook the registry does not map, and for an end with no session', async () => {
    const [unmapped, end] = events([{ ...tools[0]!, hook_event_name: 'TeammateIdle' }, { ...tools[0]!, hook_event_name: 'SessionEnd', reason: 'exit' }], Date.now());
    const { results } = await send([unmapped!, end!]);
    expect(results).toEqual([
      { id: unmapped!.id, outcome: 'ignored', detail: 'hook "TeammateIdle" is not mapped for claude' },
      { id: end!.id, outcome: 'ignored', detail: `no session "${tag}" to end` },
    ]);
  });

  it('answers failed, once, for an event the hub refuses for good', async () => {
    const huge = { ...tools[0]!, cwd: 'x'.repeat(70 * 1024) };
    const [event] = events([huge], Date.now());
    const first = await send([event!]);
    expect(first.results[0]).toMatchObject({ outcome: 'failed', detail: expect.stringMatching(/^payload_too_large: /) as unknown });
    expect((await send([event!])).results[0]!.outcome).toBe('duplicate');
  });

  describe('bad inputs', () => {
    const one = () => events([tools[0]!], Date.now());

    it('401 without a token or with an unknown one', async () => {
      for (const token of [null, 'not-a-token-at-all']) {
        const response = await post({ events: one() }, token);
        expect(response.status).toBe(401);
        expect(await response.json()).toMatchObject({ error: 'unauthorized' });
      }
    });

    it('403 for a dashboard token, naming the role needed', async () => {
      const response = await post({ events: one() }, hub.tokens.dashboard);
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ error: 'forbidden', message: 'this needs an agent or runner or machine or admin token; yours is a dashboard token' });
    });

    it('400 for a body that is not JSON', async () => {
      const response = await post(undefined, hub.tokens.runner, '{"events": [');
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'invalid_payload' });
    });

    it('400 naming the missing or wrong field', async () => {
      const cases: [unknown, RegExp][] = [
        [{}, /events/],
        [{ events: [] }, /events.*at least one event/],
        [{ events: [{ ...one()[0], firedAt: undefined }] }, /events\.0\.firedAt/],
        [{ events: [{ ...one()[0], seq: -1 }] }, /events\.0\.seq/],
        [{ events: [{ ...one()[0], ageMs: -5 }] }, /events\.0\.ageMs/],
        [{ events: [{ ...one()[0], ageMs: 1.5 }] }, /events\.0\.ageMs/],
        [{ events: [{ ...one()[0], payload: 'SessionStart' }] }, /events\.0\.payload/],
        [{ events: [{ ...one()[0], id: '' }] }, /events\.0\.id/],
        [{ events: [{ ...one()[0], usage: [{ model: 'claude-opus-4-6', inputTokens: -1, outputTokens: 0 }] }] }, /events\.0\.usage\.0\.inputTokens.*negative/],
        [{ events: [{ ...one()[0], usage: [{ model: 'm', inputTokens: 1, outputTokens: 1 }, { model: 'm', inputTokens: 2, outputTokens: 2 }] }] }, /events\.0\.usage\.1\.model.*named twice/],
      ];
      for (const [body, message] of cases) {
        const response = await post(body);
        expect(response.status).toBe(400);
        const answer = (await response.json()) as { error: string; message: string };
        expect(answer.error).toBe('invalid_payload');
        expect(answer.message).toMatch(message);
      }
    });

    it('413 for a body over 1 MiB', async () => {
      const big = { ...one()[0]!, payload: { ...tools[0]!, padding: 'x'.repeat(1024 * 1024) } };
      const response = await post({ events: [big] });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ error: 'payload_too_large' });
    });
  });
});
