/**
 * One live run per session across hub processes (issue 45.4): two hub processes on one PostgreSQL
 * database, a real `session-hub runner` connected to A driving the real Claude Code CLI. Continues of
 * one ended session sent at once to both processes start one agent: the spawn is claimed in the
 * database, so the process that did not claim it answers session_running.
 */
import { describe, expect, it } from 'vitest';
import type { ListedMachine } from '../../shared/protocol/machines.js';
import type { TurnSummary } from '../../shared/protocol/session.js';
import { startAnthropicServer } from '../agents/helpers/anthropic-server.js';
import { waitFor } from '../helpers/clients.js';
import { alive } from '../helpers/process-alive.js';
import { claudeHome } from '../runner/helpers/claude-home.js';
import { runnerPartsAfterEach } from '../runner/helpers/runner-parts.js';
import { spawnRunner } from '../runner/helpers/runner-process.js';
import { callAs as call, getSession, startTwoHubs, twoHubsAfterEach } from './two-hubs.js';

twoHubsAfterEach();
const parts = runnerPartsAfterEach();

describe('continue across two hub processes', () => {
  it('four Continues of one session, two on each process, at once: one agent starts, the others answer session_running', { timeout: 240_000 }, async () => {
    const { a, b, tokens } = await startTwoHubs();
    const model = (parts.model = await startAnthropicServer({ tools: [], finalText: 'All done.' }));
    const home = (parts.home = claudeHome(model.url));
    const runner = (parts.runner = spawnRunner({ hubUrl: a.url, token: tokens.machine, roots: [home.root], env: { ...home.env, XDG_CONFIG_HOME: home.root } }));
    const on = (hub: typeof a) => (method: string, path: string, body?: unknown) => call(hub, tokens.operator, method, path, body);
    let machine: ListedMachine | undefined;
    await waitFor(async () => (machine = ((await on(b)('GET', '/api/machines')).body.machines as ListedMachine[]).find((m) => m.online)) !== undefined, 30_000, `online on B; runner:\n${runner.output()}`);

    const started = await on(a)('POST', `/api/machines/${machine!.machineId}/sessions`, { flavor: 'claude', path: home.dir, prompt: 'first prompt' });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const sid = started.body.sid as string;
    const turns = async () => (await on(a)('GET', `/api/sessions/${sid}/turns`)).body as unknown as TurnSummary[] | { turns: TurnSummary[] };
    await waitFor(async () => {
      const body = await turns();
      return (Array.isArray(body) ? body : body.turns).some((t) => t.status === 'completed');
    }, 60_000, 'first turn completed');
    expect((await on(a)('POST', `/api/sessions/${sid}/stop`)).status).toBe(202);
    await waitFor(async () => (await getSession(a, sid, tokens.dashboard)).lifecycle.lastRun?.status === 'cancelled', 30_000, 'run cancelled');

    const answers = await Promise.all([a, b, a, b].map((hub) => on(hub)('POST', `/api/sessions/${sid}/continue`, { prompt: 'go on', policy: 'force' })));
    expect(answers.map((answer) => answer.status).sort(), JSON.stringify(answers.map((answer) => answer.body))).toEqual([202, 409, 409, 409]);
    expect(new Set(answers.filter((answer) => answer.status === 409).map((answer) => answer.body.error))).toEqual(new Set(['session_running']));
    const resumed = runner.logs().filter((line) => line.msg === 'agent started' && line.resume === true);
    expect(resumed).toHaveLength(1);
    const pid = resumed[0]!.pid as number;

    expect((await on(b)('POST', `/api/sessions/${sid}/stop`)).status).toBe(202);
    await waitFor(async () => (await getSession(b, sid, tokens.dashboard)).lifecycle.lastRun?.status === 'cancelled', 30_000, 'run cancelled');
    expect(alive(pid)).toBe(false);
  });
});
