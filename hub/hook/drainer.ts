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
import { deliverSpool, type HubTarget } from './deliver.js';
import { acquireLock, liveHolder } from './spool-lock.js';
import { atomicWrite, defaultSpoolDir, Spool } from './spool.js';

export const DEFAULT_DRAIN_FOR_MS = 30 * 60_000;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;
/** One round's hold of the spool lock: under its 10 s age rule, with the last request's 4 s. */
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

/** Starts a drainer unless one is alive. `entry`: the bridge's own file (the bundle, or its compiled module). */
export async function spawnDrainer(entry: string, flavor: string, env: NodeJS.ProcessEnv): Promise<void> {
  const files = drainerFiles(defaultSpoolDir(env), flavor);
  if (liveHolder(files.lock) !== undefined) return;
  // loaded only when a drainer is needed: a hook call with the hub up never pays for it
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [fileURLToPath(entry), '--drain', flavor], { detached: true, stdio: 'ignore', env });
  child.unref();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runDrainer(flavor: string, env: NodeJS.ProcessEnv): Promise<void> {
  const dir = defaultSpoolDir(env);
  const files = drainerFiles(dir, flavor);
  const release = await acquireLock(files.lock, 0, Number.POSITIVE_INFINITY);
  if (!release) return; // another drainer has this spool
  const target: HubTarget = { url: env.SESSION_HUB_URL ?? '', token: env.SESSION_HUB_TOKEN ?? '' };
  const until = Date.now() + Number(env.SESSION_HUB_DRAIN_FOR_MS ?? DEFAULT_DRAIN_FOR_MS);
  let backoff = Number(env.SESSION_HUB_DRAIN_BACKOFF_MS ?? FIRST_BACKOFF_MS);
  const maxBackoff = Number(env.SESSION_HUB_DRAIN_MAX_BACKOFF_MS ?? MAX_BACKOFF_MS);
  const state: DrainerState = { pid: process.pid, state: 'sending', startedAt: Date.now(), attempts: 0 };
  const save = () => {
    if (existsSync(dir)) atomicWrite(files.state, JSON.stringify(state));
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
      const round = await spool.locked(ROUND_MS, async () => {
        const spoolState = spool.state();
        const report = await deliverSpool(spool, spoolState, target, Date.now() + ROUND_MS);
        spool.saveState(spoolState);
        return report;
      });
      const report = round?.value;
      if (report?.refused) {
        state.exitReason = `the hub refused the token (${report.refused.message}); events moved to ${spool.rejectedFile}`;
        break;
      }
      if (report && report.remaining === 0) {
        state.exitReason = 'spool empty';
        break;
      }
      if (report && report.stoppedBy === 'time budget spent') continue; // more to send, the hub answers: go on
      state.lastError = report?.stoppedBy ?? 'the spool stayed locked';
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
    release();
  }
}
