/**
 * The prompt Claude Code reports for a wake (issue 34 point 4): mapped to the person's words, marked
 * as continuing the turn their delivery opened; any other prompt is left as typed. The wrapping is
 * the registry's (`wakeHook.prompt`), the sample Claude Code 2.1.197's own (recorded by
 * test/agents/claude-messages.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { wakeTextOf } from '../../shared/flavors.js';
import { mapHookPayload } from '../../hub/services/hook-payload.js';

const wrapped = (text: string, summary = 'Stop hook feedback') =>
  `<task-notification>\n<summary>${summary}</summary>\n</task-notification>\n<system-reminder>\nStop hook blocking error from command "Stop": ${text}\n\n</system-reminder>`;

const promptHook = (prompt: string) => ({ hook_event_name: 'UserPromptSubmit', session_id: 'agent-1', cwd: '/p', prompt });

describe('a wake prompt', () => {
  it('maps to the text the waiter gave, marked woken', () => {
    const mapped = mapHookPayload('claude', promptHook(wrapped('Please also update the changelog.')), 1);
    expect(mapped).toMatchObject({ kind: 'mapped', hook: { action: 'prompt-submit', prompt: 'Please also update the changelog.', woken: true } });
  });

  it('keeps two messages with their blank line, and a summary the hook chose', () => {
    expect(wakeTextOf('claude', wrapped('First.\n\nSecond: "quoted".', 'Messages from your phone'))).toBe('First.\n\nSecond: "quoted".');
  });

  it('leaves a typed prompt as it is, even one that quotes the wrapping', () => {
    const typed = `Why does my log say ${wrapped('x')}?`;
    const mapped = mapHookPayload('claude', promptHook(typed), 1);
    expect(mapped).toMatchObject({ kind: 'mapped', hook: { prompt: typed } });
    expect(mapped.kind === 'mapped' && mapped.hook.woken).toBeFalsy();
  });

  it('is read only for a flavor that declares a wake: another agent\'s prompt is its own', () => {
    expect(wakeTextOf('codex', wrapped('x'))).toBeUndefined();
    expect(wakeTextOf('gemini', wrapped('x'))).toBeUndefined();
  });
});
