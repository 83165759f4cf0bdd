import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { databaseUrlFor } from '../helpers/test-store.js';

const CLI = resolve(import.meta.dirname, '../../dist/hub/cli.js');

/**
 * Runs the compiled `session-hub` CLI as a child process, without blocking this process's event loop.
 * With `--data DIR`, on the PostgreSQL test store, it is pointed at that directory's test database.
 */
export async function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dataIndex = args.indexOf('--data');
  const dataDir = dataIndex >= 0 ? args[dataIndex + 1] : undefined;
  // a directory that does not exist stays a usage mistake, as it is on SQLite
  const databaseUrl = dataDir !== undefined && existsSync(dataDir) ? await databaseUrlFor(dataDir) : undefined;
  const storeEnv: Record<string, string> = databaseUrl === undefined ? {} : { SESSION_HUB_DATABASE_URL: databaseUrl };
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...storeEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}
