import { DEFAULT_APPROVAL_WAIT_MS, MAX_APPROVAL_WAIT_MS } from '../shared/approval-wait.js';
import { SPAWN_TIMEOUT_MS } from '../shared/protocol/machines.js';
import { resolve } from 'node:path';
import { z } from 'zod';

/** The tool timeout's default (spec 9): doctor uses it too when given none. */
export const DEFAULT_TOOL_TIMEOUT_MS = 3_600_000;

/** Spec section 13: every setting, its environment variable and its default. */
const ConfigSchema = z.object({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.coerce.number().int().min(0).max(65535).default(3737),
  dataDir: z.string().min(1).default('./data'),
  tokens: z.string().optional(),
  /** postgres://… selects the PostgreSQL store (several hub processes may share it); unset: SQLite under dataDir. */
  databaseUrl: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL (unset it to use the embedded SQLite file)')
    .optional(),
  /** redis://… makes broadcasts cross hub processes (Socket.IO Redis adapter). */
  redisUrl: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').optional(),
  /** How often this process records that it is alive; a process silent for 3 intervals is presumed dead. */
  heartbeatMs: z.coerce.number().int().positive().default(5_000),
  sweepMs: z.coerce.number().int().positive().default(60_000),
  aliveTimeoutMs: z.coerce.number().int().positive().default(30_000),
  runGraceMs: z.coerce.number().int().nonnegative().default(120_000),
  /** Spec 9: a turn with no activity for this long is closed as `timeout`... */
  turnTimeoutMs: z.coerce.number().int().positive().default(300_000),
  /** ...unless a tool of it is still running: then not before this long without activity. */
  toolTimeoutMs: z.coerce.number().int().positive().default(DEFAULT_TOOL_TIMEOUT_MS),
  idleMs: z.coerce.number().int().positive().default(3_600_000),
  /** A hook session whose agent's keeper has not said it lives for this long: ended as lost (issue 34.2). */
  agentAliveMs: z.coerce.number().int().positive().default(60_000),
  tokenTtlMs: z.coerce.number().int().positive().default(2_592_000_000),
  eventKeep: z.coerce.number().int().nonnegative().default(100_000),
  eventKeepMs: z.coerce.number().int().nonnegative().default(86_400_000),
  rateLimitPerSecond: z.coerce.number().positive().default(200),
  rateLimitBurst: z.coerce.number().positive().default(400),
  /** Webhook delivery (docs/attention.md): a receiver's answer wait, the retry back-off, the pause. */
  webhookTimeoutMs: z.coerce.number().int().positive().default(10_000),
  webhookRetryMs: z.coerce.number().int().positive().default(1_000),
  webhookRetryMaxMs: z.coerce.number().int().positive().default(300_000),
  webhookPauseAfter: z.coerce.number().int().positive().default(20),
  webhookPollMs: z.coerce.number().int().positive().default(1_000),
  /**
   * Web Push (docs/attention.md, "Browser push"): a VAPID key pair given by environment (both halves,
   * base64url, as \`npx web-push generate-vapid-keys\` prints them); unset, the hub makes one on
   * first start and keeps it in the database. The subject is the contact push services may use.
   */
  vapidPublicKey: z.string().optional(),
  vapidPrivateKey: z.string().optional(),
  vapidSubject: z
    .string()
    .regex(/^(mailto:\S+|https:\/\/\S+)$/, 'must be a mailto: address or an https:// URL (push services contact its owner)')
    .default('mailto:session-hub@localhost'),
  /** How often the sending process looks for attention changes, and the first retry's wait (doubling, 3 tries). */
  pushPollMs: z.coerce.number().int().positive().default(1_000),
  pushRetryMs: z.coerce.number().int().positive().default(2_000),
  /** How long a synchronous approval hook (Claude Code's PermissionRequest) waits for a decision before it ends `expired`: the one setting the installed hooks follow. */
  approvalWaitMs: z.coerce.number().int().positive().max(MAX_APPROVAL_WAIT_MS, `must be at most ${MAX_APPROVAL_WAIT_MS} (1 hour: what the installed hooks wait at most)`).default(DEFAULT_APPROVAL_WAIT_MS),
  /** A person's message nobody took for this long (the session ended, its agent never stopped) ends `expired` (docs/messages.md). */
  messageTtlMs: z.coerce.number().int().positive().default(86_400_000),
  /** How long a machine's agent has to report its session after a start or continue before `spawn_timeout` (docs/machines.md). */
  spawnTimeoutMs: z.coerce.number().int().positive().default(SPAWN_TIMEOUT_MS),
  /** How many machines one machine token may register; past it a person forgets one first (docs/machines.md). */
  machinesPerToken: z.coerce.number().int().positive().default(16),
  /** A session's queue: at most this many queued messages, and this many bytes of their text (docs/messages.md). */
  messageQueueMax: z.coerce.number().int().positive().default(100),
  messageQueueMaxBytes: z.coerce.number().int().positive().default(4 * 1024 * 1024),
  /** The per-token ceiling for a whole tenant: 100 runners sharing a token at 10 events/s each stay well under it. */
  tokenRateLimitPerSecond: z.coerce.number().positive().default(2000),
  tokenRateLimitBurst: z.coerce.number().positive().default(4000),
  /** `full`: SQLite fsyncs the WAL at every commit (power-loss durability); `normal`: a process crash loses nothing, a power loss may lose the last commits. */
  sync: z.enum(['normal', 'full']).default('normal'),
  /**
   * HTTP connections (issue 33.6): a client that has not sent its whole request head within
   * `headersTimeoutMs`, or its whole request within `requestTimeoutMs`, is answered 408 and cut (a
   * slow-header client held a socket for ever); past `maxConnections` open at once, new ones are
   * refused. A long wait's answer (an approval, a message) is not limited: only receiving the request is.
   */
  headersTimeoutMs: z.coerce.number().int().positive().default(10_000),
  requestTimeoutMs: z.coerce.number().int().positive().default(60_000),
  maxConnections: z.coerce.number().int().positive().default(10_000),
  /** Readiness says not ready while the SQLite data directory has less free space than this (issue 33.6). */
  readyMinFreeBytes: z.coerce.number().int().nonnegative().default(64 * 1024 * 1024),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});
export type HubConfig = z.infer<typeof ConfigSchema> & { databaseFile: string };

/** Environment variable for each setting (`session-hub start` has flags for host, port, data and log level only). */
export const ENV_VARS: Record<keyof z.infer<typeof ConfigSchema>, string> = {
  host: 'SESSION_HUB_HOST',
  port: 'SESSION_HUB_PORT',
  dataDir: 'SESSION_HUB_DATA',
  tokens: 'SESSION_HUB_TOKENS',
  databaseUrl: 'SESSION_HUB_DATABASE_URL',
  redisUrl: 'SESSION_HUB_REDIS_URL',
  heartbeatMs: 'SESSION_HUB_HEARTBEAT_MS',
  sweepMs: 'SESSION_HUB_SWEEP_MS',
  aliveTimeoutMs: 'SESSION_HUB_ALIVE_TIMEOUT_MS',
  runGraceMs: 'SESSION_HUB_RUN_GRACE_MS',
  turnTimeoutMs: 'SESSION_HUB_TURN_TIMEOUT_MS',
  toolTimeoutMs: 'SESSION_HUB_TOOL_TIMEOUT_MS',
  idleMs: 'SESSION_HUB_IDLE_MS',
  agentAliveMs: 'SESSION_HUB_AGENT_ALIVE_MS',
  tokenTtlMs: 'SESSION_HUB_TOKEN_TTL_MS',
  eventKeep: 'SESSION_HUB_EVENT_KEEP',
  eventKeepMs: 'SESSION_HUB_EVENT_KEEP_MS',
  rateLimitPerSecond: 'SESSION_HUB_RATE_LIMIT',
  rateLimitBurst: 'SESSION_HUB_RATE_BURST',
  webhookTimeoutMs: 'SESSION_HUB_WEBHOOK_TIMEOUT_MS',
  webhookRetryMs: 'SESSION_HUB_WEBHOOK_RETRY_MS',
  webhookRetryMaxMs: 'SESSION_HUB_WEBHOOK_RETRY_MAX_MS',
  webhookPauseAfter: 'SESSION_HUB_WEBHOOK_PAUSE_AFTER',
  webhookPollMs: 'SESSION_HUB_WEBHOOK_POLL_MS',
  vapidPublicKey: 'SESSION_HUB_VAPID_PUBLIC_KEY',
  vapidPrivateKey: 'SESSION_HUB_VAPID_PRIVATE_KEY',
  vapidSubject: 'SESSION_HUB_VAPID_SUBJECT',
  pushPollMs: 'SESSION_HUB_PUSH_POLL_MS',
  pushRetryMs: 'SESSION_HUB_PUSH_RETRY_MS',
  approvalWaitMs: 'SESSION_HUB_APPROVAL_WAIT_MS',
  messageTtlMs: 'SESSION_HUB_MESSAGE_TTL_MS',
  spawnTimeoutMs: 'SESSION_HUB_SPAWN_TIMEOUT_MS',
  machinesPerToken: 'SESSION_HUB_MACHINES_PER_TOKEN',
  messageQueueMax: 'SESSION_HUB_MESSAGE_QUEUE_MAX',
  messageQueueMaxBytes: 'SESSION_HUB_MESSAGE_QUEUE_MAX_BYTES',
  tokenRateLimitPerSecond: 'SESSION_HUB_TOKEN_RATE_LIMIT',
  tokenRateLimitBurst: 'SESSION_HUB_TOKEN_RATE_BURST',
  sync: 'SESSION_HUB_SYNC',
  headersTimeoutMs: 'SESSION_HUB_HEADERS_TIMEOUT_MS',
  requestTimeoutMs: 'SESSION_HUB_REQUEST_TIMEOUT_MS',
  maxConnections: 'SESSION_HUB_MAX_CONNECTIONS',
  readyMinFreeBytes: 'SESSION_HUB_READY_MIN_FREE_BYTES',
  logLevel: 'LOG_LEVEL',
};

/** Reads the configuration from the environment, overridden by explicit values (flags, tests). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Record<keyof typeof ENV_VARS, unknown>> = {}): HubConfig {
  const raw: Record<string, unknown> = {};
  for (const [key, variable] of Object.entries(ENV_VARS)) {
    const value = overrides[key as keyof typeof ENV_VARS] ?? env[variable];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const parsed = ConfigSchema.refine((c) => c.headersTimeoutMs <= c.requestTimeoutMs, { message: 'must not be longer than SESSION_HUB_REQUEST_TIMEOUT_MS', path: ['headersTimeoutMs'] }).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0]) as keyof typeof ENV_VARS;
    throw new Error(`invalid configuration: ${ENV_VARS[key] ?? key}: ${issue.message}`);
  }
  return { ...parsed.data, databaseFile: resolve(parsed.data.dataDir, 'hub.db') };
}
