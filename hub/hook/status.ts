/**
 * What a spool directory holds, per flavor: events waiting per agent session, events the hub
 * refused, the last error, the drainer's state. Read by `session-hub hook status` and `doctor`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readDrainerState, type DrainerState } from './drainer.js';
import { killedHooks } from './killed-hooks.js';
import { refusalAdvice } from './refusal.js';
import { readJsonLines, Spool, spooledFlavors, type SpoolState, type SpooledEvent } from './spool.js';

export interface FlavorSpoolStatus {
  flavor: string;
  spooled: { tag: string | null; events: number; oldestFiredAt: number }[];
  /** Part files waiting to join the spool (the lock was busy). */
  queuedParts: number;
  rejected: { events: number; newestAt: number | null; newestReason: string | null };
  lastError: SpoolState['lastError'] | null;
  lastDelivery: SpoolState['lastDelivery'] | null;
  drainer: (DrainerState & { alive: boolean }) | null;
  /** Hook calls the agent killed before the bridge had their event: events lost on the agent's side. */
  killed: { calls: number; newestAt: number | null };
}

/** Flavors with a spool, or with hook calls killed before they had an event (which left no spool). */
function flavorsIn(dir: string): string[] {
  const killed = existsSync(dir) ? readdirSync(dir).flatMap((name) => /^killed-(.+)\.jsonl$/.exec(name)?.[1] ?? []) : [];
  return [...new Set([...spooledFlavors(dir), ...killed])].sort();
}

/** Read without the lock: a snapshot for a person, never written back. */
export function spoolStatus(dir: string): FlavorSpoolStatus[] {
  return flavorsIn(dir).map((flavor) => {
    const spool = new Spool(dir, flavor);
    const bySession = new Map<string | null, { events: number; oldestFiredAt: number }>();
    for (const event of readJsonLines<SpooledEvent>(spool.file)) {
      const entry = bySession.get(event.tag) ?? { events: 0, oldestFiredAt: event.firedAt };
      entry.events++;
      entry.oldestFiredAt = Math.min(entry.oldestFiredAt, event.firedAt);
      bySession.set(event.tag, entry);
    }
    const rejected = existsSync(spool.rejectedFile) ? spool.rejected() : [];
    const newest = rejected[rejected.length - 1];
    let state: Partial<SpoolState> = {};
    try {
      if (existsSync(spool.stateFile)) state = JSON.parse(readFileSync(spool.stateFile, 'utf8')) as SpoolState;
    } catch {
      // shown as no state; the next hook call sets the damaged file aside
    }
    return {
      flavor,
      spooled: [...bySession].map(([tag, entry]) => ({ tag, ...entry })),
      queuedParts: readdirSync(dir).filter((name) => name.startsWith(`spool-${flavor}.part-`) && name.endsWith('.json')).length,
      rejected: { events: rejected.length, newestAt: newest?.at ?? null, newestReason: newest?.reason ?? null },
      lastError: state.lastError ?? null,
      lastDelivery: state.lastDelivery ?? null,
      drainer: readDrainerState(dir, flavor) ?? null,
      killed: (() => {
        const killed = killedHooks(dir, flavor);
        return { calls: killed.length, newestAt: killed.at(-1)?.at ?? null };
      })(),
    };
  });
}

/** True when a person must act: events refused by the hub, hook calls killed before they had their event, or a hook that is not configured. */
export function needsAttention(status: FlavorSpoolStatus): boolean {
  return status.rejected.events > 0 || status.killed.calls > 0 || status.lastError?.kind === 'refused' || status.lastError?.kind === 'not-configured';
}

function at(ms: number): string {
  return new Date(ms).toISOString();
}

function drainerLine(drainer: FlavorSpoolStatus['drainer']): string {
  if (!drainer) return 'drainer: none has run';
  if (!drainer.alive) return `drainer: not running (last one exited at ${at(drainer.exitedAt ?? drainer.startedAt)}: ${drainer.exitReason ?? 'killed'})`;
  const next = drainer.nextTryAt ? `, next try at ${at(drainer.nextTryAt)}` : '';
  return `drainer: ${drainer.state} (pid ${drainer.pid}, attempt ${drainer.attempts}${next}${drainer.lastError ? `; last error: ${drainer.lastError}` : ''})`;
}

/** The status as lines for a person, each flavor's problems with their fix. */
export function formatSpoolStatus(dir: string, statuses: FlavorSpoolStatus[]): string[] {
  if (statuses.length === 0) return [`hook spool ${dir}: empty (no hook has run with this SESSION_HUB_SPOOL_DIR)`];
  const lines = [`hook spool ${dir}:`];
  for (const s of statuses) {
    const waiting = s.spooled.reduce((sum, x) => sum + x.events, 0) + s.queuedParts;
    lines.push(`  ${s.flavor}: ${waiting} event(s) spooled${s.queuedParts > 0 ? ` (${s.queuedParts} queued in part files)` : ''}`);
    for (const x of s.spooled) lines.push(`    session ${x.tag ?? '(none named)'}: ${x.events} event(s), oldest fired ${at(x.oldestFiredAt)}`);
    if (s.rejected.events > 0) {
      lines.push(`    rejected: ${s.rejected.events} event(s) in rejected-${s.flavor}.jsonl, newest ${at(s.rejected.newestAt!)}: ${s.rejected.newestReason}`);
    }
    if (s.lastError) {
      const advice = s.lastError.kind === 'refused' ? ` — fix: ${refusalAdvice(/^401/.test(s.lastError.message) ? 401 : 403, s.lastError.message)}` : '';
      lines.push(`    last error: ${at(s.lastError.at)} ${s.lastError.kind}: ${s.lastError.message}${advice}`);
    }
    if (s.killed.calls > 0) {
      lines.push(
        `    lost: ${s.killed.calls} hook call(s) killed by the agent before they read their event (newest ${at(s.killed.newestAt!)}), listed in killed-${s.flavor}.jsonl` +
          ` — fix: run "session-hub hook install ${s.flavor} --write" again (hooks of earlier installs ran in the background, which the agent kills when a headless run ends); remove the file once read`,
      );
    }
    if (s.lastDelivery) lines.push(`    last delivery: ${at(s.lastDelivery.at)}`);
    lines.push(`    ${drainerLine(s.drainer)}`);
  }
  return lines;
}

