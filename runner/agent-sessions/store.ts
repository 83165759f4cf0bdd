/**
 * The sessions the agents keep on this machine (spec section 16): found in each flavor's store as
 * the registry declares it (shared/flavors.ts `sessionStore`), read by the reader its format names,
 * kept to the runner's roots. What was read is kept by file (size and mtime): a listing reads only
 * files new or changed since, so 10,000 transcripts answer from memory.
 */
import { readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { FLAVORS, resumeTokenProblem, type SessionStoreDeclaration } from '../../shared/flavors.js';
import { AGENT_SESSION_LIMITS, type AgentSession, type AgentSessionHistory, type ImportedTurn } from '../../shared/protocol/agent-sessions.js';
import { isUnder } from '../roots.js';
import { readClaudeJsonl } from './claude-jsonl.js';
import { readCodexRollout } from './codex-rollout.js';
import type { ParsedSession, ParsedTurn } from './parsed-session.js';
import { readTranscript, TranscriptRefused } from './transcript-file.js';

const READERS: Readonly<Record<SessionStoreDeclaration['format'], (records: readonly Record<string, unknown>[]) => ParsedSession>> = {
  'claude-jsonl': readClaudeJsonl,
  'codex-rollout': readCodexRollout,
};

interface Known {
  size: number;
  mtimeMs: number;
  flavor: string;
  summary: AgentSession;
}

/** The store's folder: `dirEnv` when set, else `dir` under the home. */
function storeDir(store: SessionStoreDeclaration, env: NodeJS.ProcessEnv): string {
  const fromEnv = store.dirEnv ? env[store.dirEnv] : undefined;
  if (fromEnv) return fromEnv;
  return store.dir.startsWith('~/') ? join(env.HOME ?? homedir(), store.dir.slice(2)) : store.dir;
}

/** Files under `dir` matching `pattern` (`*` one part, `**` any number of parts, `rollout-*.jsonl` a name). */
async function matching(dir: string, pattern: readonly string[]): Promise<string[]> {
  const [part, ...rest] = pattern;
  if (part === undefined) return [];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  if (part === '**') {
    found.push(...(await matching(dir, rest)));
    for (const entry of entries) if (entry.isDirectory()) found.push(...(await matching(join(dir, entry.name), pattern)));
    return found;
  }
  const name = new RegExp(`^${part.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
  for (const entry of entries) {
    if (!name.test(entry.name)) continue;
    if (rest.length === 0 && entry.isFile()) found.push(join(dir, entry.name));
    else if (rest.length > 0 && entry.isDirectory()) found.push(...(await matching(join(dir, entry.name), rest)));
  }
  return found;
}

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);
const cutJson = (value: unknown, max: number) => {
  const text = JSON.stringify(value ?? null) ?? 'null';
  return text.length > max ? `${text.slice(0, max)}…` : (value ?? null);
};

function bounded(turn: ParsedTurn): ImportedTurn {
  const usage = [...turn.usage.values()].slice(0, 32);
  return {
    prompt: cut(turn.prompt, AGENT_SESSION_LIMITS.maxTextChars),
    at: turn.at,
    endedAt: Math.max(turn.at, turn.endedAt),
    response: turn.response === null ? null : cut(turn.response, AGENT_SESSION_LIMITS.maxTextChars),
    tools: turn.tools.slice(0, AGENT_SESSION_LIMITS.maxToolsPerTurn).map((tool) => ({
      tool: cut(tool.tool, 200),
      ...(tool.toolUseId !== undefined && tool.toolUseId.length <= 1024 ? { toolUseId: tool.toolUseId } : {}),
      input: cutJson(tool.input, AGENT_SESSION_LIMITS.maxToolChars) as never,
      ...(tool.output !== undefined ? { output: cutJson(tool.output, AGENT_SESSION_LIMITS.maxToolChars) as never } : {}),
      at: tool.at,
      status: tool.status,
    })),
    ...(usage.length > 0 ? { usage } : {}),
  };
}

export class AgentSessionStore {
  private readonly known = new Map<string, Known>();

  constructor(
    private readonly roots: readonly string[],
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** Why a read session cannot be imported here, or null. */
  private problemOf(flavor: string, parsed: ParsedSession): string | null {
    const id = parsed.agentSessionId ?? '';
    const tokenProblem = resumeTokenProblem(flavor, id);
    if (tokenProblem !== null) return `its session id ${JSON.stringify(id.slice(0, 80))} ${tokenProblem}: not the agent's own, never imported`;
    if (parsed.cwd === null || !parsed.cwd.startsWith('/')) return 'it names no directory';
    if (!this.roots.some((root) => isUnder(parsed.cwd!, root))) return `its directory ${parsed.cwd} is outside this machine's roots`;
    if (parsed.turns.length === 0) return 'it holds no prompt';
    return null;
  }

  /** Reads (or takes from memory) one file's summary. */
  private async summaryOf(flavor: string, format: SessionStoreDeclaration['format'], file: string): Promise<Known | undefined> {
    const info = await stat(file).catch(() => undefined);
    if (!info) return undefined;
    const was = this.known.get(file);
    if (was && was.size === info.size && was.mtimeMs === info.mtimeMs) return was;
    const stem = basename(file, '.jsonl');
    let summary: AgentSession;
    try {
      const lines = await readTranscript(file);
      const parsed = READERS[format](lines.records);
      const problem = this.problemOf(flavor, parsed);
      summary = {
        flavor,
        agentSessionId: (parsed.agentSessionId ?? stem).slice(0, 256),
        path: parsed.cwd,
        title: parsed.turns[0] ? cut(parsed.turns[0].prompt.replace(/\s+/g, ' ').trim(), 200) : null,
        startedAt: parsed.startedAt,
        updatedAt: parsed.updatedAt ?? Math.round(info.mtimeMs),
        turns: parsed.turns.length,
        sid: null,
        ...(problem !== null ? { problem } : {}),
      };
    } catch (error) {
      const why = error instanceof TranscriptRefused ? error.message : `it could not be read: ${error instanceof Error ? error.message : String(error)}`;
      summary = { flavor, agentSessionId: stem.slice(0, 256), path: null, title: null, startedAt: null, updatedAt: Math.round(info.mtimeMs), turns: 0, sid: null, problem: why };
    }
    const known = { size: info.size, mtimeMs: info.mtimeMs, flavor, summary };
    this.known.set(file, known);
    return known;
  }

  /** Every transcript of every flavor with a store, by file. */
  private async files(): Promise<{ flavor: string; format: SessionStoreDeclaration['format']; file: string }[]> {
    const all: { flavor: string; format: SessionStoreDeclaration['format']; file: string }[] = [];
    for (const flavor of FLAVORS.values()) {
      if (!flavor.sessionStore) continue;
      const { format } = flavor.sessionStore;
      for (const file of await matching(storeDir(flavor.sessionStore, this.env), flavor.sessionStore.files.split('/'))) all.push({ flavor: flavor.id, format, file });
    }
    return all;
  }

  /** Sessions whose directory is `path` or below (default: every root), newest first, at most maxListed; those that cannot be imported say why. */
  async list(path?: string): Promise<AgentSession[]> {
    const found: AgentSession[] = [];
    for (const { flavor, format, file } of await this.files()) {
      const known = await this.summaryOf(flavor, format, file);
      if (!known) continue;
      const where = known.summary.path;
      // a session is shown where it worked; one whose directory is unknown (unreadable) only without a path
      if (where !== null ? !(path === undefined ? this.roots.some((root) => isUnder(where, root)) : isUnder(where, path)) : path !== undefined) continue;
      found.push(known.summary);
    }
    return found.sort((a, b) => b.updatedAt - a.updatedAt).slice(0, AGENT_SESSION_LIMITS.maxListed);
  }

  /** One session read whole for an import: refused with the reason when it cannot be. */
  async read(flavorId: string, agentSessionId: string): Promise<AgentSessionHistory> {
    const flavor = FLAVORS.get(flavorId);
    if (!flavor?.sessionStore) throw new TranscriptRefused(`${flavorId} keeps no sessions the runner can read`);
    const idProblem = resumeTokenProblem(flavor.id, agentSessionId);
    if (idProblem !== null) throw new TranscriptRefused(`agentSessionId ${idProblem}`);
    for (const { flavor: id, format, file } of (await this.files()).filter((entry) => entry.flavor === flavor.id)) {
      const known = await this.summaryOf(id, format, file);
      if (known?.summary.agentSessionId !== agentSessionId) continue;
      if (known.summary.problem) throw new TranscriptRefused(`${flavor.displayName} session ${agentSessionId} cannot be imported: ${known.summary.problem}`);
      const lines = await readTranscript(file);
      const parsed = READERS[format](lines.records);
      const problem = this.problemOf(id, parsed);
      if (problem !== null) throw new TranscriptRefused(`${flavor.displayName} session ${agentSessionId} cannot be imported: ${problem}`);
      const turns = parsed.turns.slice(-AGENT_SESSION_LIMITS.maxTurns).map(bounded);
      const left = parsed.turns.length - turns.length;
      const notes = [left > 0 ? `its first ${left} turns were left out (an import keeps the latest ${AGENT_SESSION_LIMITS.maxTurns})` : null, lines.broken > 0 ? `${lines.broken} lines were not JSON and were skipped` : null].filter(Boolean);
      return {
        flavor: id,
        agentSessionId,
        path: parsed.cwd!,
        startedAt: parsed.startedAt ?? turns[0]!.at,
        updatedAt: parsed.updatedAt ?? turns.at(-1)!.endedAt,
        turns,
        cut: notes.length > 0 ? notes.join('; ') : null,
      };
    }
    throw new TranscriptRefused(`no ${flavor.displayName} session ${agentSessionId} on this machine`);
  }
}
