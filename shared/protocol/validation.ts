import type { z } from 'zod';

/** One line naming the offending field: `metadata.path: expected string, received number`. */
export function describeZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid payload';
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'payload';
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : '';
  return `${field}: ${issue.message}${more}`;
}
