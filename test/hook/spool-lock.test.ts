import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import type { TestHub } from '../helpers/hub.js';
import { fixture, sendHooks, useBridgeHub } from './run-cli.js';

const CLI = resolve(import.meta.dirname, '../../dist/hub/cli.js');

let hub: TestHub;
let spoolDir: string;
const { env, get, sessionByTag } = useBridgeHub((started) => ({ hub, spoolDir } = started));

const claude = fixture('claude-session.json');
const tag = claude[0]!.session_id as string;

/** A hub that accepts connections and never answers (hung, or stopped with SIGSTOP). */
async function hungHub(): Promise<{ url: string; accepted: Promise<void>; close: () => Promise<void> }> {
  const sockets: Socket[] = [];
  let onAccept!: () => void;
  const accepted = new Promise<void>((resolveAccept) => (onAccept = resolveAccept));
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    onAccept();
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolveClose) => server.close(resolveClose));
    },
  };
}

describe('the spool lock of a hook process killed while holding it', () => {
  it('is taken over at once by the next hook (the holder is dead), which delivers the spool', async () => {
    const hung = await hungHub();
    // a hook process holds the spool lock while it waits for a hub that does not answer ...
    const child = spawn(process.execPath, [CLI, 'hook', 'claude'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env(hung.url) }, stdio: ['pipe', 'ignore', 'ignore'] });
    const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
    child.stdin.end(JSON.stringify(claude[0]));
    await hung.accepted;
    expect(existsSync(join(spoolDir, 'spool-claude.lock'))).toBe(true);
    // ... and is killed there (the agent's hook timeout, a Ctrl-C)
    child.kill('SIGKILL');
    await exited;
    await hung.close();
    expect(existsSync(join(spoolDir, 'spool-claude.lock'))).toBe(true);

    // the next hook, with the hub up: it delivers the spooled SessionStart and its own prompt
    const [next] = await sendHooks('claude', [claude[1]!], env());
    expect(next!.code).toBe(0);
    expect(readdirSync(spoolDir).filter((name) => name.includes('.part-') || name.startsWith('spool-claude.jsonl'))).toEqual([]);
    const session = await sessionByTag(tag);
    expect(session.lifecycle.state).toBe('running');
    const turns = await get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
    expect(turns.map((t) => [t.prompt, t.status])).toEqual([['Add a --verbose flag to the CLI', 'open']]);
    expect(existsSync(join(spoolDir, 'spool-claude.lock'))).toBe(false);
  });
});
