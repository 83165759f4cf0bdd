/**
 * Git names a person may give (a branch for a new worktree, a base revision): they reach git's
 * command line, so they are checked here, on the hub and again on the runner, before git sees them
 * (git's own `check-ref-format` runs too, on the runner). Never an option, never a shell character.
 */
import { z } from 'zod';

/** A branch name git accepts (a subset): letters, digits, `.`, `_`, `-`, `/` between parts; no `..`, no `.lock` part. */
export const BranchNameSchema = z
  .string()
  .max(200)
  .regex(/^[A-Za-z0-9_][A-Za-z0-9._-]*(\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/, 'must be a branch name: parts of letters, digits, . _ - separated by /, none starting with . or -')
  .refine((name) => !name.includes('..') && !name.split('/').some((part) => part.endsWith('.lock') || part.endsWith('.')), 'must not hold .. or a part ending in . or .lock');

/** A revision to start a worktree from: a branch, tag or commit name (no `-` first, no `:` or `^{…}` syntax). */
export const GitRevisionSchema = z
  .string()
  .max(200)
  .regex(/^[A-Za-z0-9_][A-Za-z0-9._/~^-]*$/, 'must be a branch, tag or commit: letters, digits and . _ / ~ ^ -, not starting with - or .');
