/**
 * What a Claude Code `PermissionRequest` hook prints on stdout to answer for the user
 * (code.claude.com/docs/en/hooks, "PermissionRequest decision control"):
 * `{ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior, message? } } }`.
 * `message` is read for `deny` only (it tells Claude why), so an allow carries none. No imports: the
 * bundled hook bridge uses it without zod.
 */
export interface PermissionDecision {
  decision: 'allow' | 'deny';
  message?: string | null;
}

export interface PermissionRequestOutput {
  hookSpecificOutput: {
    hookEventName: 'PermissionRequest';
    decision: { behavior: 'allow' } | { behavior: 'deny'; message?: string };
  };
}

export function permissionRequestOutput({ decision, message }: PermissionDecision): PermissionRequestOutput {
  const answer = decision === 'allow' ? { behavior: 'allow' as const } : { behavior: 'deny' as const, ...(message ? { message } : {}) };
  return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: answer } };
}

/** The exact stdout text: one line of JSON. */
export function permissionRequestStdout(decision: PermissionDecision): string {
  return `${JSON.stringify(permissionRequestOutput(decision))}\n`;
}
