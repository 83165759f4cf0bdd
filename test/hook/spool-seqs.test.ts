/**
 * issue 26.7: spool seqs strictly increase per agent session and are never handed out twice. The
 * interleaving that reused them: a hook finds the spool busy and queues its event in a part file;
 * the drainer's next round adopts the part (taking its seq) inside the delivery, then saved the
 * state it had read before the adoption; the next hook took the same seq again, and the hub, which
 * applies a batch in seq order, applied a later turn's prompt before an earlier turn's Stop.
 * Real hook processes and their real drainer; the hub is "down" behind a gate at its own address.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import type { TestHub } from '../helpers/hub.js';
import { fixture, gatedUrl, hubSpool, sendHooks, useBridgeHub } from './run-cli.js';

let hub: TestHub;
const bridge = useBridgeHub((started) => ({ hub } = started));
const claude = fixture('claude-session.json');
const [start, prompt, , , , stop] = claude as [Record<string, unknown>, Record<string, unknown>, unknown, unknown, unknown, Record<string, unknown>];
const tag = start.session_id as string;
const sleep = (ms: number) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('spool seqs', () => {
  it('strictly increase per session across part files adopted by the drainer, and the hub applies the turns in order', { timeout: 120_000 }, async () => {
    const gate = await gatedUrl(hub.url);
    try {
      await gate.close();
      // a short budget (a busy spool gives up after half of it) and a drainer retrying every second
      const env = { ...bridge.env(gate.url), SESSION_HUB_HOOK_BUDGET_MS: '800', SESSION_HUB_DRAIN_BACKOFF_MS: '1000', SESSION_HUB_DRAIN_MAX_BACKOFF_MS: '1000' };
      const dir = hubSpool(env);
      await sendHooks('claude', [start], env); // spooled (hub down); a drainer is started

      // another live process holds the spool: the first turn's prompt and Stop are queued in part files
      const lock = join(dir, 'spool-claude.lock');
      const drainerState = () => (existsSync(join(dir, 'drainer-claude.json')) ? (JSON.parse(readFileSync(join(dir, 'drainer-claude.json'), 'utf8')) as { state: string; attempts: number }) : undefined);
      await until(() => drainerState()?.state === 'waiting', 'the drainer to wait between rounds');
      writeFileSync(lock, `${process.pid}.test-holder`);
      await sendHooks('claude', [{ ...prompt, prompt: 'first' }, { ...stop, last_assistant_message: 'first answer' }], env);
      const parts = () => readdirSync(dir).filter((n) => n.includes('.part-') && n.endsWith('.json'));
      expect(parts()).toHaveLength(2);

      // the lock is free again: the drainer's next round adopts the parts, and cannot deliver
      const attempts = drainerState()!.attempts;
      rmSync(lock);
      await until(() => parts().length === 0 && drainerState()!.attempts > attempts && drainerState()!.state === 'waiting', 'the drainer to adopt the parts');

      // the next turn, still with the hub down
      await sendHooks('claude', [{ ...prompt, prompt: 'second' }], env);
      const spooled = readFileSync(join(dir, 'spool-claude.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { seq: number; payload: { hook_event_name: string } });
      expect(spooled.map((e) => e.payload.hook_event_name)).toEqual(['SessionStart', 'UserPromptSubmit', 'Stop', 'UserPromptSubmit']);
      const seqs = spooled.map((e) => e.seq);
      expect(new Set(seqs).size).toBe(seqs.length);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));

      // the hub is back: the turns land in the order they happened, each with its own answer
      await gate.open();
      await sendHooks('claude', [{ ...stop, last_assistant_message: 'second answer' }], env);
      const session = await bridge.sessionByTag(tag);
      const turns = await bridge.get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
      expect(turns.map((t) => [t.prompt, t.status, t.response])).toEqual([
        ['first', 'completed', 'first answer'],
        ['second', 'completed', 'second answer'],
      ]);
    } finally {
      await gate.close();
    }
  });
});
