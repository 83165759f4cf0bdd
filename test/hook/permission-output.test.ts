/**
 * The stdout a Claude Code PermissionRequest hook prints to answer for the user, against the
 * documented format (code.claude.com/docs/en/hooks, "PermissionRequest decision control"):
 * hookSpecificOutput.hookEventName "PermissionRequest", decision.behavior "allow" | "deny", and
 * decision.message for "deny" only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allowRulesOf, permissionRequestOutput, permissionRequestStdout, ruleText } from '../../shared/permission-output.js';

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

  it('an allow may carry the request’s own allow-rule suggestions as updatedPermissions; a deny never does', () => {
    const suggestions = [
      { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'npm test' }], behavior: 'allow', destination: 'localSettings' },
      { type: 'setMode', mode: 'acceptEdits', destination: 'session' },
      { type: 'addDirectories', directories: ['/work'], destination: 'session' },
      { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'rm -rf /' }], behavior: 'deny', destination: 'localSettings' },
    ];
    const rules = allowRulesOf(suggestions);
    expect(rules).toEqual([{ type: 'addRules', behavior: 'allow', destination: 'localSettings', rules: [{ toolName: 'Bash', ruleContent: 'npm test' }] }]);
    expect(rules.flatMap((u) => u.rules.map(ruleText))).toEqual(['Bash(npm test)']);
    expect(permissionRequestOutput({ decision: 'allow', updatedPermissions: rules }).hookSpecificOutput.decision).toEqual({ behavior: 'allow', updatedPermissions: rules });
    expect(permissionRequestOutput({ decision: 'deny', updatedPermissions: rules }).hookSpecificOutput.decision).toEqual({ behavior: 'deny' });
    for (const nothing of [undefined, null, 'x', {}, [{ type: 'addRules', behavior: 'allow', destination: 'localSettings', rules: [] }]]) expect(allowRulesOf(nothing)).toEqual([]);
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
