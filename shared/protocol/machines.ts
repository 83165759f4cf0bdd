/**
 * Machines (spec section 14, docs/machines.md): what a machine runner registers on `/runner`, the
 * hub → runner events it answers (each with an ack), the HTTP bodies, and the errors only this part
 * of the protocol answers. The hub and `session-hub runner` both validate with these schemas.
 */
import { z } from 'zod';
import { ERROR_CODE_LIST } from '../errors.js';
import { MACHINE_ID_PATTERN } from '../machine-config.js';
import { idSchema } from './ids.js';
import { TakerSchema } from './messages.js';
import { LIMITS } from './limits.js';
import { EpochMsSchema, SidSchema } from './session.js';
import { BranchNameSchema, GitRevisionSchema } from './git-names.js';

/**
 * Errors of section 14 beyond the common catalogue (shared/errors.ts), with their HTTP status and
 * what a person does about them. A runner's ack may answer `path_outside_roots`,
 * `agent_unavailable`, `spawn_failed`, `forbidden`, `not_found` or `invalid_payload`; the others
 * are the hub's.
 */
export const MACHINE_ERRORS = {
  machine_not_found: { status: 404, meaning: 'no machine with that id in this namespace: see GET /api/machines' },
  machine_offline: { status: 409, meaning: 'the machine is not connected now: start its runner (session-hub runner) and retry' },
  no_machine: { status: 409, meaning: 'no online machine can run this session (the message names the host and path it needs), or several can (the message names them: choose one with machineId)' },
  path_outside_roots: { status: 400, meaning: 'the directory is not under any root of the machine: pick one under its roots, or restart the runner with --root' },
  agent_unavailable: { status: 400, meaning: 'the machine did not find that agent\'s CLI on its PATH: install it and restart the runner' },
  machine_online: { status: 409, meaning: 'the machine\'s runner is connected: stop it on that computer before forgetting the machine' },
  session_running: { status: 409, meaning: 'the session has a live run: send it a message, or interrupt or stop it first' },
  not_runner_driven: { status: 409, meaning: 'no machine runner drives this session (it runs in a terminal): act on it there' },
  spawn_timeout: { status: 504, meaning: 'the agent did not report its session within 30 s: it was stopped' },
  spawn_failed: { status: 422, meaning: 'the agent CLI exited before its session began: its last stderr lines are in the message' },
  // section 15: the work (changes, files, commits, worktrees)
  not_a_repository: { status: 400, meaning: 'the directory is not in a git repository: a worktree needs one' },
  branch_exists: { status: 409, meaning: 'a branch of that name exists already: name another one' },
  nothing_to_commit: { status: 409, meaning: 'the working tree has no change to commit (or none of the files named)' },
  git_identity_missing: { status: 409, meaning: 'the machine\'s git has no user.name / user.email: the message says the command that sets them' },
  push_rejected: { status: 409, meaning: 'the remote refused the push (git\'s words in the message); the commit stays' },
  worktree_dirty: { status: 409, meaning: 'the worktree has uncommitted changes: commit them, or remove it with ?force=true' },
  // section 16: sessions found on the machine
  transcript_refused: { status: 422, meaning: 'the agent\'s session file cannot be imported (too large, not the agent\'s own id, a directory outside the roots, no prompt): the message says which' },
  repository_config_unsafe: { status: 409, meaning: 'the repository\'s own git config names a program git would run (a hook path, an fsmonitor, an ssh command…): act on it in a terminal, or remove that setting' },
} as const;
export type MachineErrorCode = keyof typeof MACHINE_ERRORS;
export const MACHINE_ERROR_LIST = Object.keys(MACHINE_ERRORS) as [MachineErrorCode, ...MachineErrorCode[]];

/** Every code a machine ack or a machine route may answer: the common ones and section 14's. */
export const MachineAnyErrorCodeSchema = z.enum([...ERROR_CODE_LIST, ...MACHINE_ERROR_LIST]);
export type MachineAnyErrorCode = z.infer<typeof MachineAnyErrorCodeSchema>;
export const MachineFailedAckSchema = z.object({ ok: z.literal(false), error: z.object({ code: MachineAnyErrorCodeSchema, message: z.string() }) });
export type MachineFailedAck = z.infer<typeof MachineFailedAckSchema>;

function machineAck<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.discriminatedUnion('ok', [z.object({ ok: z.literal(true), ...shape }), MachineFailedAckSchema]);
}

/** How long the hub waits for a `machine-spawn` ack (the agent's session stored on the hub): then `spawn_timeout`. */
export const SPAWN_TIMEOUT_MS = 30_000;
/** How long the hub waits for the other machine acks (dirs, interrupt, stop) before answering `machine_offline`. */
export const MACHINE_ACK_TIMEOUT_MS = 10_000;
/** `machine-stop`: TERM, then KILL after this long; the hub waits this plus MACHINE_ACK_TIMEOUT_MS for its ack. */
export const STOP_KILL_AFTER_MS = 10_000;

/** Made once by the runner and kept in its config file (shared/machine-config.ts). */
export const MachineIdSchema = z.string().regex(MACHINE_ID_PATTERN, 'must be 8 to 64 letters, digits, - or _ (the runner makes one: a UUID)');

/** An absolute path on the machine (POSIX `/…` or Windows `C:\…`). */
export const MachinePathSchema = idSchema(4096).refine((path) => path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path), 'must be an absolute path');

/**
 * A model name as the agent CLIs take it (`sonnet`, `claude-sonnet-4-5@20250929`, `gpt-5-codex`, a
 * provider's `arn:…/…`): it reaches the agent's command line, so it never starts with `-` and holds
 * no whitespace, quote or shell character.
 */
export const ModelNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@[\]-]{0,127}$/, 'must be a model name: a letter or digit, then at most 127 letters, digits or . _ : / @ [ ] -');

/** The agent's own permission modes; `bypassPermissions` only on a machine whose runner allows it (`--allow-bypass`). */
export const PermissionModeSchema = z.enum(['default', 'acceptEdits', 'plan', 'bypassPermissions']);
export type PermissionMode = z.infer<typeof PermissionModeSchema>;

/**
 * `metadata.drivenBy`: who drives the session's latest run. A machine runner writes `machine` (the
 * page's Interrupt and Stop reach it); the hub writes `terminal` when a hook starts the run (a
 * terminal's session carries the machine id too, where a runner is installed on its computer).
 */
export const DRIVEN_BY_KEY = 'drivenBy';
export type DrivenBy = 'machine' | 'terminal';

/** An agent CLI the runner found on its PATH. */
export const MachineAgentSchema = z.object({
  flavor: idSchema(64),
  /** What `<cli> --version` printed (first line), or null when it printed nothing usable. */
  version: z.string().max(200).nullable(),
  path: idSchema(4096),
});
export type MachineAgent = z.infer<typeof MachineAgentSchema>;

/** `machine-register` (runner → hub, `/runner`, machine token only). */
export const MachineRegisterPayloadSchema = z.object({
  machineId: MachineIdSchema,
  /** A person's name for it (`--name`, default the host name). */
  name: idSchema(128),
  /** `os.hostname()`: how a session started in a terminal (its hooks report the host) finds its machine. */
  host: idSchema(255),
  /** `process.platform`. */
  platform: idSchema(32),
  /** Resolved absolute directories (symlinks resolved); agents start only under them. */
  roots: z.array(MachinePathSchema).min(1, 'must hold at least one root').max(64, 'must hold at most 64 roots'),
  agents: z.array(MachineAgentSchema).max(32, 'must hold at most 32 agents'),
  /** The runner was started with `--allow-bypass`: it accepts `permissionMode: 'bypassPermissions'`. */
  allowBypass: z.boolean().default(false),
});
export type MachineRegisterPayload = z.input<typeof MachineRegisterPayloadSchema>;

/** A machine as the hub knows it (`GET /api/machines`, the register ack). */
export const MachineSchema = z.object({
  machineId: MachineIdSchema,
  name: z.string(),
  host: z.string(),
  platform: z.string(),
  /** A socket that registered it is connected to some hub process now. */
  online: z.boolean(),
  /** When it last registered or its socket last dropped (it is seen all the while it is online). */
  lastSeenAt: EpochMsSchema,
  roots: z.array(z.string()),
  agents: z.array(MachineAgentSchema),
  allowBypass: z.boolean(),
  /** The label of the machine token that registered it (who owns it), or null for a token without one. */
  tokenLabel: z.string().nullable(),
});
export type Machine = z.infer<typeof MachineSchema>;

export const MachineRegisterAckSchema = machineAck({ machine: MachineSchema });
export type MachineRegisterAck = z.infer<typeof MachineRegisterAckSchema>;

/** Who asked the hub to act (a token's label, else its id): the runner logs it with every start and stop. */
export const RequestedBySchema = z.string().max(128);

/** The resume token the agent continues from (section 7), for a `continue`. */
export const SpawnResumeSchema = z.object({
  sid: SidSchema,
  tokenKey: idSchema(128),
  token: z.string().min(1).max(4096),
  /** The session's new taker key, made by the hub for this continue: the runner presents it with the session's session-start and joins (docs/messages.md). */
  takerKey: TakerSchema.shape.key.optional(),
});

/** `machine-spawn` (hub → runner): start an agent. Acked once its session-start is stored on the hub. */
export const MachineSpawnPayloadSchema = z.object({
  /** Unique per request: a `machine-stop { requestId }` stops what this started before its session was known. */
  requestId: idSchema(128),
  flavor: idSchema(64),
  path: MachinePathSchema,
  prompt: z.string().max(LIMITS.maxPromptBytes).optional(),
  permissionMode: PermissionModeSchema.optional(),
  model: ModelNameSchema.optional(),
  /** Present on a `continue`: the same hub session continues (session-start with this sid, source `resume`). */
  resume: SpawnResumeSchema.optional(),
  /** Start in a new worktree of the repository holding `path` (section 15); the hub always names the branch. */
  worktree: z.object({ branch: BranchNameSchema, base: GitRevisionSchema.optional() }).optional(),
  requestedBy: RequestedBySchema,
});
export type MachineSpawnPayload = z.infer<typeof MachineSpawnPayloadSchema>;
/** `path`: where the agent started when it is not the asked one (a new worktree's directory). */
export const MachineSpawnAckSchema = machineAck({ sid: SidSchema, path: MachinePathSchema.optional() });
export type MachineSpawnAck = z.infer<typeof MachineSpawnAckSchema>;

/** `machine-dirs` (hub → runner): the subdirectories of one directory under a root (a directory picker). */
export const MachineDirsPayloadSchema = z.object({ path: MachinePathSchema, requestedBy: RequestedBySchema });
export type MachineDirsPayload = z.infer<typeof MachineDirsPayloadSchema>;
/** `path` resolved; `dirs` the names (not paths) of its subdirectories, sorted, hidden ones left out. */
export const MachineDirsAckSchema = machineAck({ path: z.string(), dirs: z.array(z.string()) });
export type MachineDirsAck = z.infer<typeof MachineDirsAckSchema>;

/** `machine-mkdir` (hub → runner): make one new directory whose parent exists under a root; acked like `machine-dirs` (its path, no subdirectories). */
export const MachineMkdirPayloadSchema = z.object({ path: MachinePathSchema, requestedBy: RequestedBySchema });
export type MachineMkdirPayload = z.infer<typeof MachineMkdirPayloadSchema>;

/** `machine-interrupt` (hub → runner): end the agent's current turn; the agent stays. */
export const MachineInterruptPayloadSchema = z.object({ sid: SidSchema, requestedBy: RequestedBySchema });
export type MachineInterruptPayload = z.infer<typeof MachineInterruptPayloadSchema>;

/**
 * `machine-stop` (hub → runner): end the agent (its process tree: TERM, KILL after 10 s); its run
 * ends `cancelled`. By `sid`, or by the `requestId` of a spawn whose session never came (spawn_timeout).
 */
export const MachineStopPayloadSchema = z
  .object({
    sid: SidSchema.optional(),
    requestId: idSchema(128).optional(),
    requestedBy: RequestedBySchema,
    /** `session-hub continue` takes the session to a terminal (section 16): the run ends `success`, after the open turn unless `now`. */
    handover: z.object({ now: z.boolean() }).optional(),
  })
  .refine((payload) => payload.sid !== undefined || payload.requestId !== undefined, { message: 'must name a sid or a requestId', path: ['sid'] });
export type MachineStopPayload = z.infer<typeof MachineStopPayloadSchema>;

/** The interrupt and stop acks; `not_found` when this runner drives no such session. */
export const MachineActionAckSchema = machineAck({});
export type MachineActionAck = z.infer<typeof MachineActionAckSchema>;

// HTTP (spec section 14)

/** A listed machine also carries the directories its agents were last started or continued in (a picker's shortcuts). */
export const ListedMachineSchema = MachineSchema.extend({ recentPaths: z.array(z.string()) });
export type ListedMachine = z.infer<typeof ListedMachineSchema>;
export const MachineListResponseSchema = z.object({ machines: z.array(ListedMachineSchema) });
/** `DELETE /api/machines/:machineId`: the machine is no longer listed; its id may register again. */
export const ForgetMachineResponseSchema = z.object({ machineId: MachineIdSchema, forgotten: z.literal(true) });
export const MachineParamsSchema = z.object({ machineId: MachineIdSchema });
export const MachineDirsQuerySchema = z.object({ path: MachinePathSchema.optional() });
export const MachineDirsResponseSchema = z.object({ path: z.string(), dirs: z.array(z.string()) });
/** `POST /api/machines/:machineId/dirs`: a new folder for a new session (the page's "Make folder"). */
export const MachineMkdirRequestSchema = z.object({ path: MachinePathSchema });

export const StartSessionRequestSchema = z.object({
  flavor: idSchema(64),
  path: MachinePathSchema,
  prompt: z.string().max(LIMITS.maxPromptBytes).optional(),
  permissionMode: PermissionModeSchema.optional(),
  model: ModelNameSchema.optional(),
  /** Run the agent in a new worktree (section 15): branch default `session-hub/<8 characters>`, base default `HEAD`. */
  worktree: z.object({ branch: BranchNameSchema.optional(), base: GitRevisionSchema.optional() }).optional(),
});
export type StartSessionRequest = z.infer<typeof StartSessionRequestSchema>;
export const StartSessionResponseSchema = z.object({ sid: SidSchema, machineId: MachineIdSchema });
/** continue, interrupt and stop: `202`, the session and the machine asked. */
export const MachineAcceptedResponseSchema = StartSessionResponseSchema;

export const ContinueSessionRequestSchema = z.object({
  prompt: z.string().max(LIMITS.maxPromptBytes).optional(),
  policy: z.enum(['safe', 'force']).default('safe'),
  machineId: MachineIdSchema.optional(),
  /**
   * Left out: the mode the hub recorded when a person last started or continued the session on a
   * machine (never bypassPermissions, which is used only when asked for again), else the agent's default.
   */
  permissionMode: PermissionModeSchema.optional(),
});
export type ContinueSessionRequest = z.infer<typeof ContinueSessionRequestSchema>;

/**
 * `GET /api/sessions/:sid/continue`: where a Continue would run now (the machine online, holding the
 * directory and the agent), asked before the click; a machine that cannot is the same refusal the
 * Continue would answer (409 machine_offline, no_machine, agent_unavailable, session_running). The
 * resume gate is not asked here: the session's `resume` status says it.
 */
export const ContinuePlaceResponseSchema = z.object({ machineId: MachineIdSchema, name: z.string(), host: z.string(), path: z.string() });
export type ContinuePlaceResponse = z.infer<typeof ContinuePlaceResponseSchema>;

/** `POST /api/sessions/:sid/take-back` (section 16, `session-hub continue`): the gate's policy, and whether a driving runner's agent stops at once. */
export const TakeBackRequestSchema = z.object({ policy: z.enum(['safe', 'force']).default('safe'), now: z.boolean().default(false) });
export type TakeBackRequest = z.infer<typeof TakeBackRequestSchema>;
/** What the terminal resumes: the agent, its directory and its resume token; `handedOver` when a machine runner's agent was ended for it. */
export const TakeBackResponseSchema = z.object({ sid: SidSchema, flavor: z.string(), path: z.string(), tokenKey: z.string(), token: z.string(), handedOver: z.boolean() });
export type TakeBackResponse = z.infer<typeof TakeBackResponseSchema>;
/** How long a take-back waits for a driving agent's open turn to end. */
export const HANDOVER_WAIT_MS = 10 * 60_000;

/** Metadata keys the runner writes on a session it drives, and the hook bridge on a terminal one. */
export const MACHINE_METADATA_KEYS = {
  /** The machine that drives (or last drove) it; the hook bridge sets it where a runner is installed. */
  machineId: 'machineId',
  /** `os.hostname()` of the computer it runs on. */
  host: 'host',
  /** The agent's working directory (already written by runners and hooks). */
  path: 'path',
  /** The permission mode it was started with, as its runner reports it (shown; a Continue never reads it). */
  permissionMode: 'permissionMode',
} as const;
