/**
 * `session-hub hook install <flavor> --write` for the five agents it can wire, each into a temporary
 * project, then the agent's real payloads (fixtures naming their sources) run through the command
 * line the written configuration holds, delivered as that agent delivers them (stdin; Codex: the last
 * argument; OpenCode: calls into the written plugin), into a real hub: the session, its turns and
 * activities are checked there. Also: merging with the user's file (a diff shown, a backup kept) and
 * refusing a file it cannot merge safely, untouched.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import { runCli } from '../helpers/cli.js';
import { fixture, useBridgeHub } from './run-cli.js';
import { runOpencodePluginProcess } from './opencode-plugin-host.js';

const { env, get, sessionByTag } = useBridgeHub();
let project: string;
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), 'session-hub-project-'));
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

const install = (flavor: string, file: string, ...extra: string[]) => runCli(['hook', 'install', flavor, '--write', '--file', file, ...extra]);

/** Runs a program as the agent would, with the hook environment; resolves when it exits. */
function run(argv: readonly string[], options: { stdin?: string; extraArg?: string }): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, [...argv.slice(1), ...(options.extraArg !== undefined ? [options.extraArg] : [])], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env() },
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('close', resolve);
    if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  });
}
/** A hook command line from a JSON configuration, run by a shell as the agent runs it, the payload on stdin. */
const runShellHook = (command: string, payload: unknown) => run(['sh', '-c', command], { stdin: JSON.stringify(payload) });

async function turnsOf(tag: string): Promise<TurnWithActivity[]> {
  const session = await sessionByTag(tag);
  return get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
}

type SettingsHooks = Record<string, { matcher?: string; hooks: { command: string }[] }[]>;

describe('hook install --write, then the agent’s real payloads through the installed command', () => {
  it('Claude Code: .claude/settings.json', async () => {
    const file = join(project, '.claude', 'settings.json');
    expect((await install('claude', file)).code).toBe(0);
    const { hooks } = JSON.parse(readFileSync(file, 'utf8')) as { hooks: SettingsHooks };
    const session = fixture('claude-session.json');
    for (const payload of session) {
      const entries = hooks[payload.hook_event_name as string]!;
      expect(await runShellHook(entries.at(-1)!.hooks[0]!.command, payload)).toBe(0);
    }
    const turns = await turnsOf(session[0]!.session_id as string);
    expect(turns.map((t) => [t.prompt, t.status, t.activities.length])).toEqual([
      ['Add a --verbose flag to the CLI', 'completed', 3],
      ['Now document it in the README', 'completed', 0],
    ]);
  });

  it('Gemini CLI: .gemini/settings.json', async () => {
    const file = join(project, '.gemini', 'settings.json');
    expect((await install('gemini', file)).code).toBe(0);
    const { hooks } = JSON.parse(readFileSync(file, 'utf8')) as { hooks: SettingsHooks };
    // Gemini CLI reads a hook's timeout in milliseconds (0.61.0: "Hook timed out after 10ms" when written in seconds)
    for (const entries of Object.values(hooks)) expect((entries[0]!.hooks[0] as { timeout?: number }).timeout).toBe(10_000);
    const payloads = ['gemini-before-agent.json', 'gemini-after-agent.json'].map((name) => (JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'attention', name), 'utf8')) as { payload: Record<string, unknown> }).payload);
    for (const payload of payloads) expect(await runShellHook(hooks[payload.hook_event_name as string]![0]!.hooks[0]!.command, payload)).toBe(0);
    const turns = await turnsOf(payloads[0]!.session_id as string);
    expect(turns.map((t) => [t.prompt, t.status])).toEqual([['Go ahead', 'completed']]);
  });

  it('Cursor: .cursor/hooks.json, { version: 1, hooks: { event: [{ command }] } }; shell, edit and MCP tools', async () => {
    const file = join(project, '.cursor', 'hooks.json');
    expect((await install('cursor', file)).code).toBe(0);
    const config = JSON.parse(readFileSync(file, 'utf8')) as { version: number; hooks: Record<string, { command: string }[]> };
    expect(config.version).toBe(1);
    const payloads = fixture('agents/cursor-session.json');
    for (const payload of payloads) expect(await runShellHook(config.hooks[payload.hook_event_name as string]![0]!.command, payload)).toBe(0);
    const session = await sessionByTag('7d1c2a10-cursor-0002');
    expect(session.metadata.value).toMatchObject({ path: '/work/app', cursorSessionId: '7d1c2a10-cursor-0002' });
    const [turn] = await turnsOf('7d1c2a10-cursor-0002');
    expect(turn).toMatchObject({ prompt: 'Fix the bug in main.ts', status: 'completed' });
    expect(turn!.activities.map((a) => [a.tool, a.input, a.output])).toEqual([
      ['Shell', 'npm test', '1 failing'],
      ['Edit', { file_path: '/work/app/main.ts', edits: [{ old_string: 'const foo = 1', new_string: 'const foo = 2' }] }, null],
      ['database_query', '{"query": "SELECT * FROM users"}', '{"rows": 3}'],
    ]);
  });

  it('Codex before hooks (--notify): config.toml notify, the payload as the last argument; merged into the user’s TOML, comments kept', async () => {
    const file = join(project, '.codex', 'config.toml');
    mkdirSync(join(project, '.codex'));
    const mine = '# my Codex settings\nmodel = "gpt-5-codex"\n\n[mcp_servers.docs]\ncommand = "docs-server" # local\n';
    writeFileSync(file, mine);
    const result = await install('codex', file, '--notify');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\+ notify = \[/m);
    const text = readFileSync(file, 'utf8');
    // the user's text stays as it was, the notify line comes before the first table
    expect(text.startsWith('# my Codex settings\nmodel = "gpt-5-codex"\n\n# session-hub')).toBe(true);
    expect(text.endsWith('[mcp_servers.docs]\ncommand = "docs-server" # local\n')).toBe(true);
    const backups = readdirSync(join(project, '.codex')).filter((n) => n.startsWith('config.toml.bak-'));
    expect(backups.map((n) => readFileSync(join(project, '.codex', n), 'utf8'))).toEqual([mine]);
    const config = parseToml(text) as { notify: string[]; model: string };
    expect(config.model).toBe('gpt-5-codex');

    for (const payload of fixture('agents/codex-notify.json')) expect(await run(config.notify, { extraArg: JSON.stringify(payload) })).toBe(0);
    const tag = 'b5f6c1c2-1111-2222-3333-444455556666';
    const session = await sessionByTag(tag);
    expect(session.metadata.value).toMatchObject({ path: '/Users/example/project', codexSessionId: tag });
    expect((await turnsOf(tag)).map((t) => [t.prompt, t.status, t.response])).toEqual([
      ['Rename `foo` to `bar` and update the callsites.', 'completed', 'Rename complete and verified `cargo build` succeeds.'],
      ['Now run the tests.', 'completed', 'All 42 tests pass.'],
    ]);
    // installing again changes nothing
    expect((await install('codex', file, '--notify')).stdout).toContain('nothing changed');
  });

  it('--notify is refused, naming the agents that have one, for an agent without a notification program', async () => {
    const result = await install('claude', join(project, 'settings.json'), '--notify');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--notify is for agents with a notification program \(codex\), not Claude Code/);
  });

  it('OpenCode: a plugin in .opencode/plugins that runs the bridge for each plugin hook, in order; at the process exit what is queued still goes, after the call running, and the session ends', async () => {
    const file = join(project, '.opencode', 'plugins', 'session-hub.js');
    expect((await install('opencode', file)).code).toBe(0);
    // OpenCode's process: the plugin spawns the bridge with its environment; it exits right after the
    // last call (as \`opencode run\` does after its session.idle), bridge calls still running and queued
    const calls = fixture('agents/opencode-plugin-calls.json') as unknown as { hook: string; args: unknown[] }[];
    expect(await runOpencodePluginProcess(file, '/work/app', calls, env())).toBe(0);
    const tag = 'ses_7a1b2c3d4e5fOPENCODE01';
    await expect.poll(async () => (await sessionByTag(tag).catch(() => undefined))?.activity, { timeout: 15_000, interval: 250 }).toBe('ended');
    const [turn] = await turnsOf(tag);
    expect(turn!.status).toBe('completed');
    expect(turn).toMatchObject({ prompt: 'List the files' });
    expect(turn!.activities.map((a) => [a.tool, a.toolUseId, a.status, a.input])).toEqual([['bash', 'call_01', 'done', { command: 'ls', description: 'List files' }]]);
  });
});

describe('hook install refuses what it cannot merge safely, and leaves it untouched', () => {
  const cases: [string, string, string, RegExp, ...string[]][] = [
    ['claude', '.claude/settings.json', '{\n  // my settings\n  "model": "opus"\n}\n', /not plain JSON \(it has comments/],
    ['cursor', '.cursor/hooks.json', '{ "version": 1, "hooks": ', /not plain JSON/],
    ['codex', '.codex/hooks.json', '{ "hooks": ', /not plain JSON/],
    ['codex', '.codex/config.toml', 'model = "o3"\n[broken\n', /not valid TOML/, '--notify'],
    ['codex', '.codex/config.toml', 'notify = ["python3", "/home/me/notify.py"]\n', /already has notify = \["python3", "\/home\/me\/notify.py"\]; Codex runs one notify program/, '--notify'],
    ['opencode', '.opencode/plugins/session-hub.js', 'export const Mine = async () => ({})\n', /was not written by session-hub/],
  ];
  for (const [flavor, name, text, message, ...extra] of cases) {
    it(`${flavor}: ${JSON.stringify(text.slice(0, 30))}`, async () => {
      const file = join(project, name);
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, text);
      const result = await install(flavor, file, ...extra);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(readFileSync(file, 'utf8')).toBe(text);
      expect(readdirSync(join(file, '..')).filter((n) => n.includes('.bak-'))).toEqual([]);
    });
  }

  it('a flavor whose hooks are not verified: says plainly it does not know how to wire it', async () => {
    const result = await runCli(['hook', 'install', 'kimi']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/does not know how to wire Kimi CLI's hooks/);
    expect(existsSync(join(project, '.kimi'))).toBe(false);
  });
});
