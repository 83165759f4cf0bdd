/**
 * `session-hub runner`: the machine runner (spec section 14, docs/runner.md). Start errors are one
 * line on stderr and exit code 2 (bad options) or 1 (the hub refused or is unreachable).
 */
import { HubRequestError } from '../shared/client/errors.js';
import { findAgents } from './agents.js';
import { noHubThere } from './hub-reachable.js';
import { parseRunnerArgs, RUNNER_HELP, StartError } from './config.js';
import { installCommand } from './install.js';
import { jsonLog } from './log.js';
import { loadOrCreateMachineIdentity } from './machine-id.js';
import { Machine, RegisterRefused } from './machine.js';

function fail(message: string, code: number): void {
  process.stderr.write(`session-hub runner: ${message}\n`);
  process.exitCode = code;
}

export async function runnerCommand(argv: string[]): Promise<void> {
  if (argv[0] === 'install') return installCommand(argv.slice(1));
  let config;
  try {
    config = parseRunnerArgs(argv);
  } catch (error) {
    if (error instanceof StartError) return fail(error.message, 2);
    throw error;
  }
  if (config === 'help') {
    process.stdout.write(`${RUNNER_HELP}\n`);
    return;
  }
  const log = jsonLog();
  if (config.tokenWarning) log.warn(config.tokenWarning);
  const agents = await findAgents(process.env.PATH, ({ flavor, path }, problem) => log.warn(`${flavor} may not start: ${problem}`, { flavor, path }));
  const { machineId, takerKey } = loadOrCreateMachineIdentity();
  // the signals are taken before the hub is asked: the machine reads online from the moment the hub
  // stored it, and a stop sent then must not find the default handler (killed, nothing reported)
  let machine: Machine | undefined;
  let stopping = false;
  const stop = (signal: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    // still connecting: nothing was started, so there is nothing to stop
    if (!machine) process.exit(code);
    void machine.shutdown(signal).finally(() => process.exit(code));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  const nothingThere = await noHubThere(config.hubUrl);
  if (nothingThere) return fail(nothingThere, 1);
  try {
    machine = await Machine.start(config, { machineId, takerKey }, agents, log);
  } catch (error) {
    if (error instanceof RegisterRefused) return fail(error.message, 1);
    if (error instanceof HubRequestError) {
      const hint =
        error.code === 'unauthorized'
          ? ': the machine token is not one this hub knows'
          : error.code === 'forbidden'
            ? ': this is not a machine token (an agent or read-only token may not run a runner); on the hub, session-hub token create --role machine --label "this computer", then give it through SESSION_HUB_MACHINE_TOKEN_FILE (session-hub runner install writes it)'
            : '';
      return fail(`cannot connect to ${config.hubUrl}: ${error.code}${hint}`, 1);
    }
    return fail(`cannot connect to ${config.hubUrl}: ${error instanceof Error ? error.message : String(error)}`, 1);
  }
  // replaced by a later runner of the same machine: stop its agents and exit 1, never reconnect
  void machine.replaced.then(() => {
    // its reports can no longer reach the hub: a write still waiting must not hold the exit
    setTimeout(() => process.exit(1), 15_000).unref();
    stop('replaced', 1);
  });
}
