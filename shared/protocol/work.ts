/**
 * The work, from the phone (spec section 15, docs/work.md): the working tree of a session's
 * directory (changes against HEAD, a file's diff), its files, a commit (and push) and worktrees. The
 * machine runner of the session's machine answers each; the hub relays and stores nothing of the tree.
 * Both sides validate with these schemas.
 */
import { z } from 'zod';
import { idSchema } from './ids.js';
import { LIMITS } from './limits.js';
import { MachineFailedAckSchema, MachineIdSchema, MachinePathSchema, RequestedBySchema } from './machines.js';
import { SidSchema } from './session.js';
import { BranchNameSchema } from './git-names.js';

/** Text answered at most (a diff, a file): past it, `truncated: true`. */
export const WORK_TEXT_CAP_BYTES = 1024 * 1024;
/** Files listed at most by `changes` (past it, `truncated: true`). */
export const WORK_MAX_FILES = 2000;
/** Entries listed at most in a directory. */
export const WORK_MAX_ENTRIES = 2000;
/** How long the hub waits for a read's ack; a commit with a push waits longer (the network). */
export const WORK_READ_TIMEOUT_MS = 20_000;
export const WORK_COMMIT_TIMEOUT_MS = 130_000;

/** A path relative to the repository root or the session's directory, as a person or the page names it. */
export const RelativePathSchema = z
  .string()
  .max(4096)
  .refine((path) => !path.includes('\0'), 'must not hold a NUL byte')
  .refine((path) => !path.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(path), 'must be relative to the session\'s directory');

export const RepoStateSchema = z.object({
  root: z.string(),
  /** null on a detached HEAD. */
  branch: z.string().nullable(),
  /** null before the first commit. */
  head: z.string().nullable(),
  upstream: z.string().nullable(),
  ahead: z.number().int().nonnegative(),
  behind: z.number().int().nonnegative(),
});
export type RepoState = z.infer<typeof RepoStateSchema>;

export const ChangedFileSchema = z.object({
  path: z.string(),
  status: z.enum(['modified', 'added', 'deleted', 'renamed', 'untracked']),
  oldPath: z.string().optional(),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  binary: z.boolean(),
});
export type ChangedFile = z.infer<typeof ChangedFileSchema>;

export const WorkTreeChangesSchema = z.object({ repo: RepoStateSchema.nullable(), files: z.array(ChangedFileSchema), truncated: z.boolean() });
export type WorkTreeChanges = z.infer<typeof WorkTreeChangesSchema>;

// HTTP

export const ChangesResponseSchema = WorkTreeChangesSchema.extend({ sid: SidSchema, machineId: MachineIdSchema, path: z.string() });
export type ChangesResponse = z.infer<typeof ChangesResponseSchema>;
export const DiffQuerySchema = z.object({ file: RelativePathSchema.optional() });
export const DiffResponseSchema = z.object({ file: z.string().nullable(), diff: z.string(), truncated: z.boolean() });
export type DiffResponse = z.infer<typeof DiffResponseSchema>;
export const FilesQuerySchema = z.object({ path: RelativePathSchema.optional() });
export const FileEntrySchema = z.object({ name: z.string(), kind: z.enum(['file', 'dir']), size: z.number().int().nonnegative() });
export const FilesResponseSchema = z.discriminatedUnion('kind', [
  z.object({ path: z.string(), kind: z.literal('dir'), entries: z.array(FileEntrySchema), truncated: z.boolean() }),
  z.object({ path: z.string(), kind: z.literal('file'), size: z.number().int().nonnegative(), text: z.string().nullable(), binary: z.boolean(), truncated: z.boolean() }),
]);
export type FilesResponse = z.infer<typeof FilesResponseSchema>;

export const CommitRequestSchema = z.object({
  message: z.string().trim().min(1, 'must not be empty: say what the commit does').max(LIMITS.maxPromptBytes),
  files: z.array(RelativePathSchema).min(1, 'must name at least one file, or be left out for every change').max(WORK_MAX_FILES).optional(),
  push: z.boolean().default(false),
});
export type CommitRequest = z.infer<typeof CommitRequestSchema>;
export const CommitResponseSchema = z.object({ commit: z.string(), branch: z.string().nullable(), files: z.array(z.string()), pushed: z.boolean(), remote: z.string().optional() });
export type CommitResponse = z.infer<typeof CommitResponseSchema>;

export const RemoveWorktreeQuerySchema = z.object({ force: z.enum(['true', 'false']).optional() });
export const RemoveWorktreeResponseSchema = z.object({ sid: SidSchema, path: z.string(), branch: z.string(), removed: z.literal(true) });

/** `metadata.worktree`: the worktree a session's agent was started in (the runner writes it). */
export const SessionWorktreeSchema = z.object({ path: z.string(), branch: z.string(), base: z.string(), repoRoot: z.string() });
export type SessionWorktree = z.infer<typeof SessionWorktreeSchema>;

/** Metadata keys of section 15. `lastCommit` and `worktreeRemoved` are the hub's: what a person did, and who. */
export const WORK_METADATA_KEYS = { worktree: 'worktree', lastCommit: 'lastCommit', worktreeRemoved: 'worktreeRemoved' } as const;

// hub → runner events (each acked)

function workAck<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.discriminatedUnion('ok', [z.object({ ok: z.literal(true), ...shape }), MachineFailedAckSchema]);
}

/** Every work event names the session's directory (the runner checks it against its roots) and who asked. */
const WorkPlaceShape = { sid: SidSchema, path: MachinePathSchema, requestedBy: RequestedBySchema };

export const MachineChangesPayloadSchema = z.object(WorkPlaceShape);
export type MachineChangesPayload = z.infer<typeof MachineChangesPayloadSchema>;
export const MachineChangesAckSchema = workAck({ changes: WorkTreeChangesSchema });
export type MachineChangesAck = z.infer<typeof MachineChangesAckSchema>;

export const MachineDiffPayloadSchema = z.object({ ...WorkPlaceShape, file: RelativePathSchema.optional() });
export type MachineDiffPayload = z.infer<typeof MachineDiffPayloadSchema>;
export const MachineDiffAckSchema = workAck({ diff: DiffResponseSchema });
export type MachineDiffAck = z.infer<typeof MachineDiffAckSchema>;

export const MachineFilesPayloadSchema = z.object({ ...WorkPlaceShape, file: RelativePathSchema.optional() });
export type MachineFilesPayload = z.infer<typeof MachineFilesPayloadSchema>;
export const MachineFilesAckSchema = workAck({ files: FilesResponseSchema });
export type MachineFilesAck = z.infer<typeof MachineFilesAckSchema>;

export const MachineCommitPayloadSchema = z.object({ ...WorkPlaceShape, message: CommitRequestSchema.shape.message, files: CommitRequestSchema.shape.files, push: z.boolean() });
export type MachineCommitPayload = z.infer<typeof MachineCommitPayloadSchema>;
export const MachineCommitAckSchema = workAck({ commit: CommitResponseSchema });
export type MachineCommitAck = z.infer<typeof MachineCommitAckSchema>;

export const MachineWorktreeRemovePayloadSchema = z.object({ sid: SidSchema, path: MachinePathSchema, repoRoot: MachinePathSchema, branch: BranchNameSchema, force: z.boolean(), requestedBy: RequestedBySchema });
export type MachineWorktreeRemovePayload = z.infer<typeof MachineWorktreeRemovePayloadSchema>;
export const MachineWorktreeRemoveAckSchema = workAck({});
export type MachineWorktreeRemoveAck = z.infer<typeof MachineWorktreeRemoveAckSchema>;

/** The first characters of an id, as the default worktree branch names it. */
export const defaultWorktreeBranch = (id: string) => `session-hub/${idSchema(128).parse(id).slice(0, 8)}`;
