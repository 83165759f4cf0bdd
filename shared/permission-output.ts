/**
 * What a Claude Code `PermissionRequest` hook prints on stdout to answer for the user
 * (code.claude.com/docs/en/hooks, "PermissionRequest decision control"):
 * `{ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior, message?, updatedPermissions? } } }`.
 * `message` is read for `deny` only (it tells Claude why), so an allow carries none. An allow may
 * carry `updatedPermissions`: permission updates Claude Code applies as its own "Yes, and don't ask
 * again" does — here only the `addRules` / `allow` entries of the request's own
 * `permission_suggestions`, handed back as they came. No imports: the bundled hook bridge uses it
 * without zod.
 */
export interface PermissionDecision {
  decision: 'allow' | 'deny';
  message?: string | null;
  /** With an allow: the rules to keep allowing (from `allowRulesOf`). */
  updatedPermissions?: readonly AllowRuleUpdate[];
}

/** One `addRules` update that allows, as Claude Code suggests it. */
export interface AllowRuleUpdate {
  type: 'addRules';
  behavior: 'allow';
  destination: string;
  rules: { toolName: string; ruleContent?: string }[];
}

export interface PermissionRequestOutput {
  hookSpecificOutput: {
    hookEventName: 'PermissionRequest';
    decision: { behavior: 'allow'; updatedPermissions?: AllowRuleUpdate[] } | { behavior: 'deny'; message?: string };
  };
}

export function permissionRequestOutput({ decision, message, updatedPermissions }: PermissionDecision): PermissionRequestOutput {
  const answer = decision === 'allow'
    ? { behavior: 'allow' as const, ...(updatedPermissions && updatedPermissions.length > 0 ? { updatedPermissions: [...updatedPermissions] } : {}) }
    : { behavior: 'deny' as const, ...(message ? { message } : {}) };
  return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: answer } };
}

/** The exact stdout text: one line of JSON. */
export function permissionRequestStdout(decision: PermissionDecision): string {
  return `${JSON.stringify(permissionRequestOutput(decision))}\n`;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The suggestions of a permission request that add allow rules (`permission_suggestions` entries
 * `{type: 'addRules', behavior: 'allow', destination, rules: [{toolName, ruleContent?}]}`); others
 * (a mode switch, a directory) are not offered from the page. [] when there are none.
 */
export function allowRulesOf(suggestions: unknown): AllowRuleUpdate[] {
  if (!Array.isArray(suggestions)) return [];
  return suggestions.flatMap((s): AllowRuleUpdate[] => {
    if (!isRecord(s) || s.type !== 'addRules' || s.behavior !== 'allow' || typeof s.destination !== 'string' || !Array.isArray(s.rules)) return [];
    const rules = s.rules.filter((r): r is { toolName: string; ruleContent?: string } => isRecord(r) && typeof r.toolName === 'string' && (r.ruleContent === undefined || typeof r.ruleContent === 'string'));
    return rules.length === s.rules.length && rules.length > 0 ? [{ type: 'addRules', behavior: 'allow', destination: s.destination, rules: rules.map((r) => ({ toolName: r.toolName, ...(r.ruleContent === undefined ? {} : { ruleContent: r.ruleContent }) })) }] : [];
  });
}

/** A rule as Claude Code writes it in settings: `Bash(npm test)`, or the bare tool name. */
export function ruleText(rule: { toolName: string; ruleContent?: string }): string {
  return rule.ruleContent === undefined ? rule.toolName : `${rule.toolName}(${rule.ruleContent})`;
}
