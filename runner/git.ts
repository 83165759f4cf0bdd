/**
 * Git, for the work of spec section 15: the machine's own `git`, through simple-git (it spawns git
 * with an argument list, never a shell), with the machine's own identity and credentials. Every
 * call runs with the repository's hooks and fsmonitor switched off, and refuses a repository whose
 * own config names a program git would run: an agent can write `.git/config` with a file edit, and
 * a click on the page must never run what an agent wrote (docs/security.md, "The work").
 */
import { simpleGit, type SimpleGit } from 'simple-git';
import type { ChangedFile, CommitResponse, RepoState } from '../shared/protocol/work.js';

/** A refusal with its section 15 code; the runner's ack carries it to the person as is. */
export class GitRefused extends Error {
  constructor(
    readonly code: 'not_a_repository' | 'branch_exists' | 'nothing_to_commit' | 'git_identity_missing' | 'push_rejected' | 'worktree_dirty' | 'repository_config_unsafe' | 'invalid_payload' | 'not_found' | 'session_running',
    message: string,
  ) {
    super(message);
    this.name = 'GitRefused';
  }
}

/** Reads of the tree are bounded; a push may wait on the network. */
const READ_TIMEOUT_MS = 15_000;
const PUSH_TIMEOUT_MS = 120_000;

/**
 * Settings whose value is a program (or a file of settings) git would run or read. Found in the
 * repository's own config (local or worktree scope), they refuse every call: the machine's global
 * config is its owner's; the repository's may be an agent's.
 */
const PROGRAM_SETTINGS: readonly RegExp[] = [
  /^core\.(fsmonitor|hookspath|sshcommand|askpass|editor|pager|gitproxy|alternaterefscommand)$/,
  /^credential\.(.+\.)?helper$/,
  /^diff\.(external|.+\.(command|textconv))$/,
  /^filter\..+\.(clean|smudge|process)$/,
  /^merge\..+\.driver$/,
  /^(gpg|gpg\..+)\.program$/,
  /^(include|includeif\..+)\.path$/,
  /^protocol\..*allow$/,
  /^remote\..+\.(uploadpack|receivepack|proxy)$/,
  /^(sequence\.editor|uploadpack\.packobjectshook|http\.proxy)$/,
];

/** The environment of every git call: never a prompt (no terminal answers it), stable words. */
function gitEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || key.startsWith('SESSION_HUB_')) continue;
    // git's own variables: only those named (ALLOWED_ENVIRONMENT); EDITOR and PAGER never (nobody answers them)
    if ((key.startsWith('GIT_') && !ALLOWED_ENVIRONMENT.includes(key)) || key === 'EDITOR' || key === 'PAGER' || key === 'VISUAL') continue;
    env[key] = value;
  }
  return { ...env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', LANGUAGE: 'C', GCM_INTERACTIVE: 'never' };
}

/** The machine owner's own git settings from the environment (their ssh, their askpass), and ours. */
const ALLOWED_ENVIRONMENT = ['GIT_TERMINAL_PROMPT', 'GIT_OPTIONAL_LOCKS', 'GIT_CONFIG_NOSYSTEM', 'GIT_CONFIG_GLOBAL', 'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_ASKPASS', 'SSH_ASKPASS'];

/**
 * simple-git in strict mode: it refuses arguments and settings that run programs (our own two
 * switches, which turn such things off, are named), and passes on only the environment named here.
 */
function git(dir: string, timeoutMs = READ_TIMEOUT_MS): SimpleGit {
  return simpleGit({
    baseDir: dir,
    timeout: { block: timeoutMs },
    strict: true,
    allowConfig: ['core.fsmonitor', 'core.hooksPath'],
    allowEnvironment: ALLOWED_ENVIRONMENT,
    config: ['core.fsmonitor=false', 'core.hooksPath=/dev/null', 'core.quotePath=false'],
  }).env(gitEnv());
}

/** git's own words from a failed call, without simple-git's framing. */
function wordsOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.trim().slice(-2000);
}

/** The root of the repository holding `dir`, or null when it is in none. */
export async function repositoryOf(dir: string): Promise<string | null> {
  try {
    return (await git(dir).raw(['rev-parse', '--show-toplevel'])).trim() || null;
  } catch {
    return null;
  }
}

/** Refuses a repository whose own config names a program (PROGRAM_SETTINGS), naming the setting. */
export async function assertSafeConfig(root: string): Promise<void> {
  const listed = await git(root).raw(['config', '--list', '--show-scope', '-z']);
  const records = listed.split('\0');
  for (let i = 0; i + 1 < records.length; i += 2) {
    const scope = records[i]!;
    if (scope !== 'local' && scope !== 'worktree') continue;
    const key = records[i + 1]!.split('\n', 1)[0]!.toLowerCase();
    if (PROGRAM_SETTINGS.some((pattern) => pattern.test(key))) {
      throw new GitRefused('repository_config_unsafe', `the repository ${root} sets ${key} in its own config, a program git would run: the hub does not run git there; remove it (git config --unset ${key}) or work in a terminal`);
    }
  }
}

/** The branch, head, upstream and ahead/behind (git status --porcelain=v2 --branch). */
function repoStateOf(root: string, headers: string[]): RepoState {
  const state: RepoState = { root, branch: null, head: null, upstream: null, ahead: 0, behind: 0 };
  for (const line of headers) {
    const [, key, ...rest] = line.split(' ');
    const value = rest.join(' ');
    if (key === 'branch.oid' && value !== '(initial)') state.head = value;
    if (key === 'branch.head' && value !== '(detached)') state.branch = value;
    if (key === 'branch.upstream') state.upstream = value;
    if (key === 'branch.ab') {
      const [ahead, behind] = rest;
      state.ahead = Math.abs(Number(ahead));
      state.behind = Math.abs(Number(behind));
    }
  }
  return state;
}

const STATUS_LETTERS: Readonly<Record<string, ChangedFile['status']>> = { M: 'modified', T: 'modified', A: 'added', D: 'deleted', R: 'renamed', C: 'added', U: 'modified' };

/** `--name-status -z` and `--numstat -z` of `git diff <base> -M`, joined by path. */
function trackedChanges(nameStatus: string, numstat: string): ChangedFile[] {
  const counts = new Map<string, { additions: number; deletions: number; binary: boolean }>();
  const nums = numstat.split('\0');
  for (let i = 0; i < nums.length; i++) {
    const record = nums[i]!;
    if (record === '') continue;
    const [added, deleted, path] = record.split('\t');
    // a rename: the path fields follow as two records
    const name = path === '' ? nums[(i += 2)]! : path!;
    const binary = added === '-';
    counts.set(name, { additions: binary ? 0 : Number(added), deletions: binary ? 0 : Number(deleted), binary });
  }
  const files: ChangedFile[] = [];
  const names = nameStatus.split('\0');
  for (let i = 0; i + 1 < names.length; ) {
    const letter = names[i]!.charAt(0);
    if (letter === '') break;
    const status = STATUS_LETTERS[letter] ?? 'modified';
    const paired = letter === 'R' || letter === 'C';
    const oldPath = paired ? names[i + 1]! : undefined;
    const path = paired ? names[i + 2]! : names[i + 1]!;
    i += paired ? 3 : 2;
    const count = counts.get(path) ?? { additions: 0, deletions: 0, binary: false };
    files.push({ path, status, ...(letter === 'R' && oldPath !== undefined ? { oldPath } : {}), ...count });
  }
  return files;
}

/** The tree HEAD names, or the empty tree before the first commit. */
async function baseTree(repo: SimpleGit, head: string | null): Promise<string> {
  return head ?? (await repo.raw(['hash-object', '-t', 'tree', '/dev/null'])).trim();
}

export interface TreeStatus {
  repo: RepoState;
  tracked: ChangedFile[];
  /** Untracked files (not ignored), relative to the root; their counts are the caller's (files.ts reads them). */
  untracked: string[];
  base: string;
}

/** The working tree against HEAD: staged or not, untracked included, ignored not. */
export async function treeStatus(root: string): Promise<TreeStatus> {
  await assertSafeConfig(root);
  const repo = git(root);
  const status = await repo.raw(['status', '--porcelain=v2', '--branch', '--untracked-files=all', '-z']);
  const headers: string[] = [];
  const untracked: string[] = [];
  for (const record of status.split('\0')) {
    if (record.startsWith('# ')) headers.push(record);
    else if (record.startsWith('? ')) untracked.push(record.slice(2));
  }
  const state = repoStateOf(root, headers);
  const base = await baseTree(repo, state.head);
  const diffArgs = ['diff', base, '-M', '--no-ext-diff', '--no-textconv', '-z'];
  const [nameStatus, numstat] = await Promise.all([repo.raw([...diffArgs, '--name-status']), repo.raw([...diffArgs, '--numstat'])]);
  return { repo: state, tracked: trackedChanges(nameStatus, numstat), untracked, base };
}

/** The unified diff of tracked paths against `base` (`paths` empty: all), past `exclude` (files too large to show). */
export async function trackedDiff(root: string, base: string, paths: readonly string[], exclude: readonly string[] = []): Promise<string> {
  const pathspecs = [...paths.map((path) => `:(literal)${path}`), ...exclude.map((path) => `:(exclude,literal)${path}`)];
  return git(root).raw(['diff', base, '-M', '--no-ext-diff', '--no-textconv', '--no-color', '--', ...(pathspecs.length === 0 ? ['.'] : paths.length === 0 ? ['.', ...pathspecs] : pathspecs)]);
}

async function configValue(repo: SimpleGit, key: string): Promise<string | null> {
  try {
    return (await repo.raw(['config', '--get', key])).trim() || null;
  } catch {
    return null;
  }
}

/** Refuses a commit without `user.name` and `user.email`, naming the commands that set them. */
async function assertIdentity(repo: SimpleGit): Promise<void> {
  const [name, email] = await Promise.all([configValue(repo, 'user.name'), configValue(repo, 'user.email')]);
  if (name !== null && email !== null) return;
  const missing = [name === null ? 'user.name' : null, email === null ? 'user.email' : null].filter(Boolean).join(' and ');
  throw new GitRefused('git_identity_missing', `git on this machine has no ${missing}: set it once, in a terminal there: git config --global user.name "Your Name" && git config --global user.email you@example.com; nothing was committed`);
}

/**
 * Stages the paths (every path of a rename, deletions included), commits only them with `message`,
 * and with `push` pushes the branch to its upstream, else to `origin` under its own name, setting
 * the upstream. A rejected push keeps the commit: the refusal names it and says git's words.
 */
export async function commitPaths(root: string, input: { message: string; paths: readonly string[]; push: boolean }): Promise<CommitResponse> {
  await assertSafeConfig(root);
  const repo = git(root);
  await assertIdentity(repo);
  const pathspecs = input.paths.map((path) => `:(literal)${path}`);
  await repo.raw(['add', '--all', '--', ...pathspecs]);
  // `--only` with paths: what else is staged stays staged, out of this commit
  await repo.raw(['commit', '--no-verify', '--only', '--message', input.message, '--', ...pathspecs]);
  const commit = (await repo.raw(['rev-parse', 'HEAD'])).trim();
  const branch = (await repo.raw(['rev-parse', '--abbrev-ref', 'HEAD'])).trim();
  const onBranch = branch === 'HEAD' ? null : branch;
  const done: CommitResponse = { commit, branch: onBranch, files: [...input.paths], pushed: false };
  if (!input.push) return done;
  if (onBranch === null) throw new GitRefused('push_rejected', `committed ${commit.slice(0, 12)}; not pushed: HEAD is detached, there is no branch to push`);
  const remote = (await configValue(repo, `branch.${onBranch}.remote`)) ?? 'origin';
  const merge = await configValue(repo, `branch.${onBranch}.merge`);
  const remotes = (await repo.raw(['remote'])).split('\n').map((line) => line.trim()).filter(Boolean);
  if (!remotes.includes(remote)) throw new GitRefused('push_rejected', `committed ${commit.slice(0, 12)}; not pushed: the branch has no upstream and the repository no remote "${remote}"`);
  const target = merge ?? `refs/heads/${onBranch}`;
  try {
    await git(root, PUSH_TIMEOUT_MS).raw(['push', '--no-verify', ...(merge === null ? ['--set-upstream'] : []), '--', remote, `HEAD:${target}`]);
  } catch (error) {
    throw new GitRefused('push_rejected', `committed ${commit.slice(0, 12)} on ${onBranch}; the push to ${remote} was refused, the commit stays: ${wordsOf(error)}`);
  }
  if (merge === null) await repo.raw(['branch', `--set-upstream-to=${remote}/${onBranch}`, onBranch]).catch(() => undefined);
  return { ...done, pushed: true, remote };
}

/** Whether a local branch of that name exists (simple-git reads a silent non-zero exit as success: ask for output). */
async function branchExists(repo: SimpleGit, branch: string): Promise<boolean> {
  return (await repo.raw(['for-each-ref', '--format=%(refname)', `refs/heads/${branch}`])).trim() !== '';
}

/** A new worktree of `root` at `dir`, on a new branch from `base` (default HEAD); answers the base commit. */
export async function addWorktree(root: string, input: { dir: string; branch: string; base?: string }): Promise<string> {
  await assertSafeConfig(root);
  const repo = git(root);
  try {
    await repo.raw(['check-ref-format', '--branch', input.branch]);
  } catch {
    throw new GitRefused('invalid_payload', `worktree.branch: git does not accept ${input.branch} as a branch name`);
  }
  if (await branchExists(repo, input.branch)) throw new GitRefused('branch_exists', `a branch ${input.branch} exists in ${root} already: name another one`);
  let base: string;
  try {
    base = (await repo.raw(['rev-parse', '--verify', '--quiet', '--end-of-options', `${input.base ?? 'HEAD'}^{commit}`])).trim();
  } catch {
    base = '';
  }
  if (base === '') throw new GitRefused('invalid_payload', `worktree.base: ${input.base ?? 'HEAD'} names no commit in ${root}${input.base === undefined ? ' (the repository has no commit yet)' : ''}`);
  try {
    await repo.raw(['worktree', 'add', '-b', input.branch, '--', input.dir, base]);
  } catch (error) {
    throw new GitRefused('invalid_payload', `git could not make the worktree ${input.dir}: ${wordsOf(error)}`);
  }
  return base;
}

/** Linked worktrees of `root` (not the main one), by path. */
async function linkedWorktrees(repo: SimpleGit): Promise<Map<string, string | null>> {
  const listed = await repo.raw(['worktree', 'list', '--porcelain', '-z']);
  const found = new Map<string, string | null>();
  let first = true;
  let path: string | null = null;
  for (const record of [...listed.split('\0'), '']) {
    if (record.startsWith('worktree ')) path = record.slice('worktree '.length);
    if (record.startsWith('branch ') && path !== null && !first) found.set(path, record.slice('branch refs/heads/'.length));
    if (record === '' && path !== null) {
      if (!first && !found.has(path)) found.set(path, null);
      first = false;
      path = null;
    }
  }
  return found;
}

/** Removes a linked worktree of `root` (never its main one); refuses uncommitted changes unless `force`. The branch stays. */
export async function removeWorktree(root: string, input: { dir: string; force: boolean }): Promise<void> {
  await assertSafeConfig(root);
  const repo = git(root);
  const linked = await linkedWorktrees(repo);
  if (!linked.has(input.dir)) throw new GitRefused('not_found', `${input.dir} is not a worktree of ${root} (git worktree list): nothing was removed`);
  if (!input.force) {
    const dirty = (await git(input.dir).raw(['status', '--porcelain', '--untracked-files=all'])).trim();
    if (dirty !== '') throw new GitRefused('worktree_dirty', `the worktree ${input.dir} has uncommitted changes (${dirty.split('\n').length} files): commit them, or remove it with force`);
  }
  await repo.raw(['worktree', 'remove', ...(input.force ? ['--force'] : []), '--', input.dir]);
}

/** Undoes addWorktree for an agent that never started: the worktree and its new, unused branch go. */
export async function discardWorktree(root: string, input: { dir: string; branch: string }): Promise<void> {
  const repo = git(root);
  await repo.raw(['worktree', 'remove', '--force', '--', input.dir]);
  await repo.raw(['branch', '--delete', '--force', '--', input.branch]);
}
