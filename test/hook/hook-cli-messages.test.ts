/**
 * issue 22.3: what the hook and the CLI tell a person. A hook call with an unknown flavor or with
 * no session id says so (stderr, `hook status`) and still exits 0; `hook status` and `doctor`
 * report the present (a refusal is history once later deliveries succeed); `hook retry-refused`
 * sends refused events once the token is fixed; `hook install` ends naming the variables the
 * agent needs and how to check them.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import { runCli } from '../helpers/cli.js';
import type { TestHub } from '../helpers/hub.js';
import { fixture, hubSpool, sendHooks, useBridgeHub } from './run-cli.js';

let hub: TestHub;
let spoolDir: string;
const bridge = useBridgeHub((started) => ({ hub, spoolDir } = started));
const claude = fixture('claude-session.json');
const tag = claude[0]!.session_id as string;
const status = () => runCli(['hook', 'status'], { env: { SESSION_HUB_SPOOL_DIR: spoolDir } });

describe('a hook call that is wrong in itself', () => {
  it('an unknown flavor: exit 0, stderr names it and the known ones, hook status shows it', async () => {
    const call = await runCli(['hook', 'claud'], { stdin: JSON.stringify(claude[0]), env: bridge.env() });
    expect(call).toMatchObject({ code: 0, stdout: '' });
    expect(call.stderr).toContain('unknown flavor "claud" (known: claude,');
    const shown = await status();
    expect(shown.code).toBe(1);
    expect(shown.stdout).toContain('hook calls that sent nothing:');
    expect(shown.stdout).toContain('claud: unknown flavor "claud"');
  });

  it('no session id: exit 0, stderr names the field, hook status shows it; a later delivery makes it history', async () => {
    const { session_id: _omitted, ...payload } = claude[0]!;
    const call = await runCli(['hook', 'claude'], { stdin: JSON.stringify(payload), env: bridge.env() });
    expect(call).toMatchObject({ code: 0, stdout: '' });
    expect(call.stderr).toContain('the payload has no "session_id"');
    const shown = await status();
    expect(shown.code).toBe(1);
    expect(shown.stdout).toContain('claude: the payload has no "session_id"');
    expect(shown.stdout).not.toContain('last delivery');

    await sendHooks('claude', [claude[0]!], bridge.env());
    const later = await status();
    expect(later.code).toBe(0);
    expect(later.stdout).toContain('hook calls that sent nothing (history: deliveries since succeeded)');
  });
});

describe('a refused token, then the fixed one', () => {
  it('hook status reports the present; retry-refused sends the refused events with the token set now', async () => {
    const wrong = { ...bridge.env(), SESSION_HUB_TOKEN: hub.tokens.dashboard };
    await sendHooks('claude', claude.slice(0, 2), wrong);
    const refused = await status();
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('rejected: 2 event(s) in rejected-claude.jsonl, newest');
    expect(refused.stdout).toContain('session-hub hook retry-refused');

    // the token is fixed: later deliveries succeed, the refusal is history
    await sendHooks('claude', [{ ...claude[0], session_id: 'another' }], bridge.env());
    const fixed = await status();
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toContain('rejected: 2 event(s) in rejected-claude.jsonl (history: deliveries since succeeded)');
    expect(fixed.stdout).toContain('last error (history: deliveries since succeeded)');
    const doctor = await runCli(['doctor', '--data', hub.dataDir], { env: { SESSION_HUB_SPOOL_DIR: spoolDir } });
    expect(doctor.stdout).toContain('(history: deliveries since succeeded)');
    // the hub side still shows the refusals of the last 24 h (issue 34.6): doctor names them
    expect(doctor.stdout).toContain('Hook deliveries this hub refused (1 in the last 24 h)');

    // the refused events go to the hub with the fixed token
    const retried = await runCli(['hook', 'retry-refused'], { env: bridge.env() });
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain('put back 2 refused and 0 waiting claude event(s)');
    expect(retried.stdout).toContain('claude: sent 2 event(s); all delivered');
    expect(existsSync(join(hubSpool(wrong), 'rejected-claude.jsonl'))).toBe(false);
    const session = await bridge.sessionByTag(tag);
    const turns = await bridge.get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
    expect(turns.map((t) => t.prompt)).toEqual(['Add a --verbose flag to the CLI']);
    expect((await status()).stdout).not.toContain('rejected:');

    // nothing left: a second run says so
    expect((await runCli(['hook', 'retry-refused'], { env: bridge.env() })).stdout).toContain('nothing to put back');
  });

  it('retry-refused without SESSION_HUB_URL and SESSION_HUB_TOKEN says what to set (exit 2)', async () => {
    const call = await runCli(['hook', 'retry-refused'], { env: { SESSION_HUB_SPOOL_DIR: spoolDir } });
    expect(call.code).toBe(2);
    expect(call.stderr).toContain('set SESSION_HUB_URL and SESSION_HUB_TOKEN');
  });

  it('events written with no hub set wait, and retry-refused sends them once both are set', async () => {
    const [call] = await sendHooks('claude', [claude[0]!], { SESSION_HUB_SPOOL_DIR: spoolDir });
    expect(call!.stderr).toContain('SESSION_HUB_URL and SESSION_HUB_TOKEN must be set');
    expect((await status()).code).toBe(1);
    const retried = await runCli(['hook', 'retry-refused'], { env: bridge.env() });
    expect(retried.stdout).toContain('put back 0 refused and 1 waiting claude event(s)');
    expect((await bridge.sessionByTag(tag)).lifecycle.state).toBe('running');
    expect((await status()).code).toBe(0);
  });
});

describe('hook install', () => {
  it('ends by naming SESSION_HUB_URL and SESSION_HUB_TOKEN, whether each is set, and how to check', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'session-hub-install-'));
    try {
      const written = await runCli(['hook', 'install', 'claude', '--write', '--file', join(dir, 'settings.json')], { env: { SESSION_HUB_URL: 'http://127.0.0.1:3737' } });
      expect(written.code).toBe(0);
      expect(written.stdout).toContain('SESSION_HUB_URL    the hub, e.g. http://127.0.0.1:3737 — set here (http://127.0.0.1:3737)');
      expect(written.stdout).toContain('SESSION_HUB_TOKEN  an agent token (session-hub token create --role agent) — NOT set in this shell');
      expect(written.stdout).toContain('session-hub hook status');
      // the printed configuration stays clean JSON on stdout; the note goes to stderr
      const preview = await runCli(['hook', 'install', 'claude'], {});
      expect(() => JSON.parse(preview.stdout) as unknown).not.toThrow();
      expect(preview.stderr).toContain('SESSION_HUB_TOKEN');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
