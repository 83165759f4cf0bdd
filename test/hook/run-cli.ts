import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const CLI = resolve(import.meta.dirname, '../../dist/hub/cli.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the compiled `session-hub` CLI as a child process, with `stdin` written and closed. */
export function runCli(args: string[], options: { stdin?: string; env?: Record<string, string>; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolveRun({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

export function fixture(name: string): Record<string, unknown>[] {
  return JSON.parse(readFileSync(resolve(import.meta.dirname, 'fixtures', name), 'utf8')) as Record<string, unknown>[];
}

/** Sends hook payloads one after another, as the agent does. */
export async function sendHooks(flavor: string, payloads: Record<string, unknown>[], env: Record<string, string>): Promise<CliResult[]> {
  const results: CliResult[] = [];
  for (const payload of payloads) results.push(await runCli(['hook', flavor], { stdin: JSON.stringify(payload), env }));
  return results;
}
