/**
 * issue 26.10: a hook payload holding a `__proto__` key, or `constructor` holding `prototype`, is
 * refused by the hub naming the key and why (not "Body is not valid JSON"); the bridge sets that
 * event alone aside, says so on stderr, and `hook status` shows the reason. The payloads are
 * written as raw JSON text, as an agent would send them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import type { TestHub } from '../helpers/hub.js';
import { fixture, hubSpool, useBridgeHub } from './run-cli.js';

let hub: TestHub;
let spoolDir: string;
const bridge = useBridgeHub((started) => ({ hub, spoolDir } = started));
const claude = fixture('claude-session.json');
const tag = claude[0]!.session_id as string;

/** A PostToolUse whose tool input holds `inner` as raw JSON text (JSON.stringify cannot write an own __proto__ key). */
function toolPayloadWith(inner: string): string {
  const base = JSON.stringify({ ...claude[2], tool_input: { marker: 1 } });
  return base.replace('{"marker":1}', inner);
}

describe('hook payloads with prototype keys', () => {
  it('the hub answers 400 naming the key and why', async () => {
    for (const [inner, path] of [
      ['{"__proto__":{"polluted":true}}', 'events.0.payload.tool_input.__proto__'],
      ['{"constructor":{"prototype":{"polluted":true}}}', 'events.0.payload.tool_input.constructor.prototype'],
    ] as const) {
      const body = `{"events":[{"id":"proto-1","flavor":"claude","firedAt":${Date.now()},"seq":0,"payload":${toolPayloadWith(inner)}}]}`;
      const response = await fetch(`${hub.url}/api/hooks`, { method: 'POST', headers: { authorization: `Bearer ${hub.tokens.runner}`, 'content-type': 'application/json' }, body });
      expect(response.status).toBe(400);
      const answer = (await response.json()) as { error: string; message: string };
      expect(answer.error).toBe('invalid_payload');
      expect(answer.message).toContain(path);
      expect(answer.message).toContain('prototype');
      expect(answer.message).not.toContain('not valid JSON');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('the bridge sets that event alone aside, says which key and why, and hook status shows it', async () => {
    const env = bridge.env();
    const run = (stdin: string) => runCli(['hook', 'claude'], { stdin, env });
    await run(JSON.stringify(claude[0]));
    await run(JSON.stringify(claude[1]));
    const refused = await run(toolPayloadWith('{"__proto__":{"polluted":true}}'));
    expect(refused.code).toBe(0);
    expect(refused.stderr).toContain('events.0.payload.tool_input.__proto__');
    expect(refused.stderr).toContain('a "__proto__" key is refused');
    const rejected = readFileSync(join(hubSpool(env), 'rejected-claude.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { reason: string });
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.reason).toContain('tool_input.__proto__');

    // the session goes on: the next events are delivered
    expect((await run(JSON.stringify(claude[3]))).stderr).toBe('');
    const session = await bridge.sessionByTag(tag);
    expect(session.currentTurn?.prompt).toBe('Add a --verbose flag to the CLI');

    const status = await runCli(['hook', 'status'], { env: { SESSION_HUB_SPOOL_DIR: spoolDir } });
    expect(status.stdout).toContain('rejected: 1 event(s) in rejected-claude.jsonl');
    expect(status.stdout).toContain('events.0.payload.tool_input.__proto__: a "__proto__" key is refused');
  });
});
