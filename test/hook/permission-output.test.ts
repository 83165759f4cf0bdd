/**
 * The stdout a Claude Code PermissionRequest hook prints to answer for the user, against the
 * documented format (code.claude.com/docs/en/hooks, "PermissionRequest decision control"):
 * hookSpecificOutput.hookEventName "PermissionRequest", decision.behavior "allow" | "deny", and
 * decision.message for "deny" only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { permissionRequestOutput, permissionRequestStdout } from '../../shared/permission-output.js';

describe('permissionRequestOutput', () => {
  it('allows as the documented example does (no message: Claude Code reads it for deny only)', () => {
    expect(permissionRequestOutput({ decision: 'allow', message: 'looks fine' })).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    });
  });

  it('denies with the message that tells Claude why, or without one', () => {
    expect(permissionRequestOutput({ decision: 'deny', message: 'not on main' })).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'not on main' } },
    });
    for (const message of [undefined, null, '']) {
      expect(permissionRequestOutput({ decision: 'deny', message })).toEqual({
        hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny' } },
      });
    }
  });

  it('prints exactly one line of JSON that parses back to the same answer', () => {
    const text = permissionRequestStdout({ decision: 'deny', message: 'quote " and\nnewline' });
    expect(text.endsWith('\n')).toBe(true);
    expect(text.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(text)).toEqual(permissionRequestOutput({ decision: 'deny', message: 'quote " and\nnewline' }));
  });

  it('imports nothing, so a bundled bridge can use it without zod or the protocol package', () => {
    const source = readFileSync(join(import.meta.dirname, '..', '..', 'shared', 'permission-output.ts'), 'utf8');
    expect(source).not.toMatch(/^\s*import\s/m);
  });
});
