/**
 * A bench's options: `--help` prints its usage, and an unknown or malformed option prints the error
 * and the usage (exit 2), instead of a stack trace.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values<O extends Options> = { [K in keyof O]: O[K] extends { type: 'boolean' } ? boolean | undefined : string | undefined };

export function benchArgs<const O extends Options>(options: O, usage: string): Values<O> {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${usage}\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return values as Values<O>;
}
