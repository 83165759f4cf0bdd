/**
 * Spec section 1: without SESSION_HUB_TOKENS the real hub process creates one agent (hooks), one
 * runner, one dashboard and one admin token for namespace `default` on first start, keeps them in its data directory
 * (hashed: no file there holds a token's text), and prints them once (not again after a restart).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeAllClients, connectDashboard, connectRunner, handshakeError, waitFor } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';

stopHubsAfterEach();

/** The tokens a first start printed, by role. */
function printedTokens(output: string): Map<string, { namespace: string; token: string }> {
  const tokens = new Map<string, { namespace: string; token: string }>();
  for (const match of output.matchAll(/^\s+(agent|runner|dashboard|admin)\s+(\S+)\s+(shub_\S+)$/gm)) tokens.set(match[1]!, { namespace: match[2]!, token: match[3]! });
  return tokens;
}

async function whoami(url: string, token: string): Promise<unknown> {
  return (await fetch(`${url}/api/whoami`, { headers: { authorization: `Bearer ${token}` } })).json();
}

/** Every file under a directory, as text (binary is fine: a token is ASCII). */
function everyFileText(dir: string): string {
  let text = '';
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    text += statSync(path).isDirectory() ? everyFileText(path) : readFileSync(path).toString('latin1');
  }
  return text;
}

describe('spec 1: tokens generated on first start', () => {
  it('are one per role for namespace default, work at once, are stored hashed and are printed only once', async () => {
    const first = await spawnHub({ env: { SESSION_HUB_TOKENS: '' } });
    await waitFor(() => printedTokens(first.output()).size === 4, 5000, 'the printed tokens');
    const tokens = printedTokens(first.output());
    expect([...tokens.keys()].sort()).toEqual(['admin', 'agent', 'dashboard', 'runner']);
    for (const [role, { namespace, token }] of tokens) {
      expect(namespace).toBe('default');
      expect(await whoami(first.url, token)).toEqual({ role, namespace: 'default' });
    }
    const runnerToken = tokens.get('runner')!.token;
    const dashboardToken = tokens.get('dashboard')!.token;
    await connectRunner(first.url, runnerToken);
    await connectDashboard(first.url, dashboardToken);
    expect(await handshakeError(first.url, '/runner', { token: dashboardToken })).toBe('forbidden');
    closeAllClients();
    expect(await first.stop()).toBe(0);

    // hashed: no file of the data directory (database, WAL, lock) holds a token's text
    const stored = everyFileText(first.dataDir);
    for (const { token } of tokens.values()) expect(stored).not.toContain(token);

    // a restart on the same data directory keeps them and prints none
    const again = await spawnHub({ dataDir: first.dataDir, env: { SESSION_HUB_TOKENS: '' } });
    for (const [role, { token }] of tokens) expect(await whoami(again.url, token)).toEqual({ role, namespace: 'default' });
    expect(again.output()).not.toContain('First start');
    expect(printedTokens(again.output()).size).toBe(0);
  });
});
