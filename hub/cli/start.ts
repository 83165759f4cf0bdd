import { parseArgs } from 'node:util';
import { ENV_VARS, loadConfig } from '../config.js';
import { createLogger } from '../log.js';
import { startHub, type RunningHub } from '../main.js';
import { SIGN_IN_CODE_TTL_MS } from '../services/sign-in-codes.js';
import { describeStore } from '../store/open-store.js';
import { explainStartFailure } from './start-errors.js';

const SIGN_IN_MINUTES = SIGN_IN_CODE_TTL_MS / 60_000;

/** What a person at a terminal needs once the hub is up: where, how to sign in, where data lives. */
function banner(hub: RunningHub, config: ReturnType<typeof loadConfig>): string {
  return [
    '',
    `  Session Hub is running`,
    `  page      ${hub.url}/`,
    `  sign in   ${hub.signInLink.url}`,
    `            (works once, within ${SIGN_IN_MINUTES} minutes; then sign in with a token)`,
    `  data      ${describeStore(config)}`,
    `  stop      Ctrl+C`,
    '',
    '',
  ].join('\n');
}

export const START_HELP = `session-hub start [options]

Starts the hub. Every option also reads from its environment variable; flags win.

Options:
  --host <addr>        address to listen on            (${ENV_VARS.host}, default 127.0.0.1)
  --port <n>           port; 0 picks a free one        (${ENV_VARS.port}, default 3737)
  --data <dir>         data directory (<dir>/hub.db)   (${ENV_VARS.dataDir}, default ./data)
  --log-level <level>  fatal|error|warn|info|debug|trace|silent (LOG_LEVEL, default info)
  -h, --help           show this help

Tokens come from ${ENV_VARS.tokens} (role:namespace:token, comma-separated). Without it the hub
creates a runner, a dashboard and an admin token for namespace "default" on first start and prints
them once; only their hashes are stored.

Several hub processes: ${ENV_VARS.databaseUrl} (postgres://…, instead of <dir>/hub.db),
${ENV_VARS.redisUrl} (redis://…, broadcasts across processes), ${ENV_VARS.heartbeatMs}.

Durability: ${ENV_VARS.sync}=full makes SQLite fsync every commit (power-loss safe, fewer writes/s).

Timings and limits: ${ENV_VARS.sweepMs}, ${ENV_VARS.aliveTimeoutMs}, ${ENV_VARS.runGraceMs},
${ENV_VARS.turnTimeoutMs}, ${ENV_VARS.toolTimeoutMs}, ${ENV_VARS.idleMs}, ${ENV_VARS.agentAliveMs}, ${ENV_VARS.tokenTtlMs},
${ENV_VARS.eventKeep}, ${ENV_VARS.eventKeepMs}, ${ENV_VARS.rateLimitPerSecond}, ${ENV_VARS.rateLimitBurst}, ${ENV_VARS.tokenRateLimitPerSecond},
${ENV_VARS.tokenRateLimitBurst} (see README).
Webhook delivery: ${ENV_VARS.webhookTimeoutMs}, ${ENV_VARS.webhookRetryMs}, ${ENV_VARS.webhookRetryMaxMs},
${ENV_VARS.webhookPauseAfter}, ${ENV_VARS.webhookPollMs} (docs/attention.md).`;

/** How long a signal received during the start waits for it to finish (then to stop cleanly). */
const STOP_DURING_START_MS = 3000;

export async function startCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      data: { type: 'string' },
      'log-level': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${START_HELP}\n`);
    return;
  }
  const config = loadConfig(process.env, { host: values.host, port: values.port, dataDir: values.data, logLevel: values['log-level'] });
  // a person at a terminal reads lines; a service manager or a log collector gets pino's JSON
  const atTerminal = process.stdout.isTTY === true;
  const log = createLogger(config.logLevel, undefined, { pretty: atTerminal });
  // the handlers come before the start: a signal while the hub starts (migrations, boot grace and
  // sweep) would otherwise kill it with Node's default action, leaving its hubs row. The start
  // finishes (within STOP_DURING_START_MS), then the hub stops like on any other signal.
  let hub: RunningHub | undefined;
  let stopSignal: string | undefined;
  const shutdown = (running: RunningHub) =>
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  const stop = (signal: string) => {
    if (stopSignal !== undefined) return;
    stopSignal = signal;
    log.info({ signal }, hub ? 'signal received' : 'signal received while starting: stopping once started');
    if (hub) return void shutdown(hub);
    // a start that hangs (a database that accepts connections but never answers) must not make the
    // signal moot: past this grace the process ends as it is (the OS releases the data-dir lock)
    setTimeout(() => {
      if (hub) return;
      process.stderr.write(`session-hub: stopped by ${signal} while starting (the start did not finish within ${STOP_DURING_START_MS / 1000} s)\n`);
      process.exit(1);
    }, STOP_DURING_START_MS).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  try {
    hub = await startHub(config, { log });
  } catch (error) {
    process.stderr.write(`session-hub: ${explainStartFailure(error, config)}\n`);
    // exit now: what did open (a PostgreSQL pool, Redis clients, timers) would keep a failed start
    // running forever with its error printed
    process.exit(1);
  }
  if (hub.generatedTokens.length > 0) {
    const lines = hub.generatedTokens.map((t) => `  ${t.role.padEnd(9)} ${t.namespace}  ${t.token}`);
    process.stdout.write(
      `\nFirst start: created these tokens. They are shown only now (the hub keeps only their hashes):\n${lines.join('\n')}\n` +
        `Open ${hub.url}/ and sign in with the dashboard or admin token, or use the sign-in link below; give agents' hooks the agent token (session-hub login).\n\n`,
    );
  }
  process.stdout.write(atTerminal ? banner(hub, config) : `Sign in: ${hub.signInLink.url} (works once, within ${SIGN_IN_MINUTES} minutes)\n`);
  if (stopSignal !== undefined) void shutdown(hub);
}
