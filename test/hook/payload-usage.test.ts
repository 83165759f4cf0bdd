/**
 * A turn's usage carried in the turn-stop payload (a flavor's `payloadUsage`): the OpenCode plugin's
 * real session.idle payload (fixture recorded from OpenCode 1.18.33) is read as it is; a bad one is
 * sent without usage, the problem saying what is wrong.
 */
import { describe, expect, it } from 'vitest';
import { usageFromPayload } from '../../hub/hook/payload-usage.js';
import { fixture } from './run-cli.js';

describe('usage from a turn-stop payload', () => {
  it('reads the OpenCode plugin’s session.idle usage as it is', () => {
    const idle = fixture('agents/opencode-1.18.33-run.json').find((p) => p.hook_event_name === 'session.idle')!;
    expect(usageFromPayload(idle.usage, 'usage')).toEqual({ usage: [{ model: 'scripted-model', inputTokens: 260, outputTokens: 42, cacheReadTokens: 0, cacheWriteTokens: 0 }] });
  });

  it('sends nothing when the payload has no usage', () => {
    expect(usageFromPayload(undefined, 'usage')).toEqual({});
    expect(usageFromPayload([], 'usage')).toEqual({});
  });

  it.each([
    [{ model: 'm' }, /is not a list of usage reports/],
    [[{ inputTokens: 1, outputTokens: 1 }], /\[0\] names no model/],
    [[{ model: 'm', inputTokens: -1, outputTokens: 1 }], /\[0\]\.inputTokens is not a whole, non-negative number of tokens/],
    [[{ model: 'm', inputTokens: 1, outputTokens: 1.5 }], /\[0\]\.outputTokens is not a whole/],
    [[{ model: 'm', inputTokens: 1, outputTokens: 1, cacheReadTokens: '3' }], /\[0\]\.cacheReadTokens is not a whole/],
    [[{ model: 'm', inputTokens: 1, outputTokens: 1 }, { model: 'm', inputTokens: 1, outputTokens: 1 }], /names the model "m" twice/],
  ])('refuses %j, saying why', (value, why) => {
    const read = usageFromPayload(value, 'usage');
    expect(read.usage).toBeUndefined();
    expect(read.problem).toMatch(why);
    expect(read.problem).toMatch(/the turn is sent without usage/);
  });
});
