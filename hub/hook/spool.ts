/**
 * The local spool of one flavor (part of the hook bridge bundle: node built-ins only):
 * - `spool-<flavor>.jsonl`: events not yet delivered, in order, one JSON line each;
 * - `state-<flavor>.json`: the next seq per agent session, the sessions told about a refused token,
 *   the last error and the last delivery (read by `session-hub hook status` and `doctor`);
 * - `rejected-<flavor>.jsonl`: events the hub refused (401/403, or a request it cannot read), the
 *   newest MAX_REJECTED kept: nothing silently lost, nothing unbounded.
 * Every read-modify-write happens under the spool lock and lands by atomic rename, so concurrent
 * hook processes neither lose nor tear a line.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { HookEvent } from '../../shared/protocol/hooks.js';
import { removeFileIfPresent } from './remove-file.js';
import { acquireLock } from './spool-lock.js';

/** An event as spooled: the wire event plus its agent session (for status), when the payload names one. */
export type SpooledEvent = HookEvent & { tag: string | null };

export type ErrorKind = 'unreachable' | 'refused' | 'unreadable' | 'not-configured';

export interface SpoolState {
  seqs: Record<string, { next: number; touchedAt: number }>;
  /** Agent sessions already told (through the agent's own channel) that the hook's token is refused. */
  told: Record<string, number>;
  lastError?: { at: number; kind: ErrorKind; message: string };
  lastDelivery?: { at: number; delivered: number };
  /** Per agent session: its transcript and the byte offset where the current turn began (hub/hook/turn-usage.ts). */
  turnStarts?: Record<string, { path: string; offset: number; touchedAt: number }>;
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
  writeFileSync(tmp, content);
  renameSync(tmp, path);
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

export class Spool {
  readonly file: string;
  readonly stateFile: string;
  readonly rejectedFile: string;
  readonly lockFile: string;
  /** What this process found damaged and set aside (never silently dropped); reported on stderr. */
  readonly problems: string[] = [];

  constructor(readonly dir: string, readonly flavor: string) {
    this.file = join(dir, `spool-${flavor}.jsonl`);
    this.stateFile = join(dir, `state-${flavor}.json`);
    this.rejectedFile = join(dir, `rejected-${flavor}.jsonl`);
    this.lockFile = join(dir, `spool-${flavor}.lock`);
  }

  /** Runs fn holding the lock; null when the lock could not be had within waitMs. */
  async locked<T>(waitMs: number, fn: () => Promise<T> | T): Promise<{ value: T } | null> {
    mkdirSync(this.dir, { recursive: true });
    const release = await acquireLock(this.lockFile, waitMs);
    if (!release) return null;
    try {
      return { value: await fn() };
    } finally {
      release();
    }
  }

  // ---- the following run under the lock ----

  read(): SpooledEvent[] {
    this.adoptParts();
    return readJsonLines<SpooledEvent>(this.file, (line) => {
      // cannot happen under the lock, but if it does: keep the line aside, don't block the spool
      appendFileSync(`${this.file}.corrupt`, `${line}\n`);
      this.problems.push(`an unreadable spool line was moved to ${this.file}.corrupt`);
    });
  }

  write(events: SpooledEvent[]): void {
    if (events.length === 0) removeFileIfPresent(this.file);
    else atomicWrite(this.file, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  }

  /** Appends one event, its seq taken now: the order of the spool is the order of the seqs. */
  append(event: Omit<SpooledEvent, 'seq'>, state: SpoolState): SpooledEvent {
    return this.appendTaken({ ...event, seq: this.nextSeq(state, event.tag, event.firedAt) });
  }

  /** Appends an event whose seq was taken before (a sync event the hub did not answer for). */
  appendTaken(spooled: SpooledEvent): SpooledEvent {
    mkdirSync(this.dir, { recursive: true });
    appendFileSync(this.file, `${JSON.stringify(spooled)}\n`);
    return spooled;
  }

  /** Takes the event's seq without spooling it (a sync event, sent on its own). */
  nextSeq(state: SpoolState, tag: string | null, at: number): number {
    const key = tag ?? '';
    // a session the state forgot (state file lost or damaged): go on after its spooled events
    const entry = (state.seqs[key] ??= { next: this.lastSpooledSeq(tag) + 1, touchedAt: at });
    entry.touchedAt = Math.max(entry.touchedAt, at);
    return entry.next++;
  }

  private lastSpooledSeq(tag: string | null): number {
    const events = readJsonLines<SpooledEvent>(this.file, () => undefined);
    return events.reduce((max, e) => (e.tag === tag ? Math.max(max, e.seq) : max), -1);
  }

  state(): SpoolState {
    const empty: SpoolState = { seqs: {}, told: {} };
    if (!existsSync(this.stateFile)) return empty;
    try {
      return { ...empty, ...(JSON.parse(readFileSync(this.stateFile, 'utf8')) as Partial<SpoolState>) };
    } catch (error) {
      // start afresh (seqs restart; the hub orders by arrival then) but keep the file for a person
      renameSync(this.stateFile, `${this.stateFile}.corrupt`);
      this.problems.push(`${this.stateFile} was unreadable (${(error as Error).message}); moved to .corrupt and started afresh`);
      return empty;
    }
  }

  saveState(state: SpoolState): void {
    const newest = <T>(record: Record<string, T>, at: (value: T) => number) =>
      Object.fromEntries(Object.entries(record).sort(([, a], [, b]) => at(b) - at(a)).slice(0, MAX_SESSIONS));
    mkdirSync(this.dir, { recursive: true });
    const turnStarts = state.turnStarts && newest(state.turnStarts, (t) => t.touchedAt);
    atomicWrite(this.stateFile, JSON.stringify({ ...state, seqs: newest(state.seqs, (s) => s.touchedAt), told: newest(state.told, (at) => at), ...(turnStarts ? { turnStarts } : {}) }));
  }

  /** Keeps refused events aside, the newest MAX_REJECTED of them. */
  reject(events: SpooledEvent[], reason: string, at: number): void {
    if (events.length === 0) return;
    const kept = readJsonLines<unknown>(this.rejectedFile, () => undefined);
    const lines = [...kept, ...events.map((event) => ({ at, reason, event }))].slice(-MAX_REJECTED);
    atomicWrite(this.rejectedFile, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  }

  rejected(): { at: number; reason: string; event: SpooledEvent }[] {
    return readJsonLines(this.rejectedFile, () => undefined);
  }

  // ---- without the lock ----

  /**
   * When the lock stays taken past the budget, the event goes to its own part file (atomic
   * rename); the next holder of the lock appends the parts, in name order, to the spool, taking
   * their seqs then.
   */
  writePart(event: Omit<SpooledEvent, 'seq'>): void {
    mkdirSync(this.dir, { recursive: true });
    const name = `spool-${this.flavor}.part-${String(event.firedAt).padStart(15, '0')}-${event.id}.json`;
    atomicWrite(join(this.dir, name), JSON.stringify(event));
  }

  /** Appends queued part files to the spool (under the lock); `state` given: the caller saves it. */
  adoptParts(given?: SpoolState): void {
    if (!existsSync(this.dir)) return;
    const prefix = `spool-${this.flavor}.part-`;
    const parts = readdirSync(this.dir).filter((name) => name.startsWith(prefix) && name.endsWith('.json')).sort();
    if (parts.length === 0) return;
    const state = given ?? this.state();
    for (const name of parts) {
      const path = join(this.dir, name);
      try {
        this.append(JSON.parse(readFileSync(path, 'utf8')) as Omit<SpooledEvent, 'seq'>, state);
      } catch {
        renameSync(path, `${path}.corrupt`);
        this.problems.push(`an unreadable part file was moved to ${path}.corrupt`);
        continue;
      }
      removeFileIfPresent(path);
    }
    if (!given) this.saveState(state);
  }
}
