/**
 * The page's pure modules for a tool line (issue 34 point 8): the diff a file tool's input describes
 * (hub/dashboard/diff.js) and a tool's own time apart from its wait for approval (tool-timing.js).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const DASHBOARD = join(import.meta.dirname, '..', '..', 'hub', 'dashboard');
type Line = { kind: string; text: string };
const diff = (await import(pathToFileURL(join(DASHBOARD, 'diff.js')).href)) as { editDiff(tool: string, input: unknown): Line[] | null; lineDiff(a: string, b: string): Line[] };
const timing = (await import(pathToFileURL(join(DASHBOARD, 'tool-timing.js')).href)) as {
  toolTiming(activity: Record<string, unknown>, approvals: Record<string, unknown>[], now: number): { ownMs: number | null; runningMs: number | null; waitMs: number | null; approval: unknown };
};
const marks = (lines: Line[] | null) => lines?.map((l) => `${l.kind}:${l.text}`);

describe('editDiff', () => {
  it('MultiEdit: each edit, a gap between', () => {
    const lines = diff.editDiff('MultiEdit', { file_path: 'a', edits: [{ old_string: 'a', new_string: 'b' }, { old_string: 'x\ny', new_string: 'x' }] });
    expect(marks(lines)).toEqual(['del:a', 'add:b', 'gap:⋯', 'ctx:x', 'del:y']);
  });
  it('no diff for a tool that changes no file, or an input without the fields', () => {
    expect(diff.editDiff('Bash', { command: 'ls' })).toBeNull();
    expect(diff.editDiff('Edit', { file_path: 'a' })).toBeNull();
    expect(diff.editDiff('Edit', null)).toBeNull();
  });
  it('a side past 400 lines: all out, then all in, no alignment searched', () => {
    const many = Array.from({ length: 401 }, (_, i) => `line ${i}`).join('\n');
    const lines = diff.lineDiff(many, 'new');
    expect(lines).toHaveLength(402);
    expect(lines.at(-1)).toEqual({ kind: 'add', text: 'new' });
  });
});

describe('toolTiming', () => {
  const activity = { toolUseId: 'toolu_1', tool: 'Bash', input: { command: 'ls', description: 'list' }, at: 1_000, endedAt: 40_000 };
  // Claude Code's PermissionRequest names no tool_use_id: the tool and the same input, keys in another order
  const approval = { toolUseId: null, tool: 'Bash', input: { description: 'list', command: 'ls' }, createdAt: 1_200, decidedAt: 38_200, status: 'allowed' };
  it('the wait is the approval\'s, the tool\'s own time the rest', () => {
    expect(timing.toolTiming(activity, [approval], 50_000)).toMatchObject({ ownMs: 2_000, waitMs: 37_000, runningMs: null });
  });
  it('no approval of that call: no wait (another input, or opened after the tool ended)', () => {
    expect(timing.toolTiming(activity, [{ ...approval, input: { command: 'rm -rf /' } }], 50_000)).toMatchObject({ ownMs: 39_000, waitMs: null });
    expect(timing.toolTiming(activity, [{ ...approval, createdAt: 41_000 }], 50_000).waitMs).toBeNull();
  });
  it('still waiting: the wait so far, and no own time yet', () => {
    expect(timing.toolTiming({ ...activity, endedAt: null }, [{ ...approval, decidedAt: null, status: 'pending' }], 5_200)).toMatchObject({ ownMs: null, waitMs: 4_000, runningMs: 200 });
  });
});
