/**
 * Requests taken by a second hub process reach the real runner connected to the first (spec section
 * 14): two hub processes on PostgreSQL + Redis, a real `session-hub runner` on process A driving the
 * real Claude Code CLI against a scripted model server; start, approval, message and stop all go
 * through process B.
 */
import { describe, expect, it } from 'vitest';
import type { ListedMachine } from '../../shared/protocol/machines.js';
import type { TurnSummary } from '../../shared/protocol/session.js';
import { startAnthropicServer } from '../agents/helpers/anthropic-server.js';
import { waitFor } from '../helpers/clients.js';
import { claudeHome } from '../runner/helpers/claude-home.js';
import { runnerPartsAfterEach } from '../runner/helpers/runner-parts.js';
import { spawnRunner } from '../runner/helpers/runner-process.js';
import { callAs as call, getSession, startTwoHubs, twoHubsAfterEach } from './two-hubs.js';

twoHubsAfterEach();
const parts = runnerPartsAfterEach();

describe('the real runner across two hub processes', () => {
  it('start, approval, message and stop taken by process B reach the runner and its Claude Code on process A', { timeout: 240_000 }, async () => {
    const { a, b, tokens } = await startTwoHubs();
    const model = (parts.model = await startAnthropicServer({ tools: [{ name: 'Bash', input: { command: 'touch approved.txt', description: 'make a file' } }], finalText: 'All done.' }));
    const home = (parts.home = claudeHome(model.url));
    const runner = (parts.runner = spawnRunner({ hubUrl: a.url, token: tokens.machine, roots: [home.root], env: { ...home.env, XDG_CONFIG_HOME: home.root } }));
    const onB = (method: string, path: string, body?: unknown) => call(b, tokens.operator, method, path, body);
    let machine: ListedMachine | undefined;
    await waitFor(async () => (machine = ((await onB('GET', '/api/machines')).body.machines as ListedMachine[]).find((m) => m.online)) !== undefined, 30_000, `online on B; runner:\n${runner.output()}`);

    const started = await onB('POST', `/api/machines/${machine!.machineId}/sessions`, { flavor: 'claude', path: home.dir, prompt: 'first prompt' });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const sid = started.body.sid as string;
    const pending = async () => {
      let id: string | undefined;
      await waitFor(async () => (id = ((await onB('GET', `/api/sessions/${sid}/approvals`)).body.approvals as { approvalId: string; status: string }[]).find((x) => x.status === 'pending')?.approvalId) !== undefined, 60_000, `a pending approval; runner:\n${runner.output()}`);
      return id!;
    };
    const turns = async () => (await onB('GET', `/api/sessions/${sid}/turns`)).body as unknown as TurnSummary[];
    expect((await onB('POST', `/api/sessions/${sid}/approvals/${await pending()}`, { decision: 'allow' })).status).toBe(200);
    await waitFor(async () => (await turns()).some((t) => t.status === 'completed'), 60_000, 'first turn completed');

    const before = model.requests.length;
    expect((await onB('POST', `/api/sessions/${sid}/messages`, { text: 'second prompt' })).status).toBe(201);
    await waitFor(async () => model.requests.slice(before).some((r) => JSON.stringify(r.messages).includes('second prompt')), 30_000, 'the model sees the message sent through B');
    await pending();

    expect((await onB('POST', `/api/sessions/${sid}/stop`)).status).toBe(202);
    await waitFor(async () => (await getSession(b, sid, tokens.dashboard)).lifecycle.lastRun?.status === 'cancelled', 30_000, 'run cancelled');
    expect(runner.logs().filter((l) => l.msg === 'agent started' || l.msg === 'stop')).toHaveLength(2);
  });
});
