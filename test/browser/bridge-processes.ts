/**
 * Real hook processes of the bundled bridge (`dist/hook-bridge.cjs claude`) for the browser suites:
 * the calls of one test share a spool directory (one agent machine: its sessions' taker keys live
 * there, docs/messages.md), removed (its drainer stopped) after each test.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach } from 'vitest';
import type { TestHub } from '../helpers/hub.js';
import { stopDrainers } from '../hook/run-cli.js';

const BRIDGE = resolve(import.meta.dirname, '../../dist/hook-bridge.cjs');

export type HookProcess = (payload: Record<string, unknown>, args?: string[]) => Promise<{ code: number | null; stdout: string }>;

/** `hubOf`: the suite's hub when a call runs; `waitMs`: how long the bridge waits for a decision (SESSION_HUB_HOOK_WAIT_MS). */
export function useBridgeProcesses(hubOf: () => TestHub, options: { waitMs: number }): HookProcess {
  const spoolDirs: string[] = [];
  afterEach(() => {
    for (const dir of spoolDirs.splice(0)) {
      stopDrainers(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  });
  return (payload, args = []) => {
    const hub = hubOf();
    const spoolDir = spoolDirs[0] ?? mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
    if (spoolDirs.length === 0) spoolDirs.push(spoolDir);
    const child = spawn(process.execPath, [BRIDGE, 'claude', ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SESSION_HUB_URL: hub.url, SESSION_HUB_TOKEN: hub.tokens.runner, SESSION_HUB_SPOOL_DIR: spoolDir, SESSION_HUB_HOOK_WAIT_MS: String(options.waitMs) },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stdin.end(JSON.stringify(payload));
    return new Promise((resolveRun) => child.once('close', (code) => resolveRun({ code, stdout })));
  };
}
