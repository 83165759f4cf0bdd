/**
 * The hook bridge says where a terminal-started agent runs (docs/machines.md): the computer's host
 * name, and the id of the machine runner installed there (its machine.json), so that the session
 * can be continued from the page by that runner. Real bridge processes, a real hub, and a real
 * Socket.IO peer registered as that machine.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestHub } from '../helpers/hub.js';
import { closeAllClients } from '../helpers/clients.js';
import { connectMachine } from '../machines/machine-peer.js';
import { fixture, sendHooks, useBridgeHub } from './run-cli.js';

let hub: TestHub;
const { env, sessionByTag } = useBridgeHub((started) => ({ hub } = started));
const configDirs: string[] = [];
afterEach(() => {
  closeAllClients();
  for (const dir of configDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const claude = fixture('claude-session.json');
const claudeTag = claude[0]!.session_id as string;
const MACHINE_ID = 'c0ffee00-1111-4222-8333-444455556666';

/** An XDG config home holding a runner's machine.json, as the runner writes it. */
function configHomeWithMachine(): string {
  const dir = mkdtempSync(join(tmpdir(), 'session-hub-config-'));
  configDirs.push(dir);
  const runnerDir = join(dir, 'session-hub');
  mkdirSync(runnerDir, { recursive: true });
  writeFileSync(join(runnerDir, 'machine.json'), JSON.stringify({ machineId: MACHINE_ID }));
  return dir;
}

describe('hooks name the computer and its machine', () => {
  it('stores host and machineId on a terminal session, and a runner on that machine continues it', async () => {
    await sendHooks('claude', claude, { ...env(), XDG_CONFIG_HOME: configHomeWithMachine() });
    const session = await sessionByTag(claudeTag);
    expect(session.metadata.value).toMatchObject({ path: '/work/app', host: hostname(), machineId: MACHINE_ID });
    expect(session.lifecycle.state).toBe('ended');

    const peer = await connectMachine(hub.url, hub.tokens.machine, { machineId: MACHINE_ID, host: hostname(), roots: ['/work'] });
    const response = await fetch(`${hub.url}/api/sessions/${session.sid}/continue`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.tokens.operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'carry on' }),
    });
    expect(response.status).toBe(202);
    expect(peer.received[0]).toMatchObject({ event: 'machine-spawn', payload: { path: '/work/app', resume: { sid: session.sid, tokenKey: 'claudeSessionId', token: claudeTag } } });
  });

  it('reports the host alone where no runner is installed', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'session-hub-config-'));
    configDirs.push(empty);
    await sendHooks('claude', claude.slice(0, 2), { ...env(), XDG_CONFIG_HOME: empty });
    const session = await sessionByTag(claudeTag);
    expect(session.metadata.value.host).toBe(hostname());
    expect(session.metadata.value).not.toHaveProperty('machineId');
  });
});
