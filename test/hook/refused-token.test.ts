/**
 * A misconfigured hook says so: a dashboard (or unknown) token in the hook's environment is not
 * "hub unreachable". The events go to a bounded rejected file, stderr names cause and fix, Claude
 * Code's user hears it once per session (`systemMessage`), and `hook status` and `doctor` show it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ListSessionsResponse } from '../../shared/protocol/http.js';
import { runCli } from '../helpers/cli.js';
import type { TestHub } from '../helpers/hub.js';
import { fixture, hubSpool, sendHooks, useBridgeHub } from './run-cli.js';

let hub: TestHub;
let spoolDir: string;
const bridge = useBridgeHub((started) => ({ hub, spoolDir } = started));
const claude = fixture('claude-session.json');
const FIX = 'an agent token is needed: `session-hub token create --role agent`';

describe('a hook whose token the hub refuses', () => {
  it('a dashboard token: clear message, events in the rejected file, told once per session, shown by hook status and doctor', async () => {
    const env = { ...bridge.env(), SESSION_HUB_TOKEN: hub.tokens.dashboard };
    const [start, prompt] = await sendHooks('claude', claude.slice(0, 2), env);
    for (const call of [start!, prompt!]) {
      expect(call.code).toBe(0);
      expect(call.stderr).toContain('the hub refused SESSION_HUB_TOKEN (403 forbidden: this needs an agent or runner or machine or admin token; yours is a dashboard token)');
      expect(call.stderr).toContain(FIX);
      expect(call.stderr).not.toContain('unreachable');
    }
    // Claude Code shows `systemMessage` to its user: once for this session, not on every hook
    expect(JSON.parse(start!.stdout)).toEqual({ systemMessage: expect.stringContaining(FIX) as unknown });
    expect(prompt!.stdout).toBe('');
    const [other] = await sendHooks('claude', [{ ...claude[0], session_id: 'another-session' }], env);
    expect(JSON.parse(other!.stdout)).toMatchObject({ systemMessage: expect.stringContaining('not reported to the hub') as unknown });

    // kept aside, not spooled forever, no drainer retrying a token that cannot work
    const dir = hubSpool(env);
    const rejected = readFileSync(join(dir, 'rejected-claude.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { reason: string; event: { payload: { hook_event_name: string } } });
    expect(rejected.map((r) => r.event.payload.hook_event_name)).toEqual(['SessionStart', 'UserPromptSubmit', 'SessionStart']);
    expect(rejected[0]!.reason).toMatch(/^403 forbidden/);
    expect(existsSync(join(dir, 'spool-claude.jsonl'))).toBe(false);
    expect(existsSync(join(dir, 'drainer-claude.lock'))).toBe(false);
    expect((await (await fetch(`${hub.url}/api/sessions`, { headers: { authorization: `Bearer ${hub.tokens.dashboard}` } })).json() as ListSessionsResponse).sessions).toHaveLength(0);

    const status = await runCli(['hook', 'status'], { env: { SESSION_HUB_SPOOL_DIR: spoolDir } });
    expect(status.code).toBe(1);
    expect(status.stdout).toContain('rejected: 3 event(s) in rejected-claude.jsonl');
    expect(status.stdout).toContain(`fix: the hub refused SESSION_HUB_TOKEN`);

    const doctor = await runCli(['doctor', '--data', hub.dataDir], { env: { SESSION_HUB_SPOOL_DIR: spoolDir } });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`hook spool ${spoolDir}:`);
    expect(doctor.stdout).toContain('rejected: 3 event(s)');
    expect(doctor.stdout).toContain(FIX);
  });

  it('an unknown or revoked token: 401 named as such', async () => {
    const env = { ...bridge.env(), SESSION_HUB_TOKEN: 'revoked-token-0000' };
    const [call] = await sendHooks('claude', [claude[0]!], env);
    expect(call!.stderr).toContain('the hub does not know SESSION_HUB_TOKEN (unknown or revoked');
    expect(call!.stderr).toContain(FIX);
    expect(readFileSync(join(hubSpool(env), 'rejected-claude.jsonl'), 'utf8')).toContain('401 unauthorized');
  });
});
