import { describe, expect, it } from 'vitest';
import { connectDashboard, connectRunner, handshakeError, waitFor } from '../helpers/clients.js';
import { runCli } from '../helpers/cli.js';
import { spawnHub, stopHubsAfterEach, type HubProcess } from '../helpers/hub-process.js';

stopHubsAfterEach();

/** A hub that keeps its tokens in its data directory (no SESSION_HUB_TOKENS), with its first admin token. */
async function hubWithStoredTokens(): Promise<{ hub: HubProcess; admin: string }> {
  const hub = await spawnHub({ env: { SESSION_HUB_TOKENS: '' } });
  await waitFor(() => /admin\s+default\s+(shub_\S+)/.test(hub.output()), 5000, 'the generated tokens');
  return { hub, admin: /admin\s+default\s+(shub_\S+)/.exec(hub.output())![1]! };
}

async function create(hub: HubProcess, ...args: string[]) {
  const created = await runCli(['token', 'create', ...args, '--data', hub.dataDir]);
  expect(created.code, created.stderr).toBe(0);
  const id = /created token ([0-9a-f]{12})/.exec(created.stderr)![1]!;
  return { token: created.stdout.trim(), id, stderr: created.stderr };
}

/** Resolves with the `error` event the hub sends before it disconnects the socket, and the disconnect reason. */
function cutOf(socket: Awaited<ReturnType<typeof connectRunner>>) {
  return new Promise<{ code: string; reason: string }>((resolve) => {
    let code = '';
    socket.on('error', (event) => (code = event.code));
    socket.on('disconnect', (reason) => resolve({ code, reason }));
  });
}

const api = (hub: HubProcess, token: string, path = '/api/tokens', init: RequestInit = {}) =>
  fetch(`${hub.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.body ? { 'content-type': 'application/json' } : {}) } });

describe('token lifecycle (real hub process, stored tokens)', () => {
  it('token revoke <id> cuts the live socket within seconds and refuses new connections and HTTP; list shows it revoked', async () => {
    const { hub } = await hubWithStoredTokens();
    const { token, id } = await create(hub, '--role', 'runner', '--namespace', 'team-a');
    const runner = await connectRunner(hub.url, token);
    const cut = cutOf(runner);

    const revoked = await runCli(['token', 'revoke', id, '--data', hub.dataDir]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toContain(`revoked token ${id}`);
    const startedAt = Date.now();
    expect(await cut).toEqual({ code: 'unauthorized', reason: 'io server disconnect' });
    expect(Date.now() - startedAt).toBeLessThan(5000);
    expect(await handshakeError(hub.url, '/runner', { token })).toBe('unauthorized');
    expect((await api(hub, token, '/api/whoami')).status).toBe(401);

    const listed = await runCli(['token', 'list', '--data', hub.dataDir]);
    const line = listed.stdout.split('\n').find((row) => row.startsWith(id))!;
    expect(line).toMatch(new RegExp(`^${id}\\s+runner\\s+team-a\\s+cli\\s+created \\S+\\s+last used 20\\S+\\s+revoked 20`));
    expect(listed.stdout).not.toContain(token);
  });

  it('token create --expires-in: accepted, then refused once expired, and its socket cut', async () => {
    const { hub } = await hubWithStoredTokens();
    const { token, stderr } = await create(hub, '--role', 'dashboard', '--expires-in', '3s');
    expect(stderr).toMatch(/expires 20\d\d-/);
    const dashboard = await connectDashboard(hub.url, token);
    const cut = cutOf(dashboard as never);
    expect((await api(hub, token, '/api/whoami')).status).toBe(200);
    expect(await cut).toEqual({ code: 'unauthorized', reason: 'io server disconnect' });
    expect(await handshakeError(hub.url, '/dashboard', { token })).toBe('unauthorized');
    expect((await api(hub, token, '/api/whoami')).status).toBe(401);
  });

  it('refuses a bad --expires-in and an unknown or malformed id, exit 2', async () => {
    const { hub } = await hubWithStoredTokens();
    const badDuration = await runCli(['token', 'create', '--role', 'runner', '--expires-in', '30 days', '--data', hub.dataDir]);
    expect(badDuration).toMatchObject({ code: 2, stdout: '' });
    expect(badDuration.stderr).toContain('--expires-in: "30 days" is not a duration');
    const unknown = await runCli(['token', 'revoke', '0123456789ab', '--data', hub.dataDir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no stored token with id 0123456789ab');
    const malformed = await runCli(['token', 'revoke', 'shub_runner_x', '--data', hub.dataDir]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('revoke needs a token id');
  });

  it('admins manage their namespace\'s tokens over HTTP: GET, POST (with expiresIn), DELETE; other namespaces are out of reach', async () => {
    const { hub, admin } = await hubWithStoredTokens();
    const other = await create(hub, '--role', 'admin', '--namespace', 'other');

    const created = await api(hub, admin, '/api/tokens', { method: 'POST', body: JSON.stringify({ role: 'runner', expiresIn: '30d' }) });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { id: string; token: string; role: string; namespace: string; origin: string; expiresAt: number; createdAt: number };
    expect(body).toMatchObject({ role: 'runner', namespace: 'default', origin: 'api', revokedAt: null });
    expect(body.expiresAt - body.createdAt).toBe(30 * 86_400_000);
    const runner = await connectRunner(hub.url, body.token);
    const cut = cutOf(runner);

    const listed = (await (await api(hub, admin)).json()) as { tokens: { id: string; namespace: string }[] };
    expect(listed.tokens.map((t) => t.namespace)).toEqual(['default', 'default', 'default', 'default', 'default']);
    expect(listed.tokens.map((t) => t.id)).toContain(body.id);
    expect(JSON.stringify(listed)).not.toContain(body.token);

    // another namespace's admin neither sees nor revokes it
    const otherList = (await (await api(hub, other.token)).json()) as { tokens: { id: string }[] };
    expect(otherList.tokens.map((t) => t.id)).toEqual([other.id]);
    expect((await api(hub, other.token, `/api/tokens/${body.id}`, { method: 'DELETE' })).status).toBe(404);

    const deleted = await api(hub, admin, `/api/tokens/${body.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(((await deleted.json()) as { revokedAt: number | null }).revokedAt).toEqual(expect.any(Number));
    expect(await cut).toEqual({ code: 'unauthorized', reason: 'io server disconnect' });
    expect(await handshakeError(hub.url, '/runner', { token: body.token })).toBe('unauthorized');

    // bad input and the wrong role
    expect((await api(hub, admin, '/api/tokens', { method: 'POST', body: JSON.stringify({ role: 'root' }) })).status).toBe(400);
    expect((await api(hub, admin, '/api/tokens', { method: 'POST', body: JSON.stringify({ role: 'runner', expiresIn: 'soon' }) })).status).toBe(400);
    expect((await api(hub, admin, '/api/tokens/nothex', { method: 'DELETE' })).status).toBe(400);
    const dashboardToken = /dashboard\s+default\s+(shub_\S+)/.exec(hub.output())![1]!;
    expect((await api(hub, dashboardToken)).status).toBe(403);
  });

  it('a hub on SESSION_HUB_TOKENS answers /api/tokens with 409: environment tokens are not revocable', async () => {
    const hub = await spawnHub();
    const answer = await api(hub, hub.tokens.admin);
    expect(answer.status).toBe(409);
    expect(((await answer.json()) as { message: string }).message).toContain('SESSION_HUB_TOKENS');
  });

  it('token list on a database with no stored tokens says so and how to make one (stdout stays the empty list)', async () => {
    const hub = await spawnHub();
    const listed = await runCli(['token', 'list', '--data', hub.dataDir], { env: { SESSION_HUB_TOKENS: 'admin:default:whatever-token-1234' } });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe('');
    expect(listed.stderr).toContain('no stored tokens');
    expect(listed.stderr).toContain('SESSION_HUB_TOKENS is set');
    expect(listed.stderr).toContain('session-hub token create --role admin');
  });
});
