/**
 * The work, from the phone (issue 47, spec section 15), through a real hub process, a real runner
 * and the real Claude Code CLI (scripted model) changing a real git repository with a real bare
 * remote: changes, a file's diff, the files; every path escape refused; who may read and who may
 * write; a commit pushed to the remote with the machine's identity, nothing left after, a second
 * refused; no identity refused with nothing committed; a rejected push keeps the commit; a
 * repository config naming a program refused; worktree sessions whose files land in their worktree only.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunnerClient } from '../../shared/client/runner-client.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import type { ChangesResponse } from '../../shared/protocol/work.js';
import { startAnthropicServer, type ScriptedTurn } from '../agents/helpers/anthropic-server.js';
import type { ModelServer } from '../agents/helpers/model-server.js';
import { waitFor } from '../helpers/clients.js';
import { httpCall } from '../helpers/http-call.js';
import { TEST_TOKENS } from '../helpers/tokens.js';
import { claudeHome, type ClaudeHome } from '../runner/helpers/claude-home.js';
import { startHubAndRunner, type HubAndRunner } from '../runner/helpers/hub-and-runner.js';

let model: ModelServer;
let home: ClaudeHome;
let parts: HubAndRunner;
let repo: string;
let remote: string;
const script: ScriptedTurn = { tools: [], finalText: 'Done.' };
const IDENTITY = '[user]\n\tname = Machine Owner\n\temail = owner@machine.example\n';

const call = (method: string, path: string, body?: unknown, token?: string) => httpCall(parts.hub.url, method, path, { ...(body !== undefined ? { body } : {}), ...(token ? { token } : {}) });
const gitIn = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, HOME: home.home, GIT_CONFIG_NOSYSTEM: '1' } }).trim();
const snapshot = async (sid: string) => (await call('GET', `/api/sessions/${sid}`)).body as unknown as SessionSnapshot & { activity: string };
const metadataOf = async (sid: string) => (await snapshot(sid)).metadata.value as Record<string, unknown>;
const changes = async (sid: string) => (await call('GET', `/api/sessions/${sid}/changes`)).body as unknown as ChangesResponse;

/** Starts Claude Code on the machine with `tools` scripted, and waits for its turn to end. */
async function agentWrites(tools: ScriptedTurn['tools'], extra: Record<string, unknown> = {}): Promise<string> {
  script.tools = tools;
  const started = await call('POST', `/api/machines/${parts.machine.machineId}/sessions`, { flavor: 'claude', path: repo, prompt: 'write the file', permissionMode: 'acceptEdits', ...extra });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const sid = started.body.sid as string;
  await waitFor(async () => (await snapshot(sid)).activity === 'idle', 60_000, `the turn ends; runner:\n${parts.runner.output()}`);
  return sid;
}

beforeAll(async () => {
  model = await startAnthropicServer(script);
  home = claudeHome(model.url, ['project']);
  repo = home.dir;
  remote = join(home.root, 'remote.git');
  writeFileSync(join(home.home, '.gitconfig'), IDENTITY);
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  gitIn(repo, 'init', '-q', '-b', 'main');
  mkdirSync(join(repo, 'src'));
  writeFileSync(join(repo, 'src/app.ts'), 'export const app = 1;\n');
  writeFileSync(join(repo, '.gitignore'), '*.log\n');
  writeFileSync(join(repo, 'README.md'), '# Project\n');
  gitIn(repo, 'add', '.');
  gitIn(repo, 'commit', '-q', '-m', 'first');
  gitIn(repo, 'remote', 'add', 'origin', remote);
  gitIn(repo, 'push', '-q', '-u', 'origin', 'main');
  parts = await startHubAndRunner({ roots: [home.root], env: { ...home.env, XDG_CONFIG_HOME: home.root, GIT_CONFIG_NOSYSTEM: '1' } });
}, 90_000);

afterAll(async () => {
  await parts?.stop();
  await model?.close();
  home?.remove();
});

describe('the work of a session, from the hub (real runner, real Claude Code, real git)', () => {
  let sid: string;

  it('lists what the agent changed, shows a diff and the files; ignored files are left out', async () => {
    sid = await agentWrites([{ name: 'Write', input: { file_path: join(repo, 'src/hello.ts'), content: 'export const hello = "world";\nexport const n = 2;\n' } }]);
    expect(readFileSync(join(repo, 'src/hello.ts'), 'utf8')).toContain('hello');
    writeFileSync(join(repo, 'src/app.ts'), 'export const app = 2;\nexport const more = true;\n');
    writeFileSync(join(repo, 'debug.log'), 'ignored\n');

    const listed = await changes(sid);
    expect(listed.repo).toMatchObject({ root: repo, branch: 'main', upstream: 'origin/main', ahead: 0, behind: 0 });
    expect(listed.repo?.head).toBe(gitIn(repo, 'rev-parse', 'HEAD'));
    expect(listed.files).toEqual([
      { path: 'src/app.ts', status: 'modified', additions: 2, deletions: 1, binary: false },
      { path: 'src/hello.ts', status: 'untracked', additions: 2, deletions: 0, binary: false },
    ]);

    const one = (await call('GET', `/api/sessions/${sid}/changes/diff?file=src/hello.ts`)).body;
    expect(one).toMatchObject({ file: 'src/hello.ts', truncated: false });
    expect(one.diff).toContain('+export const hello = "world";');
    const whole = (await call('GET', `/api/sessions/${sid}/changes/diff`)).body;
    expect(whole.diff).toContain('-export const app = 1;');
    expect(whole.diff).toContain('+export const n = 2;');

    const top = (await call('GET', `/api/sessions/${sid}/files`)).body;
    expect(top).toMatchObject({ path: '.', kind: 'dir' });
    expect((top.entries as { name: string; kind: string }[]).slice(0, 2)).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'src', kind: 'dir' })]));
    const file = (await call('GET', `/api/sessions/${sid}/files?path=src/hello.ts`)).body;
    expect(file).toMatchObject({ path: 'src/hello.ts', kind: 'file', binary: false, truncated: false, text: 'export const hello = "world";\nexport const n = 2;\n' });
  });

  it('refuses every path outside the roots, and a file that is not a change', async () => {
    symlinkSync('/etc', join(repo, 'escape'));
    try {
      const viaLink = await call('GET', `/api/sessions/${sid}/files?path=escape/hostname`);
      expect(viaLink.status).toBe(400);
      expect(viaLink.body.error).toBe('path_outside_roots');
      expect(JSON.stringify(viaLink.body)).not.toContain(readFileSync('/etc/hostname', 'utf8').trim() || 'never-empty');
      const climbing = await call('GET', `/api/sessions/${sid}/files?path=${encodeURIComponent('../../../../etc/passwd')}`);
      expect(climbing.status).toBe(400);
      expect(climbing.body.error).toBe('path_outside_roots');
      const absolute = await call('GET', `/api/sessions/${sid}/files?path=${encodeURIComponent('/etc/passwd')}`);
      expect(absolute.status).toBe(400);
      expect(absolute.body.error).toBe('invalid_payload');
      const notAChange = await call('GET', `/api/sessions/${sid}/changes/diff?file=${encodeURIComponent('../outside.txt')}`);
      expect(notAChange.status).toBe(404);
      expect(String(notAChange.body.message)).toContain('is not a changed file');
    } finally {
      rmSync(join(repo, 'escape'));
    }
  });

  it('reads for the roles that read sessions, never an agent or machine token; writes for operator and admin only', async () => {
    expect((await call('GET', `/api/sessions/${sid}/changes`, undefined, TEST_TOKENS.dashboard)).status).toBe(200);
    expect((await call('GET', `/api/sessions/${sid}/files`, undefined, TEST_TOKENS.agent)).status).toBe(403);
    expect((await call('GET', `/api/sessions/${sid}/changes`, undefined, TEST_TOKENS.machine)).status).toBe(403);
    expect((await call('POST', `/api/sessions/${sid}/commit`, { message: 'x' }, TEST_TOKENS.dashboard)).status).toBe(403);
    expect((await call('GET', `/api/sessions/${sid}/changes`, undefined, TEST_TOKENS.otherDashboard)).status).toBe(404);
  });

  it('refuses a repository whose own config names a program, running nothing', async () => {
    const marker = join(home.root, 'pwned');
    gitIn(repo, 'config', 'core.fsmonitor', `touch ${marker}`);
    try {
      const refused = await call('GET', `/api/sessions/${sid}/changes`);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toBe('repository_config_unsafe');
      expect(String(refused.body.message)).toContain('core.fsmonitor');
      expect((await call('POST', `/api/sessions/${sid}/commit`, { message: 'never' })).body.error).toBe('repository_config_unsafe');
      expect(existsSync(marker)).toBe(false);
    } finally {
      gitIn(repo, 'config', '--unset', 'core.fsmonitor');
    }
  });

  it('refuses an empty message and a file that is not a change, committing nothing', async () => {
    const head = gitIn(repo, 'rev-parse', 'HEAD');
    const empty = await call('POST', `/api/sessions/${sid}/commit`, { message: '   ' });
    expect(empty.status).toBe(400);
    const stranger = await call('POST', `/api/sessions/${sid}/commit`, { message: 'x', files: ['README.md'] });
    expect(stranger.status).toBe(400);
    expect(String(stranger.body.message)).toContain('README.md is not a change');
    expect(gitIn(repo, 'rev-parse', 'HEAD')).toBe(head);
  });

  it('commits and pushes with the machine\'s identity: the remote has it, nothing is left, a second commit is refused', async () => {
    const committed = await call('POST', `/api/sessions/${sid}/commit`, { message: 'Add hello', push: true });
    expect(committed.status, JSON.stringify(committed.body)).toBe(201);
    expect(committed.body).toMatchObject({ branch: 'main', pushed: true, remote: 'origin', files: ['src/app.ts', 'src/hello.ts'] });
    const hash = committed.body.commit as string;
    expect(gitIn(remote, 'log', '-1', '--format=%H %an <%ae> %s', 'main')).toBe(`${hash} Machine Owner <owner@machine.example> Add hello`);
    expect((await changes(sid)).files).toEqual([]);
    const again = await call('POST', `/api/sessions/${sid}/commit`, { message: 'again' });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('nothing_to_commit');
    // recorded on the session, with who asked
    const meta = (await metadataOf(sid)) as Record<string, { commit?: string; byToken?: string; pushed?: boolean }>;
    expect(meta.lastCommit).toMatchObject({ commit: hash, pushed: true });
    expect(meta.lastCommit?.byToken).toBeTruthy();
  });

  it('without a git identity: refused naming the command, nothing committed', async () => {
    writeFileSync(join(repo, 'src/app.ts'), 'export const app = 3;\n');
    rmSync(join(home.home, '.gitconfig'));
    try {
      const head = gitIn(repo, 'rev-parse', 'HEAD');
      const refused = await call('POST', `/api/sessions/${sid}/commit`, { message: 'no identity' });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toBe('git_identity_missing');
      expect(String(refused.body.message)).toContain('git config --global user.name');
      expect(gitIn(repo, 'rev-parse', 'HEAD')).toBe(head);
      expect((await changes(sid)).files.map((f) => f.path)).toEqual(['src/app.ts']);
    } finally {
      writeFileSync(join(home.home, '.gitconfig'), IDENTITY);
    }
  });

  it('a rejected push keeps the commit and says git\'s words', async () => {
    const other = join(home.root, 'other-clone');
    execFileSync('git', ['clone', '-q', remote, other]);
    writeFileSync(join(other, 'elsewhere.txt'), 'moved on\n');
    gitIn(other, 'add', '.');
    gitIn(other, '-c', 'user.name=Other', '-c', 'user.email=o@x', 'commit', '-q', '-m', 'the remote moves');
    gitIn(other, 'push', '-q');
    const before = gitIn(repo, 'rev-parse', 'HEAD');
    const refused = await call('POST', `/api/sessions/${sid}/commit`, { message: 'local work', push: true });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('push_rejected');
    expect(String(refused.body.message)).toMatch(/rejected/);
    const after = gitIn(repo, 'rev-parse', 'HEAD');
    expect(after).not.toBe(before);
    expect(gitIn(repo, 'log', '-1', '--format=%s')).toBe('local work');
    expect(String(refused.body.message)).toContain(after.slice(0, 12));
    expect((await changes(sid)).repo).toMatchObject({ ahead: 1 });
  });

  it('runs no hook of the repository on a commit from the hub, and commits a file named like an option as a file', async () => {
    const marker = join(home.root, 'hook-ran');
    writeFileSync(join(repo, '.git/hooks/pre-commit'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    writeFileSync(join(repo, '.git/hooks/pre-push'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    writeFileSync(join(repo, '--no-verify'), 'a file, not an option\n');
    try {
      const committed = await call('POST', `/api/sessions/${sid}/commit`, { message: 'odd name', files: ['--no-verify'] });
      expect(committed.status, JSON.stringify(committed.body)).toBe(201);
      expect(gitIn(repo, 'show', '--name-only', '--format=', 'HEAD')).toBe('--no-verify');
      expect(existsSync(marker)).toBe(false);
    } finally {
      rmSync(join(repo, '.git/hooks/pre-commit'));
      rmSync(join(repo, '.git/hooks/pre-push'));
    }
  });

  it('refuses a commit while a turn is open', async () => {
    let release!: () => void;
    script.hold = () => new Promise<void>((resolve) => (release = resolve));
    script.tools = [{ name: 'Write', input: { file_path: join(repo, 'src/held.ts'), content: 'held\n' } }];
    try {
      expect((await call('POST', `/api/sessions/${sid}/messages`, { text: 'one more' })).status).toBe(201);
      await waitFor(async () => (await snapshot(sid)).activity === 'working', 30_000, 'the turn opens');
      const refused = await call('POST', `/api/sessions/${sid}/commit`, { message: 'too early' });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toBe('session_running');
    } finally {
      script.hold = undefined;
      release?.();
    }
    await waitFor(async () => (await snapshot(sid)).activity === 'idle', 60_000, 'the turn ends');
    expect((await call('POST', `/api/sessions/${sid}/stop`)).status).toBe(202);
  });
});

describe('worktrees: an agent per branch, files in its own worktree only', () => {
  it('two agents in two worktrees of one repository never touch each other\'s files; removed once ended, the branch kept', async () => {
    const worktreeOf = (branch: string) => join(`${repo}.worktrees`, branch);
    const first = await agentWrites([{ name: 'Write', input: { file_path: join(worktreeOf('agent-b'), 'src/b.ts'), content: 'b\n' } }], { worktree: { branch: 'agent-b' } });
    const second = await agentWrites([{ name: 'Write', input: { file_path: join(worktreeOf('agent-c'), 'src/c.ts'), content: 'c\n' } }], { worktree: { branch: 'agent-c' } });

    const meta = await metadataOf(first);
    expect(meta.worktree).toMatchObject({ path: worktreeOf('agent-b'), branch: 'agent-b', repoRoot: repo, base: gitIn(repo, 'rev-parse', 'HEAD') });
    expect(meta.path).toBe(worktreeOf('agent-b'));
    expect(existsSync(join(worktreeOf('agent-b'), 'src/b.ts'))).toBe(true);
    expect(existsSync(join(worktreeOf('agent-b'), 'src/c.ts'))).toBe(false);
    expect(existsSync(join(worktreeOf('agent-c'), 'src/b.ts'))).toBe(false);
    expect(existsSync(join(repo, 'src/b.ts')) || existsSync(join(repo, 'src/c.ts'))).toBe(false);
    expect((await changes(first)).files.map((f) => f.path)).toEqual(['src/b.ts']);
    expect((await changes(second)).files.map((f) => f.path)).toEqual(['src/c.ts']);
    expect((await changes(first)).repo?.branch).toBe('agent-b');

    const taken = await call('POST', `/api/machines/${parts.machine.machineId}/sessions`, { flavor: 'claude', path: repo, worktree: { branch: 'agent-b' } });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toBe('branch_exists');

    const running = await call('DELETE', `/api/sessions/${first}/worktree`);
    expect(running.status).toBe(409);
    expect(running.body.error).toBe('session_running');
    expect((await call('POST', `/api/sessions/${first}/stop`)).status).toBe(202);
    await waitFor(async () => (await snapshot(first)).activity === 'ended', 30_000, 'the session ends');
    const dirty = await call('DELETE', `/api/sessions/${first}/worktree`);
    expect(dirty.status).toBe(409);
    expect(dirty.body.error).toBe('worktree_dirty');
    expect(existsSync(worktreeOf('agent-b'))).toBe(true);
    const removed = await call('DELETE', `/api/sessions/${first}/worktree?force=true`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body).toMatchObject({ branch: 'agent-b', removed: true });
    expect(existsSync(worktreeOf('agent-b'))).toBe(false);
    expect(gitIn(repo, 'branch', '--list', 'agent-b')).toContain('agent-b');
    expect(existsSync(join(worktreeOf('agent-c'), 'src/c.ts'))).toBe(true);
    expect((await metadataOf(first)).worktreeRemoved).toMatchObject({ branch: 'agent-b', force: true });
    expect((await call('POST', `/api/sessions/${second}/stop`)).status).toBe(202);
  });

  it('refuses a branch or base that git could read as an option, starting nothing', async () => {
    for (const worktree of [{ branch: '--upload-pack=touch /tmp/x' }, { base: '--output=/tmp/x' }, { branch: 'a..b' }]) {
      const refused = await call('POST', `/api/machines/${parts.machine.machineId}/sessions`, { flavor: 'claude', path: repo, worktree });
      expect(refused.status, JSON.stringify(worktree)).toBe(400);
      expect(refused.body.error).toBe('invalid_payload');
    }
  });

  it('never removes what a token wrote as a worktree but is not one: the repository itself stays', async () => {
    const client = await RunnerClient.connect({ url: parts.hub.url, token: TEST_TOKENS.runner });
    try {
      const { session } = await client.startSession({
        tag: 'forged-worktree',
        flavor: 'claude',
        source: 'startup',
        metadata: { path: repo, machineId: parts.machine.machineId, host: hostname(), worktree: { path: repo, branch: 'main', base: 'HEAD', repoRoot: repo } },
      });
      await client.endSession({ sid: session.sid, reason: 'completed' });
      const refused = await call('DELETE', `/api/sessions/${session.sid}/worktree?force=true`);
      expect(refused.status).toBe(404);
      expect(String(refused.body.message)).toContain('is not a worktree of');
      expect(existsSync(join(repo, '.git'))).toBe(true);
      expect(existsSync(join(repo, 'src/app.ts'))).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('refuses a worktree outside a repository, naming why', async () => {
    const plain = join(home.root, 'plain');
    mkdirSync(plain, { recursive: true });
    const refused = await call('POST', `/api/machines/${parts.machine.machineId}/sessions`, { flavor: 'claude', path: plain, worktree: {} });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('not_a_repository');
  });
});
