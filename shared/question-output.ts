/**
 * What a Claude Code `PreToolUse` hook prints to answer a tool call that asks the person
 * (code.claude.com/docs/en/hooks, "PreToolUse decision control"): allow with `updatedInput` (for
 * AskUserQuestion: its `questions` and an `answers` map, question text -> option label), or deny
 * with the reason shown to Claude. No imports: plain data.
 */
export interface PreToolUseOutput {
  hookSpecificOutput:
    | { hookEventName: 'PreToolUse'; permissionDecision: 'allow'; updatedInput: Record<string, unknown> }
    | { hookEventName: 'PreToolUse'; permissionDecision: 'deny'; permissionDecisionReason?: string };
}

export function questionAnswerOutput(decision: { allow: true; input: Record<string, unknown>; answers?: Record<string, string> } | { allow: false; message?: string | null }): PreToolUseOutput {
  if (!decision.allow) {
    return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', ...(decision.message ? { permissionDecisionReason: decision.message } : {}) } };
  }
  const updatedInput = decision.answers ? { ...decision.input, answers: decision.answers } : { ...decision.input };
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput } };
}
