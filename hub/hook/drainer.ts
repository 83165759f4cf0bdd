/**
 * The spool drains itself: when a hook call leaves events spooled (hub away, or the spool busy), it
 * starts ONE detached drainer per spool (its own lock, held for its whole life: never two) that
 * retries with backoff and exits when the spool is empty, when the hub refuses the token, or after
 * SESSION_HUB_DRAIN_FOR_MS (default 30 min). Backoff: SESSION_HUB_DRAIN_BACKOFF_MS (first wait, default 1 s),
 * doubling up to SESSION_HUB_DRAIN_MAX_BACKOFF_MS (default 60 s). Its state goes to `drainer-<flavor>.json` for
 * `session-hub hook status`. Part of the bridge bundle.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deliverSpool } from './deliver.js';
import { acquireLock, liveHolder } from './spool-lock.js';
import { targetDir, type HubTarget } from './spool-target.js';
import { atomicWrite, defaultSpoolDir, Spool } from './spool.js';

export const DEFAULT_DRAIN_FOR_MS = 30 * 60_000;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;
/** One round's sending: other hook calls of the spool take the lock between rounds. */
const ROUND_MS = 5000;

export interface DrainerState {
  pid: number;
  state: 'sending' | 'waiting' | 'exited';
  startedAt: number;
  attempts: number;
  nextTryAt?: number;
  lastError?: string;
  exitedAt?: number;
  exitReason?: string;
}

export function drainerFiles(dir: string, flavor: string) {
  return { lock: join(dir, `drainer-${flavor}.lock`), state: join(dir, `drainer-${flavor}.json`) };
}

export function readDrainerState(dir: string, flavor: string): (DrainerState & { alive: boolean }) | undefined {
  const files = drainerFiles(dir, flavor);
  if (!existsSync(files.state)) return undefined;
  try {
    const state = JSON.parse(readFileSync(files.state, 'utf8')) as DrainerState;
    return { ...state, alive: liveHolder(files.lock) === state.pid };
  } catch {
    return undefined;
  }
}

/** The hub and token a hook's environment names; undefined when either is unset. */
export function targetOf(env: NodeJS.ProcessEnv): HubTarget | undefined {
  return env.SESSION_HUB_URL && env.SESSION_HUB_TOKEN ? { url: env.SESSION_HUB_URL, token: env.SESSION_HUB_TOKEN } : undefined;
}

/**
 * Starts a drainer for the spool of the hub and token in `env` unless one is alive (none without
 * both). `entry`: the bridge's own file (the bundle, or its compiled module).
 */
export async function spawnDrainer(entry: string, flavor: string, env: NodeJS.ProcessEnv): Promise<void> {
  const target = targetOf(env);
  if (target === undefined) return;
  const files = drainerFiles(targetDir(defaultSpoolDir(env), target), flavor);
  if (liveHolder(files.lock) !== undefined) return;
  // loaded only when a drainer is needed: a hook call with the hub up never pays for it
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [fileURLToPath(entry), '--drain', flavor], { detached: true, stdio: 'ignore', env });
  child.unref();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runDrainer(flavor: string, env: NodeJS.ProcessEnv): Promise<void> {
  const target = targetOf(env);
  if (target === undefined) return;
  const dir = targetDir(defaultSpoolDir(env), target);
  const files = drainerFiles(dir, flavor);
  if (!existsSync(dir)) return;
  const lock = await acquireLock(files.lock, 0, Number.POSITIVE_INFINITY);
  if (!lock) return; // another drainer has this spool
  const until = Date.now() + Number(env.SESSION_HUB_DRAIN_FOR_MS ?? DEFAULT_DRAIN_FOR_MS);
  let backoff = Number(env.SESSION_HUB_DRAIN_BACKOFF_MS ?? FIRST_BACKOFF_MS);
  const maxBackoff = Number(env.SESSION_HUB_DRAIN_MAX_BACKOFF_MS ?? MAX_BACKOFF_MS);
  const state: DrainerState = { pid: process.pid, state: 'sending', startedAt: Date.now(), attempts: 0 };
  const save = () => {
    try {
      if (existsSync(dir)) atomicWrite(files.state, JSON.stringify(state));
    } catch {
      // a full disk: the drainer's own state is for status only; the spool matters
    }
  };
  const spool = new Spool(dir, flavor);
  try {
    for (;;) {
      if (!existsSync(dir)) {
        state.exitReason = 'the spool directory is gone';
        break;
      }
      state.attempts++;
      state.state = 'sending';
      delete state.nextTryAt;
      save();
      let report;
      let failed: string | undefined;
      try {
        report = (await spool.locked(ROUND_MS, () => deliverSpool(spool, target, Date.now() + ROUND_MS)))?.value;
      } catch (error) {
        failed = `the spool cannot be written: ${(error as Error).message}`; // a full disk: try again later
      }
      if (report?.refused) {
        state.exitReason = `the hub refused the token (${report.refused.message}); events moved to ${spool.rejectedFile}`;
        break;
      }
      if (report && report.remaining === 0) {
        state.exitReason = 'spool empty';
        break;
      }
      if (report && report.stoppedBy === 'time budget spent') continue; // more to send, the hub answers: go on
      state.lastError = failed ?? report?.stoppedBy ?? 'the spool stayed locked';
      if (Date.now() + backoff > until) {
        state.exitReason = `gave up after ${Math.round((Date.now() - state.startedAt) / 1000)} s; the next hook call sends the spool`;
        break;
      }
      state.state = 'waiting';
      state.nextTryAt = Date.now() + backoff;
      save();
      await sleep(backoff);
      backoff = Math.min(backoff * 2, maxBackoff);
    }
  } finally {
    state.state = 'exited';
    state.exitedAt = Date.now();
    save();
    lock.release();
  }
}
