/**
 * The agent keeper (issue 34.2): one small detached process per agent process and session (the
 * registry's `agentKeeper`), started by the first hook call that finds none, that tells the hub the
 * agent lives (POST /api/hooks/agent `alive`, as often as the hub asks: a third of its
 * SESSION_HUB_AGENT_ALIVE_MS) and, the moment the agent exits without a session end (kill -9, a
 * crash), that it is gone; then it exits. So a hook session whose agent died shows "lost contact"
 * within seconds, and within the alive window even when the keeper dies with it (the hub's sweep).
 * It stops too when the hub says the session has no live hook run (it ended, or is not known yet:
 * the next hook call starts a keeper again), when the hub refuses its token, and when its spool
 * directory is removed. stdio ignored, its
 * own process group: the agent never waits on it. Part of the bridge bundle: Node built-ins only.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getFlavor } from '../../shared/flavors.js';
import type { HookAgentReportResponse } from '../../shared/protocol/hooks.js';
import { watchPid } from './agent-watch.js';
import { targetOf } from './drainer.js';
import { postJson } from './http-post.js';
import { acquireLock, liveHolder } from './spool-lock.js';
import { fnv1a64, targetDir, type HubTarget } from './spool-target.js';
import { defaultSpoolDir } from './spool.js';

/** Until the hub says how often it wants to hear (its first answer). */
const FIRST_EVERY_MS = 20_000;
/** How often the agent's pid is looked at. */
const WATCH_MS = 1000;
const REQUEST_TIMEOUT_MS = 5000;
/** Tries of a `gone` report before giving up (the hub's sweep then ends the run when the reports stopped). */
const GONE_TRIES = 4;

/** One keeper per agent process and session, in the spool directory of the hub and token. */
function keeperLock(dir: string, agentPid: number, tag: string): string {
  return join(dir, `keeper-${agentPid}-${fnv1a64(tag)}.lock`);
}

/**
 * Starts the keeper of the agent running this hook (`agentPid`, the one its events name), for
 * session `tag`, unless the flavor has none or one is alive. `entry`: the bridge's own file.
 */
export async function startKeeper(entry: string, flavor: string, tag: string, agentPid: number | undefined, env: NodeJS.ProcessEnv): Promise<void> {
  const target = targetOf(env);
  if (!target || getFlavor(flavor)?.hookConfig?.agentKeeper === undefined) return;
  // no /proc to tell the agent from a shell: no keeper, the idle-window rule stays
  if (agentPid === undefined) return;
  if (liveHolder(keeperLock(targetDir(defaultSpoolDir(env), target), agentPid, tag)) !== undefined) return;
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [fileURLToPath(entry), '--keep', flavor, tag, String(agentPid)], { detached: true, stdio: 'ignore', env });
  child.unref();
}

type Report = { kind: 'answer'; answer: HookAgentReportResponse } | { kind: 'refused' } | { kind: 'unreachable' };

async function report(target: HubTarget, body: { flavor: string; tag: string; agent: 'alive' | 'gone'; pid: number }): Promise<Report> {
  try {
    const answer = await postJson(new URL('/api/hooks/agent', target.url), { authorization: `Bearer ${target.token}` }, JSON.stringify(body), REQUEST_TIMEOUT_MS);
    if (answer.status === 200) return { kind: 'answer', answer: JSON.parse(answer.body) as HookAgentReportResponse };
    // a token refused, or a hub without this route (older): nothing to keep; a hub in trouble: again later
    return answer.status < 500 && answer.status !== 429 ? { kind: 'refused' } : { kind: 'unreachable' };
  } catch {
    return { kind: 'unreachable' };
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `session-hub hook --keep <flavor> <tag> <agentPid>`: the keeper itself. */
export async function runKeeper(flavor: string, tag: string, agentPid: number, env: NodeJS.ProcessEnv): Promise<void> {
  const target = targetOf(env);
  if (!target || !Number.isInteger(agentPid) || agentPid <= 1) return;
  const dir = targetDir(defaultSpoolDir(env), target);
  if (!existsSync(dir)) return;
  const lock = await acquireLock(keeperLock(dir, agentPid, tag), 0, Number.POSITIVE_INFINITY);
  if (!lock) return; // another keeper has this agent and session
  let agentGone = false;
  let wake: () => void = () => undefined;
  const stopWatching = watchPid(agentPid, () => {
    agentGone = true;
    wake();
  }, WATCH_MS);
  try {
    let everyMs = FIRST_EVERY_MS;
    // a spool directory removed (the hub's spool cleared): nothing left to keep for
    while (!agentGone && existsSync(dir)) {
      const said = await report(target, { flavor, tag, agent: 'alive', pid: agentPid });
      if (said.kind === 'refused' || (said.kind === 'answer' && !said.answer.live)) return;
      if (said.kind === 'answer') everyMs = said.answer.everyMs;
      await Promise.race([sleep(everyMs), new Promise<void>((resolve) => (wake = resolve))]);
    }
    for (let attempt = 0; agentGone && attempt < GONE_TRIES; attempt++) {
      if ((await report(target, { flavor, tag, agent: 'gone', pid: agentPid })).kind !== 'unreachable') return;
      await sleep(1000 * 2 ** attempt);
    }
  } finally {
    stopWatching();
    lock.release();
  }
}
