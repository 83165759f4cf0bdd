import { describe, expect, it } from 'vitest';
import { connectDashboard, handshakeError, waitFor } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';
import { runCli } from '../helpers/cli.js';

let hub: HubProcess | undefined;
stopHubsAfterEach();

describe('session-hub token', () => {
  it('creates a token a running hub accepts without a restart, and lists tokens without secrets', async () => {
    // no SESSION_HUB_TOKENS: the hub keeps its tokens (hashed) in its data directory
    hub = await spawnHub({ env: { SESSION_HUB_TOKENS: '' } });
    const started = hub;
    await waitFor(() => started.output().includes('First start: created these tokens'), 5000, 'the generated tokens');

    const created = await runCli(['token', 'create', '--role', 'dashboard', '--namespace', 'team-a', '--data', hub.dataDir]);
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^shub_dashboard_/);
    expect(created.stderr).toContain('shown only now');

    const dashboard = await connectDashboard(hub.url, token);
    const ack = await dashboard.emitWithAck('subscribe', {});
    expect(ack).toEqual({ ok: true, sessions: [], seq: 0 });
    expect(await handshakeError(hub.url, '/runner', { token })).toBe('forbidden');
    const whoami = await fetch(`${hub.url}/api/whoami`, { headers: { authorization: `Bearer ${token}` } });
    expect(await whoami.json()).toEqual({ role: 'dashboard', namespace: 'team-a' });

    const listed = await runCli(['token', 'list', '--data', hub.dataDir]);
    expect(listed.code).toBe(0);
    // the four a first start makes (agent, runner, dashboard, admin) and the one created here
    expect(listed.stdout.trim().split('\n')).toHaveLength(5);
    expect(listed.stdout).toMatch(/dashboard\s+team-a\s+cli/);
    expect(listed.stdout).not.toContain(token);
  });

  it('refuses a bad role or a missing database with a message and exit code 2', async () => {
    const badRole = await runCli(['token', 'create', '--role', 'root', '--data', '/nonexistent-dir']);
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toContain('no hub database');
    hub = await spawnHub({ env: { SESSION_HUB_TOKENS: '' } });
    const wrongRole = await runCli(['token', 'create', '--role', 'root', '--data', hub.dataDir]);
    expect(wrongRole).toMatchObject({ code: 2, stdout: '' });
    expect(wrongRole.stderr).toContain('--role must be agent, runner, machine, dashboard, operator or admin');
  });
});
