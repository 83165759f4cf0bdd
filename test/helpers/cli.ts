import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { databaseUrlFor } from './test-store.js';

const CLI = resolve(import.meta.dirname, '../../dist/hub/cli.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the compiled `session-hub` CLI as a child process (never blocking this process's event
 * loop), with only PATH and HOME from this environment plus `env`, and `stdin` written and closed.
 * With `--data DIR` on the PostgreSQL test store, it is pointed at that directory's test database
 * (a directory that does not exist stays a usage mistake, as on SQLite).
 */
export async function runCli(args: string[], options: { stdin?: string; env?: Record<string, string>; cwd?: string } = {}): Promise<CliResult> {
  const dataIndex = args.indexOf('--data');
  const dataDir = dataIndex >= 0 ? args[dataIndex + 1] : undefined;
  const databaseUrl = dataDir !== undefined && existsSync(dataDir) ? await databaseUrlFor(dataDir) : undefined;
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        ...(databaseUrl === undefined ? {} : { SESSION_HUB_DATABASE_URL: databaseUrl }),
        ...options.env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolveRun({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
