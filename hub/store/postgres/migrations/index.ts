import { migration001 } from './001-initial.js';
import { migration002 } from './002-detached-runs.js';
import { migration003 } from './003-cluster.js';
import { migration004 } from './004-history-by-rowid.js';
import { migration005 } from './005-pid-bigint.js';
import { migration006 } from './006-token-lifecycle.js';
import { migration007 } from './007-attention.js';
import { migration008 } from './008-webhooks.js';
import { migration009 } from './009-hook-events.js';
import { migration010 } from './010-usage-and-search.js';
import { migration011 } from './011-push.js';
import { migration012 } from './012-event-metadata-ref.js';
import { migration013 } from './013-approval-deadline-token-label.js';
import { migration014 } from './014-turn-activity.js';
import { migration015 } from './015-messages.js';
import { migration016 } from './016-hook-refusals.js';
import { migration017 } from './017-machines.js';
import { migration018 } from './018-message-takers.js';
import { migration019 } from './019-session-first-prompt.js';
import { migration020 } from './020-approval-always-allow.js';
import { migration021 } from './021-agent-alive.js';
import { migration022 } from './022-turn-texts.js';
import { migration023 } from './023-approval-asked-by.js';
import { migration024 } from './024-write-claims.js';
import { migration025 } from './025-machine-session-runs.js';

/**
 * Migrations in order, the same schema versions as hub/store/sqlite/migrations (version N here is
 * version N there). Applied ones are rows of `schema_migrations`. Never edit a shipped one.
 */
export const PG_MIGRATIONS: readonly string[] = [migration001, migration002, migration003, migration004, migration005, migration006, migration007, migration008, migration009, migration010, migration011, migration012, migration013, migration014, migration015, migration016, migration017, migration018, migration019, migration020, migration021, migration022, migration023, migration024, migration025];
