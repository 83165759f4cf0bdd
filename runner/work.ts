/**
 * The work of a session's directory (spec section 15), as the machine runner answers the hub:
 * changes against HEAD, a diff, files, a commit (and push), worktrees. Every path the hub sends is
 * checked against this runner's roots here, whatever the hub checked (the hub relays what tokens
 * wrote); git is runner/git.ts, files runner/files.ts.
 */
import { mkdir, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { WORK_MAX_FILES, WORK_TEXT_CAP_BYTES, type ChangedFile, type CommitResponse, type DiffResponse, type FilesResponse, type SessionWorktree, type WorkTreeChanges } from '../shared/protocol/work.js';
import { FileRefused, lineCount, readHead, readPlace } from './files.js';
import { addWorktree, commitPaths, discardWorktree, GitRefused, removeWorktree, repositoryOf, trackedDiff, treeStatus } from './git.js';
import { isUnder, resolveUnderRoots } from './roots.js';

/** Past this many changed lines, a file is left out of the whole diff (its own diff is still answered). */
const WHOLE_DIFF_MAX_FILE_LINES = 50_000;

/** The session's directory, resolved and under the roots; else a refusal the ack carries. */
function placeOf(path: string, roots: readonly string[]): string {
  const resolved = resolveUnderRoots(path, roots);
  if (!resolved.ok) throw new FileRefused(resolved.code, resolved.message);
  return resolved.path;
}

interface Changes extends WorkTreeChanges {
  base: string;
}

/** What git lists, kept to the files under the roots (a repository may reach above a root). */
async function changesIn(dir: string, roots: readonly string[]): Promise<Changes> {
  const root = await repositoryOf(dir);
  if (root === null) return { repo: null, files: [], truncated: false, base: '' };
  const status = await treeStatus(root);
  const inside = (path: string) => roots.some((r) => isUnder(join(root, path), r));
  const files: ChangedFile[] = status.tracked.filter((file) => inside(file.path));
  for (const path of status.untracked.filter(inside)) {
    if (files.length > WORK_MAX_FILES) break;
    const head = await readHead(join(root, path)).catch(() => undefined);
    if (!head) continue;
    files.push({ path, status: 'untracked', additions: head.binary || head.text === null ? 0 : lineCount(head.text), deletions: 0, binary: head.binary });
  }
  files.sort((a, b) => a.path.localeCompare(b.path));
  return { repo: status.repo, files: files.slice(0, WORK_MAX_FILES), truncated: files.length > WORK_MAX_FILES, base: status.base };
}

export async function changesOf(path: string, roots: readonly string[]): Promise<WorkTreeChanges> {
  const { base: _base, ...changes } = await changesIn(placeOf(path, roots), roots);
  return changes;
}

/** At most WORK_TEXT_CAP_BYTES, cut at a line's end. */
function capped(text: string): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= WORK_TEXT_CAP_BYTES) return { text, truncated: false };
  const cut = bytes.subarray(0, WORK_TEXT_CAP_BYTES).toString('utf8');
  return { text: cut.slice(0, cut.lastIndexOf('\n') + 1), truncated: true };
}

/** An untracked file as git would show it added. */
async function untrackedDiff(root: string, path: string): Promise<string> {
  const head = await readHead(join(root, path));
  const header = `diff --git a/${path} b/${path}\nnew file mode 100644\n--- /dev/null\n+++ b/${path}\n`;
  if (head.binary || head.text === null) return `diff --git a/${path} b/${path}\nnew file mode 100644\nBinary files /dev/null and b/${path} differ\n`;
  const lines = head.text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) return `diff --git a/${path} b/${path}\nnew file mode 100644\n`;
  const noNewline = !head.text.endsWith('\n') && !head.truncated ? '\n\\ No newline at end of file' : '';
  return `${header}@@ -0,0 +1,${lines.length} @@\n${lines.map((line) => `+${line}`).join('\n')}${noNewline}\n`;
}

/** One changed file's unified diff, or (no `file`) every change's, capped. */
export async function diffOf(path: string, file: string | undefined, roots: readonly string[]): Promise<DiffResponse> {
  const changes = await changesIn(placeOf(path, roots), roots);
  const root = changes.repo?.root;
  if (root === undefined) throw new GitRefused('not_a_repository', `${path} is not in a git repository: there is no diff to show`);
  if (file !== undefined) {
    const changed = changes.files.find((entry) => entry.path === file);
    if (!changed) throw new GitRefused('not_found', `${file} is not a changed file of ${root} (GET …/changes lists them)`);
    const text = changed.status === 'untracked' ? await untrackedDiff(root, file) : await trackedDiff(root, changes.base, [...(changed.oldPath !== undefined ? [changed.oldPath] : []), changed.path]);
    const shown = capped(text);
    return { file, diff: shown.text, truncated: shown.truncated };
  }
  const tracked = changes.files.filter((entry) => entry.status !== 'untracked');
  const huge = tracked.filter((entry) => entry.additions + entry.deletions > WHOLE_DIFF_MAX_FILE_LINES).map((entry) => entry.path);
  const wanted = tracked.filter((entry) => !huge.includes(entry.path)).flatMap((entry) => [...(entry.oldPath !== undefined ? [entry.oldPath] : []), entry.path]);
  let text = wanted.length === 0 ? '' : await trackedDiff(root, changes.base, wanted);
  for (const entry of changes.files.filter((e) => e.status === 'untracked')) {
    if (Buffer.byteLength(text) > WORK_TEXT_CAP_BYTES) break;
    text += await untrackedDiff(root, entry.path);
  }
  const shown = capped(text);
  return { file: null, diff: shown.text, truncated: shown.truncated || huge.length > 0 };
}

/** A file or directory relative to the session's directory. */
export async function filesOf(path: string, file: string | undefined, roots: readonly string[]): Promise<FilesResponse> {
  return readPlace(placeOf(path, roots), file ?? '.', roots);
}

/** Commits the named changes (default: every one listed), and pushes when asked. */
export async function commitIn(path: string, input: { message: string; files: readonly string[] | undefined; push: boolean }, roots: readonly string[]): Promise<CommitResponse> {
  const changes = await changesIn(placeOf(path, roots), roots);
  const root = changes.repo?.root;
  if (root === undefined) throw new GitRefused('not_a_repository', `${path} is not in a git repository: there is nothing to commit`);
  if (changes.files.length === 0) throw new GitRefused('nothing_to_commit', `${root} has no change against HEAD: nothing was committed`);
  const chosen = input.files === undefined ? changes.files : input.files.map((name) => {
    const found = changes.files.find((entry) => entry.path === name);
    if (!found) throw new GitRefused('invalid_payload', `files: ${name} is not a change of ${root} (GET …/changes lists them): nothing was committed`);
    return found;
  });
  const paths = [...new Set(chosen.flatMap((entry) => [...(entry.oldPath !== undefined ? [entry.oldPath] : []), entry.path]))];
  return commitPaths(root, { message: input.message, paths, push: input.push });
}

/**
 * A new worktree for an agent to start in (`<repo>.worktrees/<branch>`, beside the repository,
 * under the same root); the agent's directory is the same place inside it as `cwd` in the repository.
 */
export async function prepareWorktree(cwd: string, request: { branch: string; base?: string }, roots: readonly string[]): Promise<{ cwd: string; worktree: SessionWorktree }> {
  const root = await repositoryOf(cwd);
  if (root === null) throw new GitRefused('not_a_repository', `${cwd} is not in a git repository: a worktree needs one (start without "new worktree", or git init there)`);
  const dir = join(`${root}.worktrees`, ...request.branch.split('/'));
  if (!roots.some((r) => isUnder(dir, r) && isUnder(root, r))) {
    throw new FileRefused('path_outside_roots', `the worktree would be made at ${dir}, outside the roots of this machine (the repository ${root} is a root itself, or lies above one): restart the runner with a root that holds the repository's parent`);
  }
  if (await stat(dir).then(() => true, () => false)) throw new GitRefused('branch_exists', `${dir} exists already: name another branch`);
  await mkdir(dirname(dir), { recursive: true });
  const base = await addWorktree(root, { dir, branch: request.branch, ...(request.base !== undefined ? { base: request.base } : {}) });
  const inside = relative(root, cwd);
  return { cwd: inside === '' ? dir : join(dir, ...inside.split(sep)), worktree: { path: dir, branch: request.branch, base, repoRoot: root } };
}

/** Removes a session's worktree: both paths checked under the roots, git checks it is a linked worktree of the repository. */
export async function removeSessionWorktree(input: { path: string; repoRoot: string; force: boolean }, roots: readonly string[]): Promise<void> {
  const repoRoot = placeOf(input.repoRoot, roots);
  const dir = placeOf(input.path, roots);
  await removeWorktree(repoRoot, { dir, force: input.force });
}

/** A worktree made for an agent that did not start: nothing of it is left (its branch has no commit of its own). */
export async function discardSessionWorktree(worktree: SessionWorktree): Promise<void> {
  await discardWorktree(worktree.repoRoot, { dir: worktree.path, branch: worktree.branch });
}
