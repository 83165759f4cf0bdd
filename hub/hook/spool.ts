/**
 * The local spool of one flavor for one hub and token (part of the hook bridge bundle: node
 * built-ins only), in that target's directory (./spool-target.ts):
 * - `spool-<flavor>.jsonl`: events not yet delivered, in order, one JSON line each;
 * - `state-<flavor>.json`: the next seq per agent session, the sessions told about a refused token,
 *   the last error and the last delivery (read by `session-hub hook status` and `doctor`);
 * - `rejected-<flavor>.jsonl`: events the hub refused (401/403, or a request it cannot read), the
 *   newest MAX_REJECTED kept: nothing silently lost, nothing unbounded.
 * Every read-modify-write happens under the spool lock, and every write first checks the lock is
 * still this process's (a holder frozen past the lock's age rule loses it, and then writes nothing
 * more: LockLost). The state is read once per hold and is the one object every step of the hold
 * changes, so a seq once taken is saved before its event lands and never handed out again.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { HookEvent } from '../../shared/protocol/hooks.js';
import { removeFileIfPresent } from './remove-file.js';
import { acquireLock, type HeldLock } from './spool-lock.js';
import { readTargetFile, targetFilePath, type TargetFile } from './spool-target.js';

/** An event as spooled: the wire event plus its agent session (for status), when the payload names one. */
export type SpooledEvent = HookEvent & { tag: string | null };

export type ErrorKind = 'unreachable' | 'refused' | 'unreadable' | 'not-configured';

export interface SpoolState {
  seqs: Record<string, { next: number; touchedAt: number }>;
  /** Agent sessions already told (through the agent's own channel) that the hook's token is refused. */
  told: Record<string, number>;
  lastError?: { at: number; kind: ErrorKind; message: string };
  lastDelivery?: { at: number; delivered: number };
  /**
   * Per agent session: its transcript and the byte offset where the current turn began; after a
   * turn-stop, where that stopped turn began too (`stoppedFrom`), read again at session-end
   * (hub/hook/turn-usage.ts).
   */
  /** `model`: the one the turn-stop's payload named, for the session-end's read of that turn (its payload names none). */
  turnStarts?: Record<string, { path: string; offset: number; stoppedFrom?: number; model?: string; touchedAt: number }>;
  /** Per agent session: its transcript and where the agent's words were last read to (hub/hook/agent-texts.ts). */
  textOffsets?: Record<string, { path: string; offset: number; touchedAt: number }>;
}

/** This process lost the spool lock (frozen past its age rule): it writes nothing more. */
export class LockLost extends Error {
  constructor() {
    super('the spool lock was taken over (this process was frozen past its age rule); nothing more is written');
  }
}

/** Remembered sessions; the least recently touched are forgotten beyond this. */
const MAX_SESSIONS = 1000;
/** Refused events kept (the newest). */
export const MAX_REJECTED = 1000;

export function defaultSpoolDir(env: NodeJS.ProcessEnv): string {
  return env.SESSION_HUB_SPOOL_DIR ?? join(homedir(), '.session-hub');
}

/** Writes a file whole or not at all: a temporary file, then a rename over the target. */
export function atomicWrite(path: string, content: string): void {
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(tmp, content);
    renameSync(tmp, path);
  } catch (error) {
    removeFileIfPresent(tmp); // a full disk leaves no half-written temporary file behind
    throw error;
  }
}

/** The parsed lines of a JSON-lines file ([] when absent); `onBad` gets each unreadable line. */
export function readJsonLines<T>(path: string, onBad: (line: string) => void = () => undefined): T[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as T];
      } catch {
        onBad(line);
        return [];
      }
    });
}

/** The flavors that have a spool in a directory (for status and doctor). */
export function spooledFlavors(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const flavors = new Set<string>();
  for (const name of readdirSync(dir)) {
    const match = /^(?:spool|state|rejected|drainer)-([^.]+)\.(?:jsonl|json|lock)$/.exec(name) ?? /^spool-([^.]+)\.part-/.exec(name);
    if (match) flavors.add(match[1]!);
  }
  return [...flavors].sort();
}

/** Appends lines whole or not at all: a failed append (a full disk) is cut back to where it began. */
function appendWhole(path: string, text: string): void {
  let size = 0;
  try {
    size = statSync(path).size;
  } catch {
    // a new file
  }
  try {
    appendFileSync(path, text);
  } catch (error) {
    try {
      if (size === 0) removeFileIfPresent(path);
      else truncateSync(path, size);
    } catch {
      // the line may stay torn: the next reader sets it aside in .corrupt
    }
    throw error;
  }
}

export class Spool {
  readonly file: string;
  readonly stateFile: string;
  readonly rejectedFile: string;
  readonly lockFile: string;
  /** What this process found damaged and set aside (never silently dropped); reported on stderr. */
  readonly problems: string[] = [];
  private lock: HeldLock | undefined;
  private held: SpoolState | undefined;
  /** The held state as last read or saved: a hold saves it at its end only when it changed. */
  private savedJson = '';

  /** `target`: written to the directory's target.json (the hub's URL, never the token) when missing. */
  constructor(
    readonly dir: string,
    readonly flavor: string,
    private readonly target?: TargetFile,
  ) {
    this.file = join(dir, `spool-${flavor}.jsonl`);
    this.stateFile = join(dir, `state-${flavor}.json`);
    this.rejectedFile = join(dir, `rejected-${flavor}.jsonl`);
    this.lockFile = join(dir, `spool-${flavor}.lock`);
  }

  /**
   * Runs fn holding the lock; null when the lock could not be had within waitMs, or was lost
   * (LockLost) on the way. The state fn changed is saved before the lock is released. Throws
   * what the file system throws (a full disk: ENOSPC).
   */
  async locked<T>(waitMs: number, fn: () => Promise<T> | T): Promise<{ value: T } | null> {
    mkdirSync(this.dir, { recursive: true });
    const lock = await acquireLock(this.lockFile, waitMs);
    if (!lock) return null;
    this.lock = lock;
    this.held = undefined;
    try {
      if (this.target && !existsSync(targetFilePath(this.dir))) atomicWrite(targetFilePath(this.dir), JSON.stringify(this.target));
      const value = await fn();
      if (this.held && JSON.stringify(this.held) !== this.savedJson) this.saveState();
      return { value };
    } catch (error) {
      if (error instanceof LockLost) {
        this.problems.push(error.message);
        return null;
      }
      throw error;
    } finally {
      this.lock = undefined;
      this.held = undefined;
      lock.release();
    }
  }

  /** Throws LockLost unless this process still holds the lock: checked before every write. */
  private guard(): void {
    if (!this.lock?.owns()) throw new LockLost();
  }

  // ---- the following run under the lock ----

  /** The held state: read once per hold, the same object for every step of it. */
  state(): SpoolState {
    if (this.held) return this.held;
    const state = this.readState();
    // never behind the spool itself (a state file lost, damaged, or saved by a holder that lost its lock)
    for (const event of readJsonLines<SpooledEvent>(this.file)) {
      const entry = (state.seqs[event.tag ?? ''] ??= { next: 0, touchedAt: event.firedAt });
      if (entry.next <= event.seq) entry.next = event.seq + 1;
    }
    this.held = state;
    this.savedJson = JSON.stringify(state);
    return state;
  }

  private readState(): SpoolState {
    const empty: SpoolState = { seqs: {}, told: {} };
    if (!existsSync(this.stateFile)) return empty;
    try {
      return { ...empty, ...(JSON.parse(readFileSync(this.stateFile, 'utf8')) as Partial<SpoolState>) };
    } catch (error) {
      // start afresh (seqs go on after the spooled events) but keep the file for a person
      this.guard();
      renameSync(this.stateFile, `${this.stateFile}.corrupt`);
      this.problems.push(`${this.stateFile} was unreadable (${(error as Error).message}); moved to .corrupt and started afresh`);
      return empty;
    }
  }

  saveState(): void {
    const state = this.state();
    const newest = <T>(record: Record<string, T>, at: (value: T) => number) =>
      Object.fromEntries(Object.entries(record).sort(([, a], [, b]) => at(b) - at(a)).slice(0, MAX_SESSIONS));
    const turnStarts = state.turnStarts && newest(state.turnStarts, (t) => t.touchedAt);
    const textOffsets = state.textOffsets && newest(state.textOffsets, (t) => t.touchedAt);
    this.guard();
    atomicWrite(this.stateFile, JSON.stringify({ ...state, seqs: newest(state.seqs, (s) => s.touchedAt), told: newest(state.told, (at) => at), ...(turnStarts ? { turnStarts } : {}), ...(textOffsets ? { textOffsets } : {}) }));
    this.savedJson = JSON.stringify(state);
  }

  /** The spool's events, queued part files first appended to it. */
  read(): SpooledEvent[] {
    this.adoptParts();
    return readJsonLines<SpooledEvent>(this.file, (line) => {
      // cannot happen under the lock, but if it does: keep the line aside, don't block the spool
      appendFileSync(`${this.file}.corrupt`, `${line}\n`);
      this.problems.push(`an unreadable spool line was moved to ${this.file}.corrupt`);
    });
  }

  /** Removes the events it settled, by id, from the spool as it is now: nothing else is touched. */
  remove(ids: ReadonlySet<string>): void {
    if (ids.size === 0) return;
    this.guard();
    const kept = readJsonLines<SpooledEvent>(this.file).filter((e) => !ids.has(e.id));
    if (kept.length === 0) removeFileIfPresent(this.file);
    else atomicWrite(this.file, kept.map((e) => JSON.stringify(e)).join('\n') + '\n');
  }

  /** Appends events, their seqs taken now and saved before they land: the spool's order is the seqs'. */
  append(...events: Omit<SpooledEvent, 'seq'>[]): SpooledEvent[] {
    const spooled = events.map((event) => ({ ...event, seq: this.nextSeq(event.tag, event.firedAt) }));
    this.saveState();
    this.appendTaken(...spooled);
    return spooled;
  }

  /** Appends events whose seqs were taken before (a sync event the hub did not answer for). */
  appendTaken(...spooled: SpooledEvent[]): void {
    if (spooled.length === 0) return;
    this.guard();
    appendWhole(this.file, spooled.map((e) => `${JSON.stringify(e)}\n`).join(''));
  }

  /** Takes the event's seq (saved with the state; a sync event is sent on its own). */
  nextSeq(tag: string | null, at: number): number {
    const state = this.state();
    const entry = (state.seqs[tag ?? ''] ??= { next: 0, touchedAt: at });
    entry.touchedAt = Math.max(entry.touchedAt, at);
    return entry.next++;
  }

  /** Keeps refused events aside, the newest MAX_REJECTED of them. */
  reject(events: SpooledEvent[], reason: string, at: number): void {
    if (events.length === 0) return;
    this.guard();
    const kept = readJsonLines<unknown>(this.rejectedFile, () => undefined);
    const lines = [...kept, ...events.map((event) => ({ at, reason, event }))].slice(-MAX_REJECTED);
    atomicWrite(this.rejectedFile, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  }

  /** Removes refused events (by id) from the rejected file: they were put back in a spool. */
  dropRejected(ids: ReadonlySet<string>): void {
    if (ids.size === 0) return;
    this.guard();
    const kept = this.rejected().filter((r) => !ids.has(r.event.id));
    if (kept.length === 0) removeFileIfPresent(this.rejectedFile);
    else atomicWrite(this.rejectedFile, kept.map((line) => JSON.stringify(line)).join('\n') + '\n');
  }

  rejected(): { at: number; reason: string; event: SpooledEvent }[] {
    return readJsonLines(this.rejectedFile, () => undefined);
  }

  /** The hub this spool is for (its target.json), when known. */
  hub(): TargetFile | undefined {
    return this.target ?? readTargetFile(this.dir);
  }

  // ---- without the lock ----

  /**
   * When the lock stays taken past the budget, the event goes to its own part file (atomic
   * rename); the next holder of the lock appends the parts, in name order, to the spool, taking
   * their seqs then.
   */
  writePart(event: Omit<SpooledEvent, 'seq'>): void {
    mkdirSync(this.dir, { recursive: true });
    if (this.target && !existsSync(targetFilePath(this.dir))) atomicWrite(targetFilePath(this.dir), JSON.stringify(this.target));
    const name = `spool-${this.flavor}.part-${String(event.firedAt).padStart(15, '0')}-${event.id}.json`;
    atomicWrite(join(this.dir, name), JSON.stringify(event));
  }

  /** Appends queued part files to the spool (under the lock), in name order, then removes them. */
  adoptParts(): void {
    if (!existsSync(this.dir)) return;
    const prefix = `spool-${this.flavor}.part-`;
    const names = readdirSync(this.dir).filter((name) => name.startsWith(prefix) && name.endsWith('.json')).sort();
    if (names.length === 0) return;
    const parts: { path: string; event: Omit<SpooledEvent, 'seq'> }[] = [];
    for (const name of names) {
      const path = join(this.dir, name);
      try {
        parts.push({ path, event: JSON.parse(readFileSync(path, 'utf8')) as Omit<SpooledEvent, 'seq'> });
      } catch {
        this.guard();
        renameSync(path, `${path}.corrupt`);
        this.problems.push(`an unreadable part file was moved to ${path}.corrupt`);
      }
    }
    this.append(...parts.map((p) => p.event));
    for (const { path } of parts) removeFileIfPresent(path);
  }
}
