/**
 * `GET /api/usage?from&to&groupBy=day|flavor|project|model` (docs/usage.md): totals per group in
 * the token's namespace, over real turns on two days, two flavors, two projects and a model without
 * a price; the range bounds (from inclusive, to exclusive; dates and epoch ms); every bad parameter
 * answered 400 naming it.
 */
import { describe, expect, it } from 'vitest';
import type { UsageResponse } from '../../shared/protocol/http.js';
import type { UsageReport } from '../../shared/protocol/usage.js';
import { connectRunner, startSession } from '../helpers/clients.js';
import { useHubWithRunner } from '../helpers/hub.js';

const DAY = 86_400_000;
/** 2026-11-24T10:00:00Z */
const START = Date.parse('2026-11-24T10:00:00Z');

const t = useHubWithRunner({ startAt: START });

async function turn(sid: string, usage: UsageReport[]) {
  expect(await t.runner.emitWithAck('prompt-submit', { sid, prompt: 'go' })).toMatchObject({ ok: true });
  expect(await t.runner.emitWithAck('turn-stop', { sid, usage })).toMatchObject({ ok: true });
}

async function usage(query: string, token: string = t.hub.tokens.dashboard): Promise<{ status: number; body: UsageResponse & { error?: string; message?: string } }> {
  const response = await fetch(`${t.hub.url}/api/usage${query}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as UsageResponse & { error?: string; message?: string } };
}

const sonnet = (inputTokens: number): UsageReport => ({ model: 'claude-sonnet-4-5', inputTokens, outputTokens: 0 });
const cost = (inputTokens: number) => (inputTokens * 3) / 1_000_000;

/** Day 1: app (claude) 1000 sonnet; lib (codex) 2000 sonnet + 50 unpriced. Day 2: app 4000 sonnet. Another tenant: 7 sonnet. */
async function seed() {
  const app = (await startSession(t.runner, { tag: 'app', metadata: { path: '/work/app/sub', projectRoot: '/work/app' } })).sid;
  const lib = (await startSession(t.runner, { tag: 'lib', flavor: 'codex', metadata: { path: '/work/lib' } })).sid;
  await turn(app, [sonnet(1000)]);
  await turn(lib, [sonnet(2000), { model: 'local-llm', inputTokens: 30, outputTokens: 20 }]);
  t.clock.advance(DAY);
  await turn(app, [sonnet(4000)]);
  const foreign = await connectRunner(t.hub.url, t.hub.tokens.otherRunner);
  const other = (await startSession(foreign, { tag: 'theirs' })).sid;
  expect(await foreign.emitWithAck('prompt-submit', { sid: other, prompt: 'x' })).toMatchObject({ ok: true });
  expect(await foreign.emitWithAck('turn-stop', { sid: other, usage: [sonnet(7)] })).toMatchObject({ ok: true });
}

const totals = (inputTokens: number, costUsd: number | null, unpricedTokens = 0, outputTokens = 0) =>
  ({ inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: costUsd === null ? null : expect.closeTo(costUsd, 12), unpricedTokens });

describe('GET /api/usage', () => {
  it('groups the namespace usage by day (UTC), flavor, project (projectRoot, else path) and model; totals add up', async () => {
    await seed();
    const { status, body } = await usage('');
    expect(status).toBe(200);
    // by default: the 30 days up to now (included), by day
    expect(body).toMatchObject({ groupBy: 'day', from: START + DAY + 1 - 30 * DAY, to: START + DAY + 1 });
    expect(body.groups).toEqual([
      { key: '2026-11-24', ...totals(3030, cost(3000), 50, 20) },
      { key: '2026-11-25', ...totals(4000, cost(4000)) },
    ]);
    expect(body.totals).toEqual(totals(7030, cost(7000), 50, 20));

    expect((await usage('?groupBy=flavor')).body.groups).toEqual([
      { key: 'claude', ...totals(5000, cost(5000)) },
      { key: 'codex', ...totals(2030, cost(2000), 50, 20) },
    ]);
    expect((await usage('?groupBy=project')).body.groups).toEqual([
      { key: '/work/app', ...totals(5000, cost(5000)) },
      { key: '/work/lib', ...totals(2030, cost(2000), 50, 20) },
    ]);
    expect((await usage('?groupBy=model')).body.groups).toEqual([
      { key: 'claude-sonnet-4-5', ...totals(7000, cost(7000)) },
      { key: 'local-llm', ...totals(30, null, 50, 20) },
    ]);
    // another tenant sees its own only
    expect((await usage('?groupBy=model', t.hub.tokens.otherDashboard)).body.groups).toEqual([{ key: 'claude-sonnet-4-5', ...totals(7, cost(7)) }]);
  });

  it('takes from (inclusive) and to (exclusive) as dates, ISO date-times or epoch ms; an empty range has no groups and zero totals', async () => {
    await seed();
    expect((await usage('?from=2026-11-25')).body.groups.map((g) => g.key)).toEqual(['2026-11-25']);
    expect((await usage('?from=2026-11-24&to=2026-11-25')).body.groups.map((g) => g.key)).toEqual(['2026-11-24']);
    expect((await usage(`?from=${START}&to=${START + 1}&groupBy=model`)).body.totals.inputTokens).toBe(3030);
    expect((await usage('?to=2026-11-25T10:00:00Z')).body.groups.map((g) => g.key)).toEqual(['2026-11-24']);
    const empty = await usage('?from=2020-01-01&to=2020-01-02');
    expect(empty.body).toMatchObject({ groups: [], totals: totals(0, null) });
  });

  const bad: [string, RegExp][] = [
    ['?groupBy=week', /querystring groupBy: /],
    ['?from=yesterday', /querystring from: /],
    ['?to=-5', /querystring to: /],
    ['?from=2026-13-40', /querystring from: /],
    ['?from=2026-11-25&to=2026-11-24', /querystring from: must be before to/],
    [`?from=${START + 10 * DAY}`, /querystring from: must be before to/],
  ];
  for (const [query, message] of bad) {
    it(`answers ${query} with 400 invalid_payload naming the parameter`, async () => {
      const { status, body } = await usage(query);
      expect(status).toBe(400);
      expect(body).toMatchObject({ error: 'invalid_payload', message: expect.stringMatching(message) });
    });
  }

  it('needs a token', async () => {
    expect((await fetch(`${t.hub.url}/api/usage`)).status).toBe(401);
  });
});
