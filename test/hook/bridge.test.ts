import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ListSessionsResponse } from '../../shared/protocol/http.js';
import type { SessionSnapshot, TurnWithActivity } from '../../shared/protocol/session.js';
import type { TestHub } from '../helpers/hub.js';
import { runCli } from '../helpers/cli.js';
import { Spool } from '../../hub/hook/spool.js';
import { deadUrl, fixture, gatedUrl, hubSpool, sendHooks, useBridgeHub } from './run-cli.js';

let hub: TestHub;
let spoolDir: string;
const { env, get, sessionByTag } = useBridgeHub((started) => ({ hub, spoolDir } = started));

const claude = fixture('claude-session.json');
const claudeTag = claude[0]!.session_id as string;

function expectClaudeSession(session: SessionSnapshot, turns: TurnWithActivity[]): void {
  expect(session.flavor).toBe('claude');
  expect(session.metadata.value).toMatchObject({ path: '/work/app', claudeSessionId: claudeTag });
  expect(session.lifecycle).toMatchObject({ state: 'ended', lastRun: { status: 'success' } });
  expect(session.currentTurn).toBeNull();
  expect(turns.map((t) => [t.kind, t.prompt, t.status, t.response, t.activities.length])).toEqual([
    ['prompt', 'Add a --verbose flag to the CLI', 'completed', 'Added --verbose; tests pass.', 3],
    ['prompt', 'Now document it in the README', 'completed', 'Documented the flag.', 0],
  ]);
  expect(turns[0]!.activities.map((a) => [a.tool, a.toolUseId])).toEqual([
    ['Read', 'toolu_01A'],
    ['Edit', 'toolu_01B'],
    ['Bash', 'toolu_01C'],
  ]);
  expect(turns[0]!.activities[2]!.input).toEqual({ command: 'npm test', description: 'Run tests' });
}

describe('session-hub hook claude', () => {
  it('records a whole Claude Code session: turns, tools and lifecycle', async () => {
    const results = await sendHooks('claude', claude.slice(0, 6), env());
    for (const result of results) expect(result).toMatchObject({ code: 0, stdout: '' });
    // between turns the session is running, with the run live
    const midway = await sessionByTag(claudeTag);
    expect(midway.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });

    await sendHooks('claude', claude.slice(6), env());
    const session = await sessionByTag(claudeTag);
    expectClaudeSession(session, await get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`));
    expect(existsSync(join(hubSpool(env()), 'spool-claude.jsonl'))).toBe(false);
  });

  it('spools while the hub is down and delivers everything later, in order, exactly once', async () => {
    // the hub's address answers nothing for a while (a restart), then comes back
    const gate = await gatedUrl(hub.url);
    try {
      await gate.close();
      const spoolFile = join(hubSpool(env(gate.url)), 'spool-claude.jsonl');
      const offline = await sendHooks('claude', claude.slice(0, 4), env(gate.url));
      for (const result of offline) expect(result.code).toBe(0);
      // spooled as the agent sent them (the hub maps them), each with its firing time and its seq
      const spooled = readFileSync(spoolFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { payload: { hook_event_name: string }; seq: number; firedAt: number });
      expect(spooled.map((e) => e.payload.hook_event_name)).toEqual(['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'PostToolUse']);
      expect(spooled.map((e) => e.seq)).toEqual([0, 1, 2, 3]);
      expect(spooled.map((e) => e.firedAt)).toEqual([...spooled.map((e) => e.firedAt)].sort((a, b) => a - b));
      const { sessions } = await get<ListSessionsResponse>('/api/sessions');
      expect(sessions).toHaveLength(0);

      // the hub is back: the next hook delivers the spool first, then itself
      await gate.open();
      const spoolBeforeCrash = readFileSync(spoolFile, 'utf8');
      await sendHooks('claude', claude.slice(4, 5), env(gate.url));
      expect(existsSync(spoolFile)).toBe(false);

      // a delivery whose spool rewrite was lost (crash after sending) re-sends the same events: no duplicates
      writeFileSync(spoolFile, spoolBeforeCrash);
      await sendHooks('claude', claude.slice(5), env(gate.url));

      const session = await sessionByTag(claudeTag);
      expectClaudeSession(session, await get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`));
      // one run only: the re-delivered session-start was a duplicate by its event id
      const history = await get<{ history: unknown[] }>(`/api/sessions/${session.sid}/history`);
      expect(history.history).toHaveLength(1);
    } finally {
      await gate.close();
    }
  });

  it('keeps every event when several hook processes spool at once', async () => {
    const down = await deadUrl();
    const tools = Array.from({ length: 6 }, (_, i) => ({ ...claude[2], tool_use_id: `toolu_par_${i}` }));
    const results = await Promise.all(tools.map((payload) => runCli(['hook', 'claude'], { stdin: JSON.stringify(payload), env: env(down) })));
    for (const result of results) expect(result.code).toBe(0);
    // read as the spool's next holder reads it: a call that could not have the lock within its
    // budget (a loaded machine) left its event in a part file, which that holder appends first
    const spool = new Spool(hubSpool(env(down)), 'claude');
    const read = await spool.locked(10_000, () => spool.read());
    const events = read!.value as unknown as { payload: { tool_use_id: string }; seq: number }[];
    expect(events.map((e) => e.payload.tool_use_id).sort()).toEqual(tools.map((t) => t.tool_use_id).sort());
    // one seq each, taken under the lock: the spool's order
    expect(events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('sets a damaged spool or state file aside, says so on stderr, and still delivers', async () => {
    const dir = hubSpool(env());
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'state-claude.json'), '{ not json');
    writeFileSync(join(dir, 'spool-claude.jsonl'), 'torn line {\n');
    const result = await runCli(['hook', 'claude'], { stdin: JSON.stringify(claude[0]), env: env() });
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(result.stderr).toContain('state-claude.json was unreadable');
    expect(result.stderr).toContain('unreadable spool line');
    expect(readFileSync(join(dir, 'state-claude.json.corrupt'), 'utf8')).toBe('{ not json');
    expect(readFileSync(join(dir, 'spool-claude.jsonl.corrupt'), 'utf8')).toBe('torn line {\n');
    expect((await sessionByTag(claudeTag)).lifecycle.state).toBe('running');
  });

  it('exits 0 without output for unreadable or unmapped payloads', async () => {
    const garbage = await runCli(['hook', 'claude'], { stdin: 'not json', env: env() });
    expect(garbage).toMatchObject({ code: 0, stdout: '' });
    // mapping is the hub's: an unmapped hook is sent, answered `ignored`, and leaves the spool
    const unmapped = await runCli(['hook', 'claude'], { stdin: JSON.stringify({ ...claude[0], hook_event_name: 'TeammateIdle' }), env: env() });
    expect(unmapped).toMatchObject({ code: 0, stdout: '' });
    expect((await get<ListSessionsResponse>('/api/sessions')).sessions).toHaveLength(0);
    expect(existsSync(join(hubSpool(env()), 'spool-claude.jsonl'))).toBe(false);
  });
});

describe('session-hub hook hermes', () => {
  it('treats the per-turn on_session_end as a turn boundary and ends at on_session_finalize', async () => {
    const hermes = fixture('hermes-session.json');
    const tag = hermes[0]!.session_id as string;
    await sendHooks('hermes', hermes.slice(0, 8), env());
    const running = await sessionByTag(tag);
    expect(running.flavor).toBe('hermes');
    expect(running.metadata.value).toMatchObject({ path: '/work/svc', hermesSessionId: tag });
    expect(running.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });

    await sendHooks('hermes', hermes.slice(8), env());
    const session = await sessionByTag(tag);
    expect(session.lifecycle).toMatchObject({ state: 'ended', lastRun: { status: 'success' } });
    const turns = await get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
    // the second pre_llm_call of the first turn is the same prompt: recorded once
    expect(turns.map((t) => [t.prompt, t.status, t.activities.map((a) => a.tool)])).toEqual([
      ['List the failing tests', 'completed', ['terminal']],
      ['Fix them', 'completed', ['patch']],
    ]);
    expect(turns[0]!.activities[0]).toMatchObject({ input: { command: 'pytest -q' }, output: '2 failed, 40 passed' });
  });
});

describe('session-hub hook install', () => {
  const BUNDLE = resolve(import.meta.dirname, '../../dist/hook-bridge.cjs');
  const command = `node ${JSON.stringify(BUNDLE)} claude`;
  type Block = Record<string, { matcher?: string; hooks: { command: string; async?: boolean }[] }[]>;

  it('prints the Claude Code hooks block for every hook event in the registry: synchronous (a -p run kills async ones), running the bundle', async () => {
    const result = await runCli(['hook', 'install', 'claude']);
    expect(result.code).toBe(0);
    const { hooks } = JSON.parse(result.stdout) as { hooks: Block };
    expect(Object.keys(hooks).sort()).toEqual(['Notification', 'PermissionRequest', 'PostCompact', 'PostToolBatch', 'PostToolUse', 'PostToolUseFailure', 'PreCompact', 'PreToolUse', 'SessionEnd', 'SessionStart', 'Stop', 'StopFailure', 'SubagentStart', 'SubagentStop', 'UserPromptSubmit']);
    expect(hooks.PostToolUse![0]).toEqual({ matcher: '*', hooks: [{ type: 'command', command, timeout: 10 }] });
    expect(hooks.PreToolUse![0]).toEqual({ matcher: '*', hooks: [{ type: 'command', command, timeout: 10 }] });
    // Claude Code kills async hooks still running when a -p run ends (test/agents/claude-headless.test.ts): none is async
    for (const event of Object.keys(hooks)) expect(hooks[event]![0]!.hooks[0]!.async).toBeUndefined();
    // the agent reads PermissionRequest's answer: synchronous, every tool, a timeout above the bridge's 55 s wait
    expect(hooks.PermissionRequest![0]).toEqual({ matcher: '*', hooks: [{ type: 'command', command, timeout: 3608 }] });
  });

  it('Gemini CLI runs every hook synchronously: no async written', async () => {
    const { hooks } = JSON.parse((await runCli(['hook', 'install', 'gemini'])).stdout) as { hooks: Block };
    for (const entries of Object.values(hooks)) expect(entries[0]!.hooks[0]!.async).toBeUndefined();
  });

  it('--write merges into settings.json, keeps the user settings and hooks, replaces an older bridge hook, and is idempotent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'session-hub-install-'));
    const file = join(dir, '.claude', 'settings.json');
    const mine = { type: 'command', command: 'my-linter --fix' };
    const older = { type: 'command', command: 'session-hub hook claude', timeout: 10 };
    const original = {
      model: 'opus',
      permissions: { allow: ['Bash(npm test)'] },
      hooks: { PostToolUse: [{ matcher: 'Edit', hooks: [mine] }, { matcher: '*', hooks: [older] }], Notification: [{ hooks: [{ type: 'command', command: 'notify-send hi' }] }] },
    };
    await runCli(['hook', 'install', 'claude', '--write', '--file', file]).catch(() => undefined); // creates the dir
    writeFileSync(file, JSON.stringify(original));

    expect((await runCli(['hook', 'install', 'claude', '--write', '--file', file])).code).toBe(0);
    const once = readFileSync(file, 'utf8');
    const second = await runCli(['hook', 'install', 'claude', '--write', '--file', file]);
    expect(second.stdout).toContain('nothing changed');
    expect(readFileSync(file, 'utf8')).toBe(once);

    const settings = JSON.parse(once) as typeof original & { hooks: Block };
    expect(settings.model).toBe('opus');
    expect(settings.permissions).toEqual(original.permissions);
    // the user's own hooks stay; the older bridge hook (no async) is replaced, never doubled
    expect(settings.hooks.Notification!.map((e) => e.hooks[0]!.command)).toEqual(['notify-send hi', command]);
    expect(settings.hooks.PostToolUse!.map((e) => e.hooks[0]!.command)).toEqual(['my-linter --fix', command]);
    for (const event of ['SessionStart', 'UserPromptSubmit', 'Stop', 'SessionEnd']) {
      expect(settings.hooks[event]!.map((e) => e.hooks[0]!.command)).toEqual([command]);
    }
    // PreToolUse: the async observer for every tool, then the synchronous entry for the tools that ask the person (docs/messages.md)
    expect(settings.hooks.PreToolUse!.map((e) => e.hooks[0]!.command)).toEqual([command, `${command} --ask`]);
    rmSync(dir, { recursive: true, force: true });
  });
});
