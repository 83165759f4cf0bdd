/**
 * The runner's worktrees on a real repository (spec section 15), without a hub: made beside the
 * repository on a new branch at the same place inside it, refused where it would leave the roots,
 * and undone whole for an agent that never started (its branch would block the next try).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileRefused } from '../../runner/files.js';
import { discardSessionWorktree, prepareWorktree } from '../../runner/work.js';

let root: string;
let repo: string;
const git = (...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.name=T', '-c', 'user.email=t@x', ...args], { encoding: 'utf8' }).trim();

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'session-hub-worktree-')));
  repo = join(root, 'repo');
  mkdirSync(join(repo, 'pkg'), { recursive: true });
  writeFileSync(join(repo, 'pkg/a.txt'), 'a\n');
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'first');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('worktrees made by the runner', () => {
  it('makes <repo>.worktrees/<branch> from HEAD, the agent at the same place inside it', async () => {
    const made = await prepareWorktree(join(repo, 'pkg'), { branch: 'feature/x' }, [root]);
    expect(made.worktree).toEqual({ path: join(`${repo}.worktrees`, 'feature', 'x'), branch: 'feature/x', base: git('rev-parse', 'HEAD'), repoRoot: repo });
    expect(made.cwd).toBe(join(`${repo}.worktrees`, 'feature', 'x', 'pkg'));
    expect(existsSync(join(made.cwd, 'a.txt'))).toBe(true);
    expect(git('branch', '--list', 'feature/x')).toContain('feature/x');
  });

  it('undoes a worktree whose agent never started: directory and branch gone, the name free again', async () => {
    const made = await prepareWorktree(repo, { branch: 'agent-1' }, [root]);
    await discardSessionWorktree(made.worktree);
    expect(existsSync(made.worktree.path)).toBe(false);
    expect(git('branch', '--list', 'agent-1')).toBe('');
    await expect(prepareWorktree(repo, { branch: 'agent-1' }, [root])).resolves.toMatchObject({ worktree: { branch: 'agent-1' } });
  });

  it('refuses a repository that is a root itself: its worktrees would lie outside the roots', async () => {
    await expect(prepareWorktree(repo, { branch: 'agent-2' }, [repo])).rejects.toBeInstanceOf(FileRefused);
    expect(existsSync(`${repo}.worktrees`)).toBe(false);
  });
});
