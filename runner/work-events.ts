/**
 * The hub's section 15 events on the machine's socket: each payload validated, each answered by
 * runner/work.ts, each refusal carried back with its code and words; nothing throws past an ack.
 */
import type { z } from 'zod';
import type { MachineFailedAck } from '../shared/protocol/machines.js';
import {
  MachineChangesPayloadSchema,
  MachineCommitPayloadSchema,
  MachineDiffPayloadSchema,
  MachineFilesPayloadSchema,
  MachineWorktreeRemovePayloadSchema,
} from '../shared/protocol/work.js';
import type { RunnerSocket } from '../shared/client/runner-client.js';
import { MachineAgentSessionReadPayloadSchema, MachineAgentSessionsPayloadSchema } from '../shared/protocol/agent-sessions.js';
import type { AgentSessionStore } from './agent-sessions/store.js';
import { TranscriptRefused } from './agent-sessions/transcript-file.js';
import { FileRefused } from './files.js';
import { GitRefused } from './git.js';
import type { RunnerLog } from './log.js';
import { changesOf, commitIn, diffOf, filesOf, removeSessionWorktree } from './work.js';

export interface WorkContext {
  roots: readonly string[];
  log: RunnerLog;
  /** A turn of this session is open on an agent this runner drives: a commit waits for it. */
  turnOpen(sid: string): boolean;
}

export function refusalOf(error: unknown): MachineFailedAck {
  if (error instanceof GitRefused || error instanceof FileRefused) return { ok: false, error: { code: error.code, message: error.message } };
  if (error instanceof TranscriptRefused) return { ok: false, error: { code: 'transcript_refused', message: error.message } };
  return { ok: false, error: { code: 'internal', message: `the runner could not do it: ${error instanceof Error ? error.message : String(error)}`.slice(0, 2000) } };
}

/** Validates, runs, answers: `{ ok: true, ...answer }` or the refusal. */
async function answer<S extends z.ZodType, A extends object>(schema: S, payload: unknown, run: (input: z.infer<S>) => Promise<A>): Promise<({ ok: true } & A) | MachineFailedAck> {
  const parsed = schema.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: { code: 'invalid_payload', message: `${issue?.path.join('.') || 'payload'}: ${issue?.message ?? 'invalid'}` } };
  }
  try {
    return { ok: true, ...(await run(parsed.data)) };
  } catch (error) {
    return refusalOf(error);
  }
}

/** Section 16: the agents' own sessions on this machine, listed and read for an import. */
export function answerAgentSessions(socket: RunnerSocket, store: AgentSessionStore, log: RunnerLog): void {
  socket.on('machine-agent-sessions', (payload, ack) => void answer(MachineAgentSessionsPayloadSchema, payload, async ({ path }) => ({ sessions: await store.list(path) })).then(ack));
  socket.on('machine-agent-session-read', (payload, ack) =>
    void answer(MachineAgentSessionReadPayloadSchema, payload, async ({ flavor, agentSessionId, requestedBy }) => {
      const history = await store.read(flavor, agentSessionId);
      log.info('agent session read for an import', { flavor, agentSessionId, turns: history.turns.length, cut: history.cut, requestedBy });
      return { history };
    }).then(ack),
  );
}

export function answerWork(socket: RunnerSocket, context: WorkContext): void {
  const { roots, log } = context;
  socket.on('machine-changes', (payload, ack) => void answer(MachineChangesPayloadSchema, payload, async ({ path }) => ({ changes: await changesOf(path, roots) })).then(ack));
  socket.on('machine-diff', (payload, ack) => void answer(MachineDiffPayloadSchema, payload, async ({ path, file }) => ({ diff: await diffOf(path, file, roots) })).then(ack));
  socket.on('machine-files', (payload, ack) => void answer(MachineFilesPayloadSchema, payload, async ({ path, file }) => ({ files: await filesOf(path, file, roots) })).then(ack));
  socket.on('machine-commit', (payload, ack) =>
    void answer(MachineCommitPayloadSchema, payload, async ({ sid, path, message, files, push, requestedBy }) => {
      if (context.turnOpen(sid)) throw new GitRefused('session_running', `a turn of session ${sid} is open: the agent may be writing; wait for it to finish, or interrupt it, then commit`);
      log.info('commit', { sid, path, files: files?.length ?? 'all', push, requestedBy });
      const commit = await commitIn(path, { message, files, push }, roots);
      log.info('committed', { sid, commit: commit.commit, branch: commit.branch, pushed: commit.pushed, requestedBy });
      return { commit };
    }).then((ack) => {
      if (!ack.ok) log.warn('commit refused', { code: ack.error.code, message: ack.error.message });
      return ack;
    }).then(ack),
  );
  socket.on('machine-worktree-remove', (payload, ack) =>
    void answer(MachineWorktreeRemovePayloadSchema, payload, async ({ sid, path, repoRoot, force, requestedBy }) => {
      await removeSessionWorktree({ path, repoRoot, force }, roots);
      log.info('worktree removed', { sid, path, force, requestedBy });
      return {};
    }).then(ack),
  );
}
