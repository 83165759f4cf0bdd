/**
 * issue 33.1: the real hook bridge fed a payload nested thousands of levels deep overflowed its
 * stack and dropped the event silently (exit 0, nothing in `hook status`). It now refuses such a
 * payload on its text, before parsing it, says so on stderr, sends nothing the hub would refuse,
 * and `hook status` shows the call; the session's other events go on.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixture, useBridgeHub } from './run-cli.js';

let spoolDir: string;
const bridge = useBridgeHub((started) => ({ spoolDir } = started));
const claude = fixture('claude-session.json');
const tag = claude[0]!.session_id as string;

/** A PostToolUse whose tool input nests arrays `levels` deep, `perLevel` zeros at each level. */
function deepPayload(levels: number, perLevel: number): string {
  const zeros = perLevel > 0 ? `${Array(perLevel).fill('0').join(',')},` : '';
  const nested = `${`[${zeros}`.repeat(levels)}0${']'.repeat(levels)}`;
  return JSON.stringify({ ...claude[2], tool_input: { marker: 1 } }).replace('{"marker":1}', nested);
}

describe('the hook bridge and a payload nested past the depth limit', () => {
  it('says so, sends nothing, and hook status shows the call; the next events are delivered', async () => {
    const env = bridge.env();
    const run = (stdin: string) => runCli(['hook', 'claude'], { stdin, env });
    await run(JSON.stringify(claude[0]));
    await run(JSON.stringify(claude[1]));
    for (const payload of [deepPayload(10_000, 0), deepPayload(5000, 100)]) {
      const refused = await run(payload);
      expect(refused.code).toBe(0);
      expect(refused.stderr).toMatch(/the hook payload nests deeper than 65 levels of arrays and objects \(at character \d+\): a JSON document may nest at most 64 levels below its root; nothing spooled or sent/);
    }

    expect((await run(JSON.stringify(claude[3]))).stderr).toBe('');
    const session = await bridge.sessionByTag(tag);
    expect(session.currentTurn?.prompt).toBe('Add a --verbose flag to the CLI');

    const status = await runCli(['hook', 'status'], { env: { SESSION_HUB_SPOOL_DIR: spoolDir } });
    expect(status.stdout).toMatch(/hook calls that sent nothing[^\n]*:\n(.*\n)*.* claude: the hook payload nests deeper than 65 levels/);
  }, 60_000);
});
