#!/usr/bin/env node
/** `session-hub <command>`: the hub's command line. Each command has its own --help. */
import { doctorCommand } from './cli/doctor.js';
import { repairCommand } from './cli/repair.js';
import { startCommand } from './cli/start.js';

const HELP = `session-hub <command> [options]

Commands:
  start      start the hub (default when no command is given)
  doctor     list sessions, runs and turns that need attention (reads the database)
  repair     restore resume tokens (or other keys) lost from metadata, from history

Run "session-hub <command> --help" for a command's options.`;

const commands: Record<string, (argv: string[]) => Promise<void>> = {
  start: startCommand,
  doctor: doctorCommand,
  repair: repairCommand,
};

async function main(argv: string[]): Promise<void> {
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  if (first === undefined || first.startsWith('-')) return startCommand(argv);
  const command = commands[first];
  if (!command) {
    process.stderr.write(`session-hub: unknown command "${first}"\n\n${HELP}\n`);
    process.exitCode = 2;
    return;
  }
  await command(rest);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`session-hub: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
