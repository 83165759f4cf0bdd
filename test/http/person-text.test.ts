/**
 * issue 33.6 (a, b): what a person writes to an agent — a message, a denied approval's reason, an
 * answer — follows one rule (shared/protocol/person-text.ts): no control characters but newline
 * and tab (no terminal escapes), and no invisible or reordering characters that make the page show
 * other text than the agent reads. Refused with 400 naming the character; nothing changes.
 */
import { describe, expect, it } from 'vitest';
import type { ApprovalsResponse } from '../../shared/protocol/attention.js';
import { openApproval } from '../../hub/people/approvals.js';
import type { Actor } from '../../hub/services/deps.js';
import { connectRunner, startSession, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';

let hub: TestHub;
let runner: RunnerSocket;
useTestHub(async (started) => {
  hub = started;
  runner = await connectRunner(hub.url, hub.tokens.runner);
});

const hookActor: Actor = { namespace: 'default', role: 'runner', by: 'runner' };

async function http(method: 'GET' | 'POST', path: string, body?: unknown) {
  const response = await fetch(`${hub.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${hub.tokens.operator}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Texts the page would show otherwise than the agent reads them, and the code point named. */
const HIDDEN: [string, string][] = [
  ['a terminal escape \u001b[2J', 'U+001B'],
  ['rm -rf \u202e/ emoh', 'U+202E'],
  ['first \u2066isolated\u2069 second', 'U+2066'],
  ['zero\u200bwidth', 'U+200B'],
  ['mark\u200fhere', 'U+200F'],
  ['word\u2060joiner', 'U+2060'],
  ['\ufeffbom', 'U+FEFF'],
  [`tags ${String.fromCodePoint(0xe0049, 0xe0067, 0xe006e)}`, 'U+E0049'],
  ['joiner\u200dalone', 'U+200D'],
  // issue 45: characters that show as nothing, passed before
  ['arabic\u061cmark', 'U+061C'],
  ['soft\u00adhyphen', 'U+00AD'],
  ['mongolian\u180eseparator', 'U+180E'],
  ['hangul\u3164filler', 'U+3164'],
  ['hangul\u115fchoseong', 'U+115F'],
  ['hangul\u1160jungseong', 'U+1160'],
  ['halfwidth\uffa0filler', 'U+FFA0'],
  ['annotation \ufff9shown\ufffahidden\ufffb', 'U+FFF9'],
  ['separator \ufffa alone', 'U+FFFA'],
  ['terminator \ufffb alone', 'U+FFFB'],
  ['function\u2061application', 'U+2061'],
  ['invisible\u2062times', 'U+2062'],
  ['invisible\u2063separator', 'U+2063'],
  ['invisible\u2064plus', 'U+2064'],
  ['grapheme\u034fjoiner', 'U+034F'],
  ['khmer\u17b4vowel', 'U+17B4'],
];

describe("a person's text to the agent", () => {
  it('messages: hidden, reordering and control characters are refused naming the character; emoji sequences pass', async () => {
    const session = await startSession(runner);
    for (const [text, point] of HIDDEN) {
      const answer = await http('POST', `/api/sessions/${session.sid}/messages`, { text });
      expect(answer.status, point).toBe(400);
      expect(answer.body).toMatchObject({ error: 'invalid_payload', message: expect.stringContaining(point) });
    }
    expect((await http('GET', `/api/sessions/${session.sid}/messages`)).body.messages).toEqual([]);
    const kept = 'ship it 👩‍💻 👍🏽 — שלום and عربي read in order\n\ttabbed';
    const sent = await http('POST', `/api/sessions/${session.sid}/messages`, { text: kept });
    expect(sent.status).toBe(201);
    expect((sent.body.message as { text: string }).text).toBe(kept);
  });

  it('a deny message and answers follow the same rule: 400 naming the character, the approval still pending', async () => {
    const session = await startSession(runner);
    const approval = await openApproval(hub.deps, hookActor, { sid: session.sid, tool: 'Bash', input: { command: 'ls' }, cwd: '/work/app', message: 'Claude needs your permission to use Bash' });
    const path = `/api/sessions/${session.sid}/approvals/${approval.approvalId}`;
    for (const [text, point] of HIDDEN) {
      const denied = await http('POST', path, { decision: 'deny', message: text });
      expect(denied.status, point).toBe(400);
      expect(denied.body).toMatchObject({ error: 'invalid_payload', message: expect.stringMatching(new RegExp(`message.*${point.replace('+', '\\+')}`)) });
      const answered = await http('POST', path, { decision: 'allow', answers: { 'Which file?': text } });
      expect(answered.status, point).toBe(400);
      expect(answered.body.message).toContain(point);
    }
    const { approvals } = (await http('GET', `/api/sessions/${session.sid}/approvals`)).body as unknown as ApprovalsResponse;
    expect(approvals[0]).toMatchObject({ status: 'pending' });
    expect((await http('POST', path, { decision: 'deny', message: 'not that one 🙅‍♀️' })).body).toMatchObject({ status: 'denied', message: 'not that one 🙅‍♀️' });
  });
});
