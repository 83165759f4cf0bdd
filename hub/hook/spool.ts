/**
 * The local spool of one flavor: events not yet delivered, oldest first, one JSON line each
 * (`spool-<flavor>.jsonl`), plus what the bridge remembers per agent session
 * (`sessions-<flavor>.json`: the hub sid, whether its session-start was delivered, turns seen).
 * Every read-modify-write happens under the spool lock and lands by atomic rename, so concurrent
 * hook processes neither lose nor tear a line.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { endsTurn, type HookEvent } from './payload.js';
import { acquireLock } from './spool-lock.js';

export interface SessionRecord {
  /** The hub session id, once a session-start was answered. */
  sid?: string;
  /** The spooled id of the session-start that was delivered (a re-delivery of it is skipped). */
  startEventId?: string;
  turnsEnded: number;
  touchedAt: number;
}

/** Remembered sessions per flavor; the least recently touched are forgotten beyond this. */
const MAX_SESSIONS = 1000;

export function defaultSpoolDir(env: NodeJS.ProcessEnv): string {
  return env.SESSION_HUB_SPOOL_DIR ?? join(homedir(), '.session-hub');
}

/** Writes a file whole or not at all: a temporary file, then a rename over the target. */
export function atomicWrite(path: string, content: string): void {
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, content);
  renameSync(tmp, path);
}

export class Spool {
  readonly file: string;
  /** What this process found damaged and set aside (never silently dropped); reported on stderr. */
  readonly problems: string[] = [];
  private readonly sessionsFile: string;
  private readonly lockFile: string;

  constructor(readonly dir: string, readonly flavor: string) {
    this.file = join(dir, `spool-${flavor}.jsonl`);
    this.sessionsFile = join(dir, `sessions-${flavor}.json`);
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

  read(): HookEvent[] {
    this.adoptParts();
    if (!existsSync(this.file)) return [];
    return readFileSync(this.file, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as HookEvent];
        } catch {
          // cannot happen under the lock, but if it does: keep the line aside, don't block the spool
          appendFileSync(`${this.file}.corrupt`, `${line}\n`);
          this.problems.push(`an unreadable spool line was moved to ${this.file}.corrupt`);
          return [];
        }
      });
  }

  write(events: HookEvent[]): void {
    if (events.length === 0) rmSync(this.file, { force: true });
    else atomicWrite(this.file, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  }

  sessions(): Record<string, SessionRecord> {
    if (!existsSync(this.sessionsFile)) return {};
    try {
      return JSON.parse(readFileSync(this.sessionsFile, 'utf8')) as Record<string, SessionRecord>;
    } catch (error) {
      // start afresh (sessions are looked up again by tag) but keep the damaged file for a person
      renameSync(this.sessionsFile, `${this.sessionsFile}.corrupt`);
      this.problems.push(`${this.sessionsFile} was unreadable (${(error as Error).message}); moved to .corrupt and started afresh`);
      return {};
    }
  }

  saveSessions(records: Record<string, SessionRecord>): void {
    const entries = Object.entries(records).sort(([, a], [, b]) => b.touchedAt - a.touchedAt).slice(0, MAX_SESSIONS);
    atomicWrite(this.sessionsFile, JSON.stringify(Object.fromEntries(entries)));
  }

  // ---- without the lock ----

  /**
   * When the lock stays taken past the budget, the event goes to its own part file (atomic
   * rename); the next holder of the lock appends the parts, in name order, to the spool.
   */
  writePart(event: HookEvent): void {
    mkdirSync(this.dir, { recursive: true });
    const name = `spool-${this.flavor}.part-${String(event.receivedAt).padStart(15, '0')}-${event.id}.json`;
    atomicWrite(join(this.dir, name), JSON.stringify(event));
  }

  private adoptParts(): void {
    const prefix = `spool-${this.flavor}.part-`;
    const parts = readdirSync(this.dir).filter((name) => name.startsWith(prefix) && name.endsWith('.json')).sort();
    if (parts.length === 0) return;
    const existing = existsSync(this.file) ? readFileSync(this.file, 'utf8') : '';
    const lines = parts.map((name) => readFileSync(join(this.dir, name), 'utf8').trim());
    atomicWrite(this.file, `${existing}${existing === '' || existing.endsWith('\n') ? '' : '\n'}${lines.join('\n')}\n`);
    this.countTurnEnds(lines);
    for (const name of parts) rmSync(join(this.dir, name), { force: true });
  }

  /**
   * A part file's event was mapped without the lock, so a turn end in it was not counted: count it
   * now, before the next payload is mapped (else the same prompt typed in the next turn would get
   * the previous turn's promptId and be taken for a re-delivery).
   */
  private countTurnEnds(lines: string[]): void {
    const ends = lines.flatMap((line) => {
      try {
        const event = JSON.parse(line) as HookEvent;
        return endsTurn(event.action) ? [event] : [];
      } catch {
        return []; // read() sets an unreadable line aside
      }
    });
    if (ends.length === 0) return;
    const records = this.sessions();
    for (const event of ends) {
      const record = (records[event.tag] ??= { turnsEnded: 0, touchedAt: event.receivedAt });
      record.turnsEnded++;
      record.touchedAt = Math.max(record.touchedAt, event.receivedAt);
    }
    this.saveSessions(records);
  }
}
