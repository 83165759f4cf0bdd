import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import type { TestHub } from '../helpers/hub.js';
import { fixture, gatedUrl, hubSpool, sendHooks, useBridgeHub } from './run-cli.js';

const CLI = resolve(import.meta.dirname, '../../dist/hub/cli.js');

let hub: TestHub;
let spoolDir: string;
const { env, get, sessionByTag } = useBridgeHub((started) => ({ hub, spoolDir } = started));

const claude = fixture('claude-session.json');
const tag = claude[0]!.session_id as string;

describe('the spool lock of a hook process killed while holding it', () => {
  it('is taken over at once by the next hook (the holder is dead), which delivers the spool', async () => {
    const gate = await gatedUrl(hub.url);
    try {
      await gate.hang();
      // a hook process holds the spool lock while it waits for a hub that does not answer ...
      const child = spawn(process.execPath, [CLI, 'hook', 'claude'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env(gate.url) }, stdio: ['pipe', 'ignore', 'ignore'] });
      const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
      child.stdin.end(JSON.stringify(claude[0]));
      await gate.accepted();
      const dir = hubSpool(env(gate.url));
      const lock = join(dir, 'spool-claude.lock');
      expect(existsSync(lock)).toBe(true);
      // ... and is killed there (the agent's hook timeout, a Ctrl-C)
      child.kill('SIGKILL');
      await exited;
      expect(existsSync(lock)).toBe(true);

      // the next hook, with the hub answering again: it delivers the spooled SessionStart and its own prompt
      await gate.open();
      const [next] = await sendHooks('claude', [claude[1]!], env(gate.url));
      expect(next!.code).toBe(0);
      expect(readdirSync(dir).filter((name) => name.includes('.part-') || name.startsWith('spool-claude.jsonl'))).toEqual([]);
      const session = await sessionByTag(tag);
      expect(session.lifecycle.state).toBe('running');
      const turns = await get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
      expect(turns.map((t) => [t.prompt, t.status])).toEqual([['Add a --verbose flag to the CLI', 'open']]);
      expect(existsSync(lock)).toBe(false);
    } finally {
      await gate.close();
    }
  });
});
