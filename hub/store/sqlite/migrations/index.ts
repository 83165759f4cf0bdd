import { migration001 } from './001-initial.js';
import { migration002 } from './002-detached-runs.js';
import { migration003 } from './003-cluster.js';
import { migration004 } from './004-history-by-rowid.js';
import { migration005 } from './005-pid-bigint.js';
// 009: this branch's number (006-008 are taken by branches merged alongside); the integrator orders it
import { migration009 } from './009-hook-events.js';

/** Migrations in order; migration N brings `PRAGMA user_version` from N-1 to N. Never edit a shipped one. */
export const MIGRATIONS: readonly string[] = [migration001, migration002, migration003, migration004, migration005, migration009];
