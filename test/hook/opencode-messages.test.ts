/**
 * OpenCode (docs/messages.md): the plugin `hook install opencode` writes runs the real bridge for each
 * plugin hook; at `session.idle` the bridge prints the person's queued texts (`{ prompt }`) and the
 * plugin sends them with the client OpenCode hands plugins, `client.session.prompt` (opencode.ai/docs/sdk).
 * The client here records the calls: it stands for OpenCode, not for anything of ours.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { getFlavor } from '../../shared/flavors.js';
import type { Message } from '../../shared/protocol/messages.js';
import { opencodePlugin } from '../../hub/hook/opencode-plugin.js';
import type { TestHub } from '../helpers/hub.js';
import { fixture, useBridgeHub } from './run-cli.js';
import { loadOpencodePlugin } from './opencode-plugin-host.js';

let hub: TestHub;
const bridge = useBridgeHub((started) => (hub = started.hub));
const BRIDGE = resolve(import.meta.dirname, '../../dist/hook-bridge.cjs');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  for (const key of Object.keys(bridge.env())) delete process.env[key];
});

describe('OpenCode plugin', () => {
  it('at session.idle, queued messages go to client.session.prompt as the next user message; none queued: no call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opencode-plugin-'));
    dirs.push(dir);
    const file = join(dir, 'session-hub.js');
    writeFileSync(file, opencodePlugin(getFlavor('opencode')!, [process.execPath, BRIDGE, 'opencode']));
    Object.assign(process.env, bridge.env());
    const prompts: unknown[] = [];
    const client = { session: { prompt: async (request: unknown) => void prompts.push(request) } };
    const hooks = await loadOpencodePlugin(file, { directory: '/work/app', client });
    const calls = fixture('agents/opencode-plugin-calls.json') as unknown as { hook: string; args: unknown[] }[];
    const created = calls.find((c) => c.hook === 'event' && (c.args[0] as { event: { type: string } }).event.type === 'session.created')!;
    const idle = calls.find((c) => c.hook === 'event' && (c.args[0] as { event: { type: string } }).event.type === 'session.idle')!;
    const tag = 'ses_7a1b2c3d4e5fOPENCODE01';

    await hooks.event!(...created.args);
    await expect.poll(async () => (await bridge.get<{ sessions: { tag: string }[] }>('/api/sessions?limit=500')).sessions.some((s) => s.tag === tag), { timeout: 20_000, interval: 200 }).toBe(true);
    await hooks.event!(...idle.args);
    await new Promise((r) => setTimeout(r, 1500));
    expect(prompts).toEqual([]);

    const session = await bridge.sessionByTag(tag);
    const response = await fetch(`${hub.url}/api/sessions/${session.sid}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.tokens.operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Now add a test for it.' }),
    });
    expect(response.status).toBe(201);
    await hooks.event!(...idle.args);
    await expect.poll(() => prompts.length, { timeout: 20_000, interval: 100 }).toBe(1);
    expect(prompts[0]).toEqual({ path: { id: tag }, body: { parts: [{ type: 'text', text: 'Now add a test for it.' }] } });
    const messages = (await bridge.get<{ messages: Message[] }>(`/api/sessions/${session.sid}/messages`)).messages;
    expect(messages[0]).toMatchObject({ state: 'delivered', via: 'hook:session.idle' });
  });
});
