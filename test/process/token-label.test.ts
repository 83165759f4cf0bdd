/**
 * Issue 22.3 (part): tokens carry a label a person gave them, shown where the bare id was: `token
 * list`, the `/api/tokens` answers, and who decided an approval. A real hub process keeping its
 * tokens in its database, the real CLI, a real hook process waiting on an approval.
 */
import { describe, expect, it } from 'vitest';
import type { Approval } from '../../shared/protocol/attention.js';
import type { TokenInfo } from '../../shared/protocol/tokens.js';
import { runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';
import { attentionPayload, hubApi, startHook, useHookEnvs } from '../people/hook-processes.js';

stopHubsAfterEach();
const hookEnv = useHookEnvs();

async function create(dataDir: string, role: string, label?: string) {
  const run = await runCli(['token', 'create', '--role', role, ...(label === undefined ? [] : ['--label', label]), '--data', dataDir]);
  return { ...run, token: run.stdout.trim() };
}

describe('token labels', () => {
  it('CLI: --label is stored, printed and listed; a bad label is refused naming what is wrong', async () => {
    const hub = await spawnHub({ env: { SESSION_HUB_TOKENS: '' } });
    await waitFor(() => hub.output().includes('First start: created these tokens'), 5000, 'the generated tokens');
    const made = await create(hub.dataDir, 'operator', "alice's laptop");
    expect(made.code).toBe(0);
    expect(made.stderr).toContain('"alice\'s laptop"');
    const listed = await runCli(['token', 'list', '--data', hub.dataDir]);
    expect(listed.stdout).toMatch(/^[0-9a-f]{12}\s+operator\s+default\s+cli\s.*"alice's laptop"$/m);

    for (const [label, why] of [['', 'must not be empty'], ['a\nb', 'no control characters'], ['x'.repeat(65), 'at most 64 characters']] as const) {
      const refused = await create(hub.dataDir, 'operator', label);
      expect(refused, label).toMatchObject({ code: 2, stdout: '' });
      expect(refused.stderr).toContain(`--label ${why}`.slice(0, 8));
      expect(refused.stderr).toContain(why);
    }
  });

  it('HTTP: POST /api/tokens { label } answers and lists it; a bad label is 400 naming the field', async () => {
    const hub = await spawnHub({ env: { SESSION_HUB_TOKENS: '' } });
    await waitFor(() => hub.output().includes('First start: created these tokens'), 5000, 'the generated tokens');
    const admin = (await create(hub.dataDir, 'admin', 'ops admin')).token;
    const post = (body: unknown) =>
      fetch(`${hub.url}/api/tokens`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    // the CLI's token reaches the running hub within seconds
    let created: Response | undefined;
    await waitFor(async () => (created = await post({ role: 'operator', label: 'bob phone' })).status === 201, 10_000, 'the admin token accepted');
    expect(((await created!.json()) as TokenInfo).label).toBe('bob phone');
    const listed = (await (await fetch(`${hub.url}/api/tokens`, { headers: { authorization: `Bearer ${admin}` } })).json()) as { tokens: TokenInfo[] };
    // the first start's own are labelled by what they are
    expect(listed.tokens.map((t) => t.label)).toEqual(expect.arrayContaining(['ops admin', 'bob phone', 'first-start admin', 'first-start agent', 'first-start runner', 'first-start dashboard']));

    const bad = await post({ role: 'operator', label: '   ' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_payload', message: expect.stringContaining('label') });
  });

  it('an approval decided with a labelled token says so: decidedByLabel in the answer and the listing', async () => {
    const hub = await spawnHub({ env: { SESSION_HUB_TOKENS: '' } });
    await waitFor(() => hub.output().includes('First start: created these tokens'), 5000, 'the generated tokens');
    const runner = (await create(hub.dataDir, 'runner')).token;
    const operator = (await create(hub.dataDir, 'operator', "alice's laptop")).token;
    const api = hubApi(() => ({ url: hub.url, token: operator }));
    await waitFor(async () => (await fetch(`${hub.url}/api/whoami`, { headers: { authorization: `Bearer ${operator}` } })).status === 200, 10_000, 'the operator token accepted');
    const waiting = startHook(attentionPayload('claude-permission-request', 'labelled'), hookEnv(hub.url, runner));
    const { sid, approvals } = await api.approvalsWhen('labelled', (list) => list.some((a) => a.status === 'pending'), 'a pending approval');
    const decided = await api.decide(sid, approvals[0]!.approvalId, { decision: 'deny', message: 'not now' });
    expect(decided.status).toBe(200);
    expect((await decided.json()) as Approval).toMatchObject({ status: 'denied', decidedByLabel: "alice's laptop", decidedBy: expect.stringMatching(/^[0-9a-f]{12}$/) });
    expect((await api.approvalsOf(sid))[0]).toMatchObject({ status: 'denied', decidedByLabel: "alice's laptop" });
    expect((await waiting.done).code).toBe(0);
  });
});
