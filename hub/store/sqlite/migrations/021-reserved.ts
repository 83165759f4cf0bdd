/**
 * Taken by another branch (its 021 replaces this file when both are merged): a no-op here, only so
 * that migration 022 is the 22nd.
 */
export const migration021 = `SELECT 1;`;
