/**
 * issue 26.8: an event goes only to the hub and token it was written for. Events spooled while a
 * hub was away wait in that hub-and-token's own spool: a hook naming another hub, or the same hub
 * with another namespace's token, or a token the hub refuses, neither sends them nor moves them
 * aside. The token itself is never written to the spool dir (the spool is keyed by a hash).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ListSessionsResponse } from '../../shared/protocol/http.js';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import { closeTestHubsAfterEach, startTestHub, type TestHub } from '../helpers/hub.js';
import { runCli } from '../helpers/cli.js';
import { fixture, gatedUrl, hubSpool, sendHooks, useBridgeHub } from './run-cli.js';

let hub: TestHub;
let spoolDir: string;
const bridge = useBridgeHub((started) => ({ hub, spoolDir } = started));
closeTestHubsAfterEach();
const claude = fixture('claude-session.json');
const [start, prompt, , , , stop] = claude as [Record<string, unknown>, Record<string, unknown>, unknown, unknown, unknown, Record<string, unknown>];
const as = (session: string, payload: Record<string, unknown>) => ({ ...payload, session_id: session });

async function tagsIn(url: string, dashboardToken: string): Promise<string[]> {
  const response = await fetch(`${url}/api/sessions`, { headers: { authorization: `Bearer ${dashboardToken}` } });
  return ((await response.json()) as ListSessionsResponse).sessions.map((s) => s.tag ?? '').sort();
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));
}

describe('one spool per hub and token', () => {
  it('spooled events wait for their own hub and token: not another hub, not another namespace, not moved aside by a refused token', { timeout: 60_000 }, async () => {
    const gate = await gatedUrl(hub.url);
    const other = await startTestHub();
    try {
      // the hub is away: session X's start and prompt wait in (hub, runner)'s spool; its drainer sleeps long
      await gate.close();
      const mine = { ...bridge.env(gate.url), SESSION_HUB_DRAIN_BACKOFF_MS: '600000' };
      await sendHooks('claude', [as('X', start), as('X', { ...prompt, prompt: 'first' })], mine);

      // a hook of another hub: only its own event goes there
      await sendHooks('claude', [as('Y', start)], { ...mine, SESSION_HUB_URL: other.url });
      expect(await tagsIn(other.url, other.tokens.dashboard)).toEqual(['Y']);

      // the hub is back; a hook with another namespace's token: X's events do not go there
      await gate.open();
      await sendHooks('claude', [as('Z', start)], { ...mine, SESSION_HUB_TOKEN: hub.tokens.otherRunner });
      expect(await tagsIn(hub.url, hub.tokens.otherDashboard)).toEqual(['Z']);

      // a hook with a token the hub refuses: only its own event is set aside
      const refused = { ...mine, SESSION_HUB_TOKEN: hub.tokens.dashboard };
      await sendHooks('claude', [as('W', start)], refused);
      const rejected = readFileSync(join(hubSpool(refused), 'rejected-claude.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: { tag: string } });
      expect(rejected.map((r) => r.event.tag)).toEqual(['W']);
      expect(await tagsIn(hub.url, hub.tokens.dashboard)).toEqual([]);

      // X's own hook delivers X's events, in order, where they were written for
      await sendHooks('claude', [as('X', { ...stop, last_assistant_message: 'done' })], mine);
      expect(await tagsIn(hub.url, hub.tokens.dashboard)).toEqual(['X']);
      const session = await bridge.sessionByTag('X');
      const turns = await bridge.get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
      expect(turns.map((t) => [t.prompt, t.status, t.response])).toEqual([['first', 'completed', 'done']]);

      // no token on disk, in any file of the spool dir
      const files = filesUnder(spoolDir);
      expect(files.length).toBeGreaterThan(5);
      for (const file of files) {
        const text = readFileSync(file, 'utf8');
        for (const token of [hub.tokens.runner, hub.tokens.otherRunner, hub.tokens.dashboard]) expect(text.includes(token), `${file} holds a token`).toBe(false);
      }
      // hook status names each hub, never a token
      const status = await runCli(['hook', 'status'], { env: { SESSION_HUB_SPOOL_DIR: spoolDir } });
      expect(status.stdout).toContain(`hub ${gate.url} (token #`);
      expect(status.stdout).toContain(`hub ${other.url} (token #`);
      expect(status.stdout).not.toContain(hub.tokens.runner);
    } finally {
      await gate.close();
    }
  });
});
