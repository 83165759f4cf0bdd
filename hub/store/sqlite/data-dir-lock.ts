import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The pid of the holder, for the refusal's message only (the lock itself is `hub.lock`). */
const PID_FILE = 'hub.pid';

/**
 * SQLite serves one hub process: a second process on the same data directory would start its own
 * boot grace over the first one's runs and keep its own caches. The lock is an exclusive lock on
 * `<data>/hub.lock` held through SQLite's own file locking (an open exclusive transaction on a small
 * database kept open): the OS releases it the moment the process dies (kill -9, a crash), so a
 * restart never waits for, nor is fooled by, a pid check. Call `prepareDataDir` first.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  const file = join(dataDir, 'hub.lock');
  let db: Database.Database;
  try {
    db = openLockDatabase(file);
    // no wait: a held lock is refused at once
    try {
      db.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      db.close();
      throw error;
    }
  } catch (error) {
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    const holder = readHolder(join(dataDir, PID_FILE));
    throw new Error(
      `another hub process${holder === undefined ? '' : ` (pid ${holder})`} is serving ${dataDir}: SQLite serves one process. ` +
        'Stop it first, give this one its own SESSION_HUB_DATA, or run several processes on PostgreSQL (SESSION_HUB_DATABASE_URL; README: Several hub processes).',
    );
  }
  writeFileSync(join(dataDir, PID_FILE), `${process.pid}\n`);
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      rmSync(join(dataDir, PID_FILE), { force: true });
      db.close();
    },
  };
}

/** The lock database; a `hub.lock` left by an older hub (a pid in plain text) is replaced. */
function openLockDatabase(file: string): Database.Database {
  for (let attempt = 0; ; attempt++) {
    const db = new Database(file, { timeout: 0 });
    try {
      db.pragma('schema_version');
      return db;
    } catch (error) {
      db.close();
      if ((error as { code?: string }).code !== 'SQLITE_NOTADB' || attempt > 0) throw error;
      rmSync(file, { force: true });
    }
  }
}

function readHolder(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
