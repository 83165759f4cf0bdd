/**
 * Issue 34 point 9, through the real CLI process with HOME and XDG_CONFIG_HOME in a temp dir:
 * `login <url>` checks the token and keeps hub and token (mode 0600); the hook bridge then needs no
 * exports (an exported variable still wins); `hook install claude --user --write` writes the user's
 * settings; a mistyped flavor is answered with the list and the closest name.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { hubReader } from '../hook/run-cli.js';

let hub: TestHub;
useTestHub((started) => (hub = started));
const { get } = hubReader(() => hub);

const homes: string[] = [];
afterEach(() => {
  for (const dir of homes.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh user: HOME, XDG_CONFIG_HOME and the hook spool, all in one temp dir. */
function freshUser(): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'session-hub-home-'));
  homes.push(home);
  return { HOME: home, XDG_CONFIG_HOME: join(home, 'xdg'), SESSION_HUB_SPOOL_DIR: join(home, 'spool') };
}

async function tagsOnHub(): Promise<string[]> {
  const { sessions } = await get<{ sessions: { tag: string }[] }>('/api/sessions?limit=500');
  return sessions.map((s) => s.tag);
}

describe('session-hub login and the user config', () => {
  it('keeps the hub and an agent token (0600); the hook bridge sends with them, no exports', async () => {
    const env = freshUser();
    // the token on stdin: in no process list
    const login = await runCli(['login', hub.url, '--token', '-'], { env, stdin: `${hub.tokens.agent}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toBe('');
    const file = join(env.XDG_CONFIG_HOME!, 'session-hub', 'config.json');
    expect(login.stdout).toContain(`kept ${hub.url} and an agent token of namespace "default" in ${file} (mode 0600)`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ url: hub.url, token: hub.tokens.agent });

    const tag = randomUUID();
    const hook = await runCli(['hook', 'claude'], { env, stdin: JSON.stringify({ hook_event_name: 'SessionStart', session_id: tag, cwd: '/tmp', source: 'startup' }) });
    expect(hook.code, hook.stderr).toBe(0);
    expect(await tagsOnHub()).toContain(tag);

    // an exported token wins over the kept one: a wrong one is refused, and the event does not arrive
    const other = randomUUID();
    const exported = await runCli(['hook', 'claude'], { env: { ...env, SESSION_HUB_TOKEN: 'not-a-token-of-this-hub' }, stdin: JSON.stringify({ hook_event_name: 'SessionStart', session_id: other, cwd: '/tmp', source: 'startup' }) });
    expect(exported.stderr).toContain('the hub does not know SESSION_HUB_TOKEN');
    expect(await tagsOnHub()).not.toContain(other);
  });

  it('refuses a token the hub does not know, or one the hooks route would refuse, keeping nothing', async () => {
    const env = freshUser();
    const unknown = await runCli(['login', hub.url, '--token', 'wrong-token-0001'], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('does not know this token (unknown, revoked or expired); nothing was kept');
    // only an agent token is kept: the agents' own tools can read the file (issue 45)
    for (const [role, token] of [['a dashboard', hub.tokens.dashboard], ['an admin', hub.tokens.admin], ['a machine', hub.tokens.machine], ['a runner', hub.tokens.runner], ['an operator', hub.tokens.operator]] as const) {
      const refused = await runCli(['login', hub.url], { env, stdin: token });
      expect(refused.code, role).toBe(1);
      expect(refused.stderr).toContain(`this is ${role} token: the hooks need an agent token`);
      expect(refused.stderr).toContain('session-hub token create --role agent; nothing was kept');
    }
    expect(existsSync(join(env.XDG_CONFIG_HOME!, 'session-hub', 'config.json'))).toBe(false);
    const badUrl = await runCli(['login', 'hub.example', '--token', hub.tokens.agent], { env });
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain('"hub.example" is not an http(s) URL');
  });

  it('--token TOKEN still works, with a warning that the process list shows it; no token at all names how to give one', async () => {
    const env = freshUser();
    const login = await runCli(['login', hub.url, '--token', hub.tokens.agent], { env });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain('warning: --token TOKEN shows the token to every user of this computer in the process list; give it on stdin instead');
    const none = await runCli(['login', hub.url], { env: freshUser(), stdin: '' });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no token: give an agent token on stdin');
  });

  it('hook install claude --user --write writes ~/.claude/settings.json; a mistyped flavor gets the list and a suggestion', async () => {
    const env = freshUser();
    const cwd = mkdtempSync(join(env.HOME!, 'project-'));
    const installed = await runCli(['hook', 'install', 'claude', '--user', '--write', '--command', 'session-hub'], { env, cwd });
    expect(installed.code, installed.stderr).toBe(0);
    const settings = JSON.parse(readFileSync(join(env.HOME!, '.claude', 'settings.json'), 'utf8')) as { hooks: Record<string, unknown> };
    expect(Object.keys(settings.hooks)).toContain('Stop');
    expect(existsSync(join(cwd, '.claude'))).toBe(false);

    const typo = await runCli(['hook', 'install', 'claud'], { env });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown flavor "claud"; did you mean "claude"? The flavors: claude,');
    const noUserFile = await runCli(['hook', 'install', 'opencode', '--user', '--write', '--command', 'session-hub'], { env, cwd });
    expect(noUserFile.code).toBe(2);
    expect(noUserFile.stderr).toContain('has no user-level hook file session-hub writes');
  });
});
