/**
 * attentionFromHook: each real hook payload (test/hook/fixtures/attention, each naming its source)
 * read through the flavor registry only, one test per fixture; plus what it must not do.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attentionFromHook, type AttentionFromHook } from '../../shared/attention-hooks.js';

const DIR = join(import.meta.dirname, 'fixtures', 'attention');

interface Fixture {
  source: string;
  flavor: string;
  payload: Record<string, unknown>;
}

const fixture = (file: string) => JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Fixture;
const set = (kind: string, message: string | null = null, tool: string | null = null) => ({ set: { kind, message, tool } });
const CLEAR = { clear: true } as const;

/** What each fixture must give. */
const EXPECTED: Record<string, AttentionFromHook | { set: { kind: string; message: string | null; tool: string | null } }> = {
  'claude-notification-permission-prompt.json': set('permission', 'Claude needs your permission to use Bash'),
  'claude-notification-idle-prompt.json': null,
  'claude-notification-elicitation-dialog.json': set('question', 'MCP server github requests your input'),
  'claude-notification-auth-success.json': null,
  'claude-permission-request.json': set('permission', null, 'Bash'),
  'claude-stop.json': set('done', "I've completed the refactoring. Here's a summary..."),
  'claude-stop-failure.json': set('failed', 'API Error: Rate limit reached'),
  'claude-pre-tool-use.json': CLEAR,
  'claude-post-tool-use.json': CLEAR,
  'claude-post-tool-use-failure.json': CLEAR,
  'claude-session-end.json': CLEAR,
  'gemini-notification-tool-permission.json': set('permission', 'Tool run_shell_command requires confirmation'),
  'gemini-after-agent.json': set('done', 'Version bumped to 1.4.0; publish is ready to run.'),
  'gemini-before-agent.json': CLEAR,
  'cursor-stop-completed.json': set('done'),
  'cursor-stop-aborted.json': set('done'),
  'cursor-stop-error.json': set('failed'),
  'cursor-before-submit-prompt.json': CLEAR,
};

describe('attentionFromHook, one real payload each', () => {
  it('has an expectation for every fixture and a fixture for every expectation, each naming its source', () => {
    const files = readdirSync(DIR).filter((file) => file.endsWith('.json')).sort();
    expect(files).toEqual(Object.keys(EXPECTED).sort());
    for (const file of files) expect(fixture(file).source, file).toMatch(/https:\/\//);
  });

  for (const [file, expected] of Object.entries(EXPECTED)) {
    it(file, () => {
      const { flavor, payload } = fixture(file);
      expect(attentionFromHook(flavor, payload)).toEqual(expected);
    });
  }

  it('reads Claude Code\'s UserPromptSubmit and the other events of the recorded session (test/hook/fixtures/claude-session.json)', () => {
    const session = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'claude-session.json'), 'utf8')) as Record<string, unknown>[];
    const byEvent = Object.fromEntries(session.map((payload) => [payload.hook_event_name as string, attentionFromHook('claude', payload)]));
    expect(byEvent.UserPromptSubmit).toEqual(CLEAR);
    expect(byEvent.PostToolUse).toEqual(CLEAR);
    expect(byEvent.SessionStart).toBeNull();
    expect(byEvent.Stop).toMatchObject({ set: { kind: 'done' } });
  });
});

describe('attentionFromHook, what it must not do', () => {
  const stop = fixture('claude-stop.json').payload;

  it('knows nothing of an unknown flavor, a flavor without attention rules, or a hook without a rule', () => {
    expect(attentionFromHook('no-such-agent', stop)).toBeNull();
    expect(attentionFromHook('hermes', stop)).toBeNull();
    expect(attentionFromHook('claude', { ...stop, hook_event_name: 'SessionStart' })).toBeNull();
    // names are the flavor's own: Cursor's "stop" is not Claude Code's "Stop"
    expect(attentionFromHook('claude', { ...stop, hook_event_name: 'stop' })).toBeNull();
  });

  it('ignores payloads that are not objects, lack the event name, or name an inherited property', () => {
    for (const payload of [null, 'Stop', 42, [], {}, { hook_event_name: 7 }, { hook_event_name: 'constructor' }, { hook_event_name: '__proto__' }]) {
      expect(attentionFromHook('claude', payload)).toBeNull();
    }
  });

  it('changes nothing for a notification type it does not know (Notification is observability: not every one means waiting)', () => {
    const notification = fixture('claude-notification-permission-prompt.json').payload;
    expect(attentionFromHook('claude', { ...notification, notification_type: 'some_future_type' })).toBeNull();
    expect(attentionFromHook('claude', { ...notification, notification_type: 'toString' })).toBeNull();
    expect(attentionFromHook('claude', { ...notification, notification_type: undefined })).toBeNull();
  });

  it('sets a kind without text when the text is missing, empty or not a string', () => {
    for (const last of [undefined, '', 42, { text: 'x' }]) {
      expect(attentionFromHook('claude', { ...stop, last_assistant_message: last })).toEqual(set('done'));
    }
    // StopFailure falls back from the rendered text to the details, then the error type
    const failure = fixture('claude-stop-failure.json').payload;
    expect(attentionFromHook('claude', { ...failure, last_assistant_message: undefined })).toEqual(set('failed', '429 Too Many Requests'));
    expect(attentionFromHook('claude', { ...failure, last_assistant_message: undefined, error_details: undefined })).toEqual(set('failed', 'rate_limit'));
  });

  it('cuts a long text at 4096 characters, never inside a surrogate pair', () => {
    const long = attentionFromHook('claude', { ...stop, last_assistant_message: 'x'.repeat(10_000) });
    expect((long as { set: { message: string } }).set.message).toHaveLength(4096);
    const emoji = attentionFromHook('claude', { ...stop, last_assistant_message: `${'x'.repeat(4095)}😀tail` });
    expect((emoji as { set: { message: string } }).set.message).toBe('x'.repeat(4095));
  });
});
