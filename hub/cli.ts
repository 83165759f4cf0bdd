#!/usr/bin/env node
/** `session-hub <command>`: the hub's command line. Each command has its own --help. */
import { unsupportedNode } from './cli/node-support.js';

// commands load lazily: a hook call runs per agent event and must not pay for the server's modules
const doctorCommand = async (argv: string[]) => (await import('./cli/doctor.js')).doctorCommand(argv);
const repairCommand = async (argv: string[]) => (await import('./cli/repair.js')).repairCommand(argv);
const startCommand = async (argv: string[]) => (await import('./cli/start.js')).startCommand(argv);
const hookCommand = async (argv: string[]) => (await import('./cli/hook.js')).hookCommand(argv);
const tokenCommand = async (argv: string[]) => (await import('./cli/token.js')).tokenCommand(argv);
const loginCommand = async (argv: string[]) => (await import('./cli/login.js')).loginCommand(argv);
// the machine runner is a client of the hub, not part of it: it lives in runner/ and imports only shared/
const runnerCommand = async (argv: string[]) => (await import('../runner/main.js')).runnerCommand(argv);
const webhookCommand = async (argv: string[]) => (await import('./cli/webhook.js')).webhookCommand(argv);
// the way back to a terminal is a client of the hub too (runner/): it never loads the store
const continueCommand = async (argv: string[]) => (await import('../runner/continue-command.js')).continueCommand(argv);

const HELP = `session-hub <command> [options]

Commands:
  start      start the hub (default when no command is given)
  login      keep a hub's URL and token in your config, for the hooks: "login <url> --token T"
  hook       agent hook bridge: "hook <flavor>" (payload on stdin), "hook install <flavor>", "hook status"
  doctor     what needs attention: sessions, runs, turns, webhooks, refused hook events
  repair     restore resume tokens (or other keys) lost from metadata, from history
  runner     start and drive agents on this computer for the hub's page (machine token; "runner install": systemd unit)
  token      create a token (stored hashed, shown once), list the stored ones, or revoke one
  continue   take a hub session back in this terminal: "continue <sid>" (its agent's own CLI, resuming it)
  webhook    POST events to a URL (add, list, remove, resume; signed, retried, in order)

Run "session-hub <command> --help" for a command's options.`;

const commands: Record<string, (argv: string[]) => Promise<void>> = {
  start: startCommand,
  hook: hookCommand,
  login: loginCommand,
  doctor: doctorCommand,
  repair: repairCommand,
  runner: runnerCommand,
  token: tokenCommand,
  webhook: webhookCommand,
  continue: continueCommand,
};

async function main(argv: string[]): Promise<void> {
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  const command = first === undefined || first.startsWith('-') ? startCommand : commands[first];
  if (!command) {
    process.stderr.write(`session-hub: unknown command "${first}"\n\n${HELP}\n`);
    process.exitCode = 2;
    return;
  }
  // before the store's native module loads; the hook bridge and the machine runner never load it
  const refusal = command === hookCommand || command === runnerCommand || command === continueCommand ? undefined : unsupportedNode(process.version);
  if (refusal) {
    process.stderr.write(`session-hub: ${refusal}\n`);
    process.exitCode = 1;
    return;
  }
  await command(command === startCommand && first !== 'start' ? argv : rest);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`session-hub: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
