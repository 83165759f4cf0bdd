/**
 * The pinned agent CLIs (test/agents/clis: package.json + package-lock.json): installed with `npm ci`
 * from the npm registry into a cache outside the repo (SESSION_HUB_AGENT_CLI_CACHE, default
 * ~/.cache/session-hub/agent-clis/<lockfile hash>), once per machine, shared by every checkout;
 * the native binaries come as the packages' optional dependencies and are run directly. Used by
 * the tests' global setup (test/setup/agent-clis.ts) and by the agent benches.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface AgentClis {
  claude: string;
  codex: string;
  /** Package name → pinned version. */
  versions: Record<string, string>;
}

/** The cache the pinned CLIs are installed in: outside the repo, shared by every checkout, keyed by the lockfile. */
function cacheDir(pins: string): string {
  const root = process.env.SESSION_HUB_AGENT_CLI_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'session-hub', 'agent-clis');
  const key = createHash('sha256').update(readFileSync(join(pins, 'package-lock.json'))).digest('hex').slice(0, 16);
  return join(root, key);
}

/** npm itself: the one running `npm test` when there is one, else `npm` from PATH. */
function npmCommand(): [string, string[]] {
  const execPath = process.env.npm_execpath;
  return execPath && /\.(c|m)?js$/.test(execPath) ? [process.execPath, [execPath]] : ['npm', []];
}

/** One process installs; the others (parallel runs, other checkouts) wait for its rename. */
async function install(pins: string, target: string): Promise<void> {
  if (existsSync(join(target, 'node_modules'))) return;
  mkdirSync(resolve(target, '..'), { recursive: true });
  const lock = `${target}.lock`;
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(join(target, 'node_modules'))) return;
      // an installer that died leaves its lock: stale after 10 minutes
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })!.mtimeMs > 10 * 60_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`another process holds ${lock} for over 10 minutes`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  const staging = `${target}.tmp-${process.pid}`;
  try {
    if (existsSync(join(target, 'node_modules'))) return;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(pins, file), join(staging, file));
    const [npm, prefix] = npmCommand();
    // --ignore-scripts: the tests run the native binaries of the platform packages directly
    await run(npm, [...prefix, 'ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: staging, timeout: 10 * 60_000, maxBuffer: 16 << 20 });
    rmSync(target, { recursive: true, force: true });
    renameSync(staging, target);
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(lock, { recursive: true, force: true });
  }
}

function isMusl(): boolean {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return process.platform === 'linux' && header?.glibcVersionRuntime === undefined;
}

function claudeBinary(modules: string): string {
  const pkg = `@anthropic-ai/claude-code-${process.platform}-${process.arch}${isMusl() ? '-musl' : ''}`;
  const path = join(modules, pkg, process.platform === 'win32' ? 'claude.exe' : 'claude');
  if (!existsSync(path)) throw new Error(`no Claude Code binary for this platform at ${path}`);
  return path;
}

function codexBinary(modules: string): string {
  const vendor = join(modules, `@openai/codex-${process.platform}-${process.arch}`, 'vendor');
  const triple = existsSync(vendor) ? readdirSync(vendor).find((name) => existsSync(join(vendor, name, 'bin', 'codex'))) : undefined;
  if (triple === undefined) throw new Error(`no Codex binary for this platform under ${vendor}`);
  return join(vendor, triple, 'bin', 'codex');
}


/** Installs the pins when the cache lacks them, and names the native binaries. */
export async function installAgentClis(pins: string): Promise<AgentClis> {
  const target = cacheDir(pins);
  await install(pins, target);
  const modules = join(target, 'node_modules');
  const manifest = JSON.parse(readFileSync(join(pins, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  return { claude: claudeBinary(modules), codex: codexBinary(modules), versions: manifest.dependencies };
}
