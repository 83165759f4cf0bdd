/**
 * What a spool directory holds, per hub and flavor: events waiting per agent session, events the
 * hub refused, the last error, the drainer's state; and for the directory: damaged files set aside,
 * whether it can be written at all, hook calls that sent nothing. Read by `session-hub hook status`
 * and `doctor`, which report the present: a problem is history once a later call of the same flavor
 * delivered to the same hub (a refused token since replaced, a hub since configured).
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readBadCalls, type BadCall } from './bad-calls.js';
import { readDrainerState, type DrainerState } from './drainer.js';
import { refusalAdvice } from './refusal.js';
import { readTargetFile, targetDirs } from './spool-target.js';
import { readJsonLines, Spool, spooledFlavors, type SpoolState, type SpooledEvent } from './spool.js';
import { removeFileIfPresent } from './remove-file.js';

export interface FlavorSpoolStatus {
  flavor: string;
  /** The hub this spool is for (its origin); null: events written with no hub set, or by an earlier version. */
  hub: string | null;
  /** The spool's directory, relative to the spool dir ('' for an earlier version's files at its top). */
  dir: string;
  spooled: { tag: string | null; events: number; oldestFiredAt: number }[];
  /** Part files waiting to join the spool (the lock was busy). */
  queuedParts: number;
  rejected: { events: number; newestAt: number | null; newestReason: string | null };
  lastError: SpoolState['lastError'] | null;
  lastDelivery: SpoolState['lastDelivery'] | null;
  drainer: (DrainerState & { alive: boolean }) | null;
  /** True when something here needs a person now (not history). */
  attention: boolean;
}

export interface SpoolReport {
  dir: string;
  flavors: FlavorSpoolStatus[];
  /** Files set aside as unreadable (`*.corrupt`), relative to the spool dir. */
  corrupt: { file: string; bytes: number }[];
  /** Why the spool dir cannot be written now (a full disk), else null. */
  unwritable: string | null;
  /** The newest hook calls that sent nothing (unknown flavor, no session id, not JSON). */
  badCalls: BadCall[];
  /** Whether the newest bad call is still the present (no later delivery of its flavor). */
  badCallsPresent: boolean;
}

function readState(file: string): Partial<SpoolState> {
  try {
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as SpoolState) : {};
  } catch {
    return {}; // shown as no state; the next hook call sets the damaged file aside
  }
}

function flavorStatus(spoolDir: string, dir: string, flavor: string): Omit<FlavorSpoolStatus, 'attention'> {
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
  const state = readState(spool.stateFile);
  return {
    flavor,
    hub: readTargetFile(dir)?.url ?? null,
    dir: relative(spoolDir, dir),
    spooled: [...bySession].map(([tag, entry]) => ({ tag, ...entry })),
    queuedParts: readdirSync(dir).filter((name) => name.startsWith(`spool-${flavor}.part-`) && name.endsWith('.json')).length,
    rejected: { events: rejected.length, newestAt: newest?.at ?? null, newestReason: newest?.reason ?? null },
    lastError: state.lastError ?? null,
    lastDelivery: state.lastDelivery ?? null,
    drainer: readDrainerState(dir, flavor) ?? null,
  };
}

/** The newest delivery of a flavor to a hub (any hub when `hub` is null: the unnamed spool's events go wherever a person sends them). */
function newestDelivery(all: Omit<FlavorSpoolStatus, 'attention'>[], flavor: string, hub: string | null): number {
  return Math.max(0, ...all.filter((s) => s.flavor === flavor && (hub === null || s.hub === hub)).map((s) => s.lastDelivery?.at ?? 0));
}

function isPresent(s: Omit<FlavorSpoolStatus, 'attention'>, all: Omit<FlavorSpoolStatus, 'attention'>[]): boolean {
  const delivered = newestDelivery(all, s.flavor, s.hub);
  const errorNow = s.lastError != null && s.lastError.kind !== 'unreachable' && s.lastError.at > delivered;
  const rejectedNow = s.rejected.newestAt !== null && s.rejected.newestAt > delivered;
  return errorNow || rejectedNow;
}

function corruptFiles(spoolDir: string, dirs: string[]): SpoolReport['corrupt'] {
  return dirs.flatMap((dir) =>
    readdirSync(dir)
      .filter((name) => name.endsWith('.corrupt'))
      .map((name) => ({ file: relative(spoolDir, join(dir, name)), bytes: statSync(join(dir, name)).size })),
  );
}

/** Writes and removes a probe file of a few KiB: a full disk or a read-only directory answers. */
function probeWritable(dir: string): string | null {
  if (!existsSync(dir)) return null;
  const probe = join(dir, `.status-probe-${process.pid}`);
  try {
    writeFileSync(probe, Buffer.alloc(8192));
    return null;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    return code ? `${code}: ${message}` : message;
  } finally {
    try {
      removeFileIfPresent(probe);
    } catch {
      // nothing written
    }
  }
}

/** Read without the lock: a snapshot for a person, never written back (only a probe file, removed at once). */
export function spoolStatus(spoolDir: string): SpoolReport {
  const dirs = targetDirs(spoolDir);
  const all = dirs.flatMap((dir) => spooledFlavors(dir).map((flavor) => flavorStatus(spoolDir, dir, flavor)));
  const flavors = all.map((s) => ({ ...s, attention: isPresent(s, all) }));
  const badCalls = readBadCalls(spoolDir).slice(-5);
  const lastBad = badCalls[badCalls.length - 1];
  return {
    dir: spoolDir,
    flavors,
    corrupt: corruptFiles(spoolDir, dirs),
    unwritable: probeWritable(spoolDir),
    badCalls,
    badCallsPresent: lastBad !== undefined && lastBad.at > newestDelivery(all, lastBad.flavor, null),
  };
}

/** How many things need a person now: present refusals, an unconfigured hook, damaged files, an unwritable spool, bad calls. */
export function needsAttention(report: SpoolReport): number {
  return report.flavors.filter((s) => s.attention).length + (report.corrupt.length > 0 ? 1 : 0) + (report.unwritable ? 1 : 0) + (report.badCallsPresent ? 1 : 0);
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

function flavorLines(s: FlavorSpoolStatus): string[] {
  const lines: string[] = [];
  const waiting = s.spooled.reduce((sum, x) => sum + x.events, 0) + s.queuedParts;
  lines.push(`    ${s.flavor}: ${waiting} event(s) spooled${s.queuedParts > 0 ? ` (${s.queuedParts} queued in part files)` : ''}`);
  for (const x of s.spooled) lines.push(`      session ${x.tag ?? '(none named)'}: ${x.events} event(s), oldest fired ${at(x.oldestFiredAt)}`);
  if (s.rejected.events > 0) {
    const when = s.attention ? '' : ' (history: deliveries since succeeded)';
    lines.push(`      rejected: ${s.rejected.events} event(s) in rejected-${s.flavor}.jsonl${when}, newest ${at(s.rejected.newestAt!)}: ${s.rejected.newestReason}`);
    lines.push('        to send the ones refused for their token with the token set now: session-hub hook retry-refused');
  }
  if (s.lastError) {
    const advice = s.lastError.kind === 'refused' ? ` — fix: ${refusalAdvice(/^401/.test(s.lastError.message) ? 401 : 403, s.lastError.message)}` : '';
    const history = s.attention || s.lastError.kind === 'unreachable' ? '' : ' (history: deliveries since succeeded)';
    lines.push(`      last error${history}: ${at(s.lastError.at)} ${s.lastError.kind}: ${s.lastError.message}${advice}`);
  }
  if (s.lastDelivery) lines.push(`      last delivery: ${at(s.lastDelivery.at)}`);
  if (s.hub !== null) lines.push(`      ${drainerLine(s.drainer)}`);
  return lines;
}

/** The status as lines for a person, each problem with its fix. */
export function formatSpoolStatus(report: SpoolReport): string[] {
  const { dir } = report;
  if (report.flavors.length === 0 && report.badCalls.length === 0 && report.corrupt.length === 0 && !report.unwritable) {
    return [`hook spool ${dir}: empty (no hook has run with this SESSION_HUB_SPOOL_DIR)`];
  }
  const lines = [`hook spool ${dir}:`];
  if (report.unwritable) {
    lines.push(`  the spool cannot be written (${report.unwritable}): hook events are sent to the hub directly while it is up, and lost while it is down — free space or fix the directory's permissions`);
  }
  const groups = new Map<string, FlavorSpoolStatus[]>();
  for (const s of report.flavors) groups.set(s.dir, [...(groups.get(s.dir) ?? []), s]);
  for (const [group, statuses] of groups) {
    const hub = statuses[0]!.hub;
    if (hub !== null) lines.push(`  hub ${hub} (token ${group.replace(/^hub-/, '#')}):`);
    else if (group === '') lines.push('  written by an earlier version (no hub recorded); `session-hub hook retry-refused` sends them to SESSION_HUB_URL:');
    else lines.push('  written with SESSION_HUB_URL or SESSION_HUB_TOKEN unset; `session-hub hook retry-refused` sends them once both are set:');
    for (const s of statuses) lines.push(...flavorLines(s));
  }
  if (report.corrupt.length > 0) {
    lines.push(`  damaged files set aside (${report.corrupt.length}): unreadable lines or files, kept for a person — read them, then delete them:`);
    for (const c of report.corrupt) lines.push(`    ${c.file} (${c.bytes} bytes)`);
  }
  if (report.badCalls.length > 0) {
    lines.push(`  hook calls that sent nothing${report.badCallsPresent ? '' : ' (history: deliveries since succeeded)'}:`);
    for (const call of report.badCalls) lines.push(`    ${at(call.at)} ${call.flavor}: ${call.problem}`);
  }
  return lines;
}
