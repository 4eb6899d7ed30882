import type { Database } from 'better-sqlite3';
import { BOUNDS } from '../schemas/bounds.ts';
import { inTransaction } from './transaction.ts';

interface Migration {
	version: number;
	name: string;
	sql: string;
}

/**
 * Migration 21's trigger body for a waiting delivery that leaves its endpoint's backlog (settled or
 * deleted): one fewer waits, and if it was the first, the first is the next waiting one after it.
 */
const LEFT_THE_BACKLOG = `BEGIN UPDATE webhook_backlogs SET waiting = waiting - 1,
                first_seq = CASE WHEN first_seq = OLD.seq THEN
                  (SELECT seq FROM webhook_deliveries INDEXED BY webhook_deliveries_by_webhook
                   WHERE webhook_id = OLD.webhook_id AND seq > OLD.seq AND status IN ('pending', 'failed')
                   ORDER BY seq LIMIT 1)
                ELSE first_seq END
              WHERE webhook_id = OLD.webhook_id; END;`;

// Append-only: a released migration is never edited; a change to the schema is a new entry.
export const MIGRATIONS: readonly Migration[] = [
	{
		version: 1,
		name: 'initial schema',
		sql: `
      CREATE TABLE orgs (
        id         TEXT PRIMARY KEY,
        name       TEXT NOT NULL,
        slug       TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        closed_at  TEXT
      );

      -- A user is one person's membership of one organisation; removal is kept as a tombstone
      -- so their keys and past events still resolve.
      CREATE TABLE users (
        seq        INTEGER PRIMARY KEY,
        id         TEXT NOT NULL UNIQUE,
        org_id     TEXT NOT NULL REFERENCES orgs(id),
        email      TEXT NOT NULL,
        name       TEXT NOT NULL,
        role       TEXT NOT NULL CHECK (role IN ('admin', 'trainer')),
        created_at TEXT NOT NULL,
        removed_at TEXT
      );
      CREATE UNIQUE INDEX users_active_email ON users(org_id, email) WHERE removed_at IS NULL;
      CREATE INDEX users_active_by_org ON users(org_id, seq) WHERE removed_at IS NULL;

      CREATE TABLE api_keys (
        seq        INTEGER PRIMARY KEY,
        id         TEXT NOT NULL UNIQUE,
        org_id     TEXT NOT NULL REFERENCES orgs(id),
        user_id    TEXT NOT NULL REFERENCES users(id),
        name       TEXT NOT NULL COLLATE NOCASE,
        prefix     TEXT NOT NULL,
        key_hash   BLOB NOT NULL,
        role       TEXT NOT NULL CHECK (role IN ('admin', 'trainer')),
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );
      CREATE UNIQUE INDEX api_keys_active_name ON api_keys(org_id, name) WHERE revoked_at IS NULL;
      CREATE INDEX api_keys_by_prefix ON api_keys(prefix);
      CREATE INDEX api_keys_by_org ON api_keys(org_id, seq);
      CREATE INDEX api_keys_active_by_user ON api_keys(user_id) WHERE revoked_at IS NULL;

      CREATE TABLE labs (
        seq        INTEGER PRIMARY KEY,
        id         TEXT NOT NULL UNIQUE,
        org_id     TEXT NOT NULL REFERENCES orgs(id),
        name       TEXT NOT NULL COLLATE NOCASE,
        tier       TEXT NOT NULL CHECK (tier IN ('container', 'vm', 'cluster')),
        created_at TEXT NOT NULL,
        UNIQUE (org_id, name)
      );
      CREATE INDEX labs_by_org ON labs(org_id, seq);

      CREATE TABLE lab_versions (
        seq          INTEGER PRIMARY KEY,
        id           TEXT NOT NULL UNIQUE,
        lab_id       TEXT NOT NULL REFERENCES labs(id),
        org_id       TEXT NOT NULL REFERENCES orgs(id),
        version      INTEGER NOT NULL,
        status       TEXT NOT NULL CHECK (status IN ('draft', 'published')),
        created_at   TEXT NOT NULL,
        published_at TEXT,
        UNIQUE (lab_id, version)
      );
      CREATE INDEX lab_versions_by_lab ON lab_versions(lab_id, seq);

      CREATE TABLE sessions (
        seq            INTEGER PRIMARY KEY,
        id             TEXT NOT NULL UNIQUE,
        org_id         TEXT NOT NULL REFERENCES orgs(id),
        lab_version_id TEXT NOT NULL REFERENCES lab_versions(id),
        title          TEXT NOT NULL,
        state          TEXT NOT NULL CHECK (state IN ('scheduled', 'running', 'ended')),
        capacity       INTEGER NOT NULL,
        starts_at      TEXT,
        join_code      TEXT NOT NULL UNIQUE,
        created_at     TEXT NOT NULL
      );
      CREATE INDEX sessions_by_org ON sessions(org_id, seq);

      CREATE TABLE participants (
        seq        INTEGER PRIMARY KEY,
        id         TEXT NOT NULL UNIQUE,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        email      TEXT NOT NULL,
        name       TEXT NOT NULL,
        joined_at  TEXT NOT NULL,
        UNIQUE (session_id, email)
      );

      CREATE TABLE events (
        seq         INTEGER PRIMARY KEY,
        id          TEXT NOT NULL UNIQUE,
        org_id      TEXT NOT NULL REFERENCES orgs(id),
        type        TEXT NOT NULL,
        actor       TEXT NOT NULL,
        occurred_at TEXT NOT NULL,
        data        TEXT NOT NULL
      );
      CREATE INDEX events_by_org ON events(org_id, seq);

      CREATE TABLE webhooks (
        seq         INTEGER PRIMARY KEY,
        id          TEXT NOT NULL UNIQUE,
        org_id      TEXT NOT NULL REFERENCES orgs(id),
        url         TEXT NOT NULL,
        event_types TEXT NOT NULL,
        description TEXT,
        secret      TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        UNIQUE (org_id, url)
      );
      CREATE INDEX webhooks_by_org ON webhooks(org_id, seq);

      CREATE TABLE idempotency_keys (
        org_id      TEXT NOT NULL,
        route       TEXT NOT NULL,
        key         TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status      INTEGER NOT NULL,
        body        TEXT,
        created_at  INTEGER NOT NULL,
        PRIMARY KEY (org_id, route, key)
      ) WITHOUT ROWID;
      CREATE INDEX idempotency_keys_by_age ON idempotency_keys(created_at);
    `,
	},
	{
		version: 2,
		name: 'webhook delivery outbox',
		sql: `
      ALTER TABLE webhooks ADD COLUMN disabled_at TEXT;

      -- One row per (event, subscribed endpoint), written in the transaction of the event: the outbox.
      CREATE TABLE webhook_deliveries (
        seq              INTEGER PRIMARY KEY,
        id               TEXT NOT NULL UNIQUE,
        webhook_id       TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        event_id         TEXT NOT NULL REFERENCES events(id),
        status           TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'exhausted')),
        attempts         INTEGER NOT NULL DEFAULT 0,
        next_attempt_at  INTEGER,          -- Unix ms; null once final
        claimed_until    INTEGER,          -- Unix ms; a dispatcher is sending it until then
        last_status_code INTEGER,
        last_error       TEXT,
        last_attempt_at  TEXT
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE status IN ('pending', 'failed');
      CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries(webhook_id, seq);
    `,
	},
	{
		version: 3,
		name: 'server keys',
		sql: `
      -- Keys of the server itself, e.g. the one that seals paging cursors.
      CREATE TABLE server_keys (
        name TEXT PRIMARY KEY,
        key  BLOB NOT NULL
      ) WITHOUT ROWID;
    `,
	},
	{
		version: 4,
		name: 'bounds enforced by the database',
		// SQLite cannot add a CHECK to an existing table without rebuilding it (and the tables that
		// reference it), so the checks are triggers. The numbers come from schemas/bounds.ts: the schema
		// snapshot test fails if they change without a new migration.
		sql: [
			boundsCheck('orgs', { name: textLength(BOUNDS.name) }),
			boundsCheck('users', {
				name: textLength(BOUNDS.name),
				email: textLength({ min: 3, max: BOUNDS.email.max }),
			}),
			boundsCheck('api_keys', { name: textLength(BOUNDS.name) }),
			boundsCheck('labs', { name: textLength(BOUNDS.name) }),
			boundsCheck('sessions', {
				title: textLength(BOUNDS.name),
				capacity: `typeof(%) = 'integer' AND % BETWEEN ${BOUNDS.capacity.min} AND ${BOUNDS.capacity.max}`,
			}),
			boundsCheck('participants', {
				name: textLength(BOUNDS.name),
				email: textLength({ min: 3, max: BOUNDS.email.max }),
			}),
			boundsCheck('webhooks', {
				url: textLength({ min: 1, max: BOUNDS.webhookUrl.max }),
				description: `% IS NULL OR length(%) <= ${BOUNDS.webhookDescription.max}`,
			}),
		].join('\n'),
	},
	{
		version: 5,
		name: 'every attempt of a webhook delivery',
		// The delivery row keeps the state and the last outcome; this keeps each try, so a reader sees
		// when every attempt happened, how it ended and how long it took.
		sql: `
      CREATE TABLE webhook_delivery_attempts (
        delivery_seq INTEGER NOT NULL REFERENCES webhook_deliveries(seq) ON DELETE CASCADE,
        attempt      INTEGER NOT NULL,
        attempted_at TEXT NOT NULL,
        duration_ms  INTEGER NOT NULL,
        status_code  INTEGER,
        error        TEXT,
        PRIMARY KEY (delivery_seq, attempt)
      ) WITHOUT ROWID;
    `,
	},
	{
		version: 6,
		name: 'test events, resends, recovery and per-endpoint delivery',
		sql: `
      -- A sample event sent by POST …/webhooks/{id}/test: delivered to that endpoint only, never
      -- listed in the activity log.
      ALTER TABLE events ADD COLUMN test INTEGER NOT NULL DEFAULT 0 CHECK (test IN (0, 1));

      -- resends: how often a person asked for this delivery again (the body says which resend it is);
      -- revision: bumped by every change beside the dispatcher (a resend, a recovery, giving it up
      -- when its endpoint is disabled), so that an attempt in flight meanwhile does not undo it;
      -- schedule_start: the attempts made before the current retry schedule began.
      ALTER TABLE webhook_deliveries ADD COLUMN resends INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE webhook_deliveries ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE webhook_deliveries ADD COLUMN schedule_start INTEGER NOT NULL DEFAULT 0;

      -- The dispatcher takes due deliveries endpoint by endpoint, so one endpoint's backlog never
      -- holds up another's deliveries.
      DROP INDEX webhook_deliveries_due;
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries(webhook_id, next_attempt_at)
        WHERE status IN ('pending', 'failed');
      -- What a recovery looks at.
      CREATE INDEX webhook_deliveries_given_up ON webhook_deliveries(webhook_id, seq)
        WHERE status IN ('failed', 'exhausted');
    `,
	},
	{
		version: 7,
		name: 'held endpoints and delivery receipts',
		sql: `
      -- Set while the endpoint's receiver has said it is away (an n8n workflow deactivated, or being
      -- saved): its deliveries are kept, not sent, until it is released.
      ALTER TABLE webhooks ADD COLUMN held_since TEXT;
      -- 1: only a 2xx answer carrying the delivery's receipt header counts as delivered (the
      -- receiver registered the endpoint itself and answers every delivery it took with one).
      ALTER TABLE webhooks ADD COLUMN require_receipt INTEGER NOT NULL DEFAULT 0
        CHECK (require_receipt IN (0, 1));
    `,
	},
	{
		version: 8,
		name: 'activity log by type',
		sql: `
      -- The activity log filtered by type (the Activity Trigger asks for the types it listens to):
      -- newest first within one type, without reading the organization's other events.
      CREATE INDEX events_by_org_type ON events(org_id, type, seq);
    `,
	},
	{
		version: 9,
		name: 'what each attempt received, and the pace a receiver asks for',
		sql: `
      -- What started an attempt: 'schedule' (the first try and the retries), 'resend', 'recovery',
      -- 'test', or 'retry_after' (a retry the receiver asked for with Retry-After). next_cause is
      -- what starts the delivery's next attempt.
      ALTER TABLE webhook_delivery_attempts ADD COLUMN cause TEXT NOT NULL DEFAULT 'schedule';
      ALTER TABLE webhook_deliveries ADD COLUMN next_cause TEXT NOT NULL DEFAULT 'schedule';
      -- The answer as the receiver gave it: a safe subset of its headers (JSON) and the first 4 KB
      -- of its body, marked when it was longer. Null when no answer came.
      ALTER TABLE webhook_delivery_attempts ADD COLUMN response_headers TEXT;
      ALTER TABLE webhook_delivery_attempts ADD COLUMN response_body TEXT;
      ALTER TABLE webhook_delivery_attempts ADD COLUMN response_body_truncated INTEGER NOT NULL DEFAULT 0;
      -- A 429 or 503 with Retry-After earlier than the schedule's next step is retried then without
      -- using up that step: step_due_at is when the step falls due (null outside such retries),
      -- early_retries how many the step has had (bounded).
      ALTER TABLE webhook_deliveries ADD COLUMN step_due_at INTEGER;
      ALTER TABLE webhook_deliveries ADD COLUMN early_retries INTEGER NOT NULL DEFAULT 0;
    `,
	},
	{
		version: 10,
		name: 'signing secrets replaced with an overlap',
		sql: `
      -- The secret a rotation replaced: until previous_secret_expires_at (Unix ms) every delivery
      -- is signed with it too, so a receiver that still has only it keeps verifying.
      ALTER TABLE webhooks ADD COLUMN previous_secret TEXT;
      ALTER TABLE webhooks ADD COLUMN previous_secret_expires_at INTEGER;
    `,
	},
	{
		version: 11,
		name: 'retention',
		sql: `
      -- Events and deliveries are deleted once older than their retention: an event only once no
      -- delivery refers to it, which this index answers (and the foreign key's check on delete).
      CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries(event_id);
    `,
	},
	{
		version: 12,
		name: 'recoveries in batches',
		sql: `
      -- A recovery under way: the endpoint's failed and given-up deliveries from next_seq through
      -- through_seq are queued again a batch at a time, so that however many there are, no
      -- transaction is long and requests go on; kept here, it goes on after a restart.
      CREATE TABLE webhook_recoveries (
        webhook_id  TEXT PRIMARY KEY REFERENCES webhooks(id) ON DELETE CASCADE,
        next_seq    INTEGER NOT NULL,
        through_seq INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
	},
	{
		version: 13,
		name: 'event consumers',
		sql: `
      -- A reader of an organization's activity log whose position the API keeps (the n8n Activity
      -- Trigger): events after position_seq are new to it. position_event_id and
      -- position_occurred_at name that event, for people; null before the first event.
      CREATE TABLE event_consumers (
        seq                  INTEGER PRIMARY KEY,
        org_id               TEXT NOT NULL REFERENCES orgs(id),
        id                   TEXT NOT NULL,
        description          TEXT,
        event_types          TEXT,
        position_seq         INTEGER NOT NULL,
        position_event_id    TEXT,
        position_occurred_at TEXT,
        created_at           TEXT NOT NULL,
        last_read_at         TEXT NOT NULL,
        UNIQUE (org_id, id)
      );
      CREATE INDEX event_consumers_by_last_read ON event_consumers(last_read_at);
      -- Events handed out to a consumer together, open until it says their work is done; a batch
      -- its reader never finished (n8n stopped) is handed out again. event_seqs: JSON array.
      CREATE TABLE event_batches (
        consumer_seq INTEGER NOT NULL REFERENCES event_consumers(seq) ON DELETE CASCADE,
        id           TEXT NOT NULL,
        event_seqs   TEXT NOT NULL,
        taken_at     TEXT NOT NULL,
        attempts     INTEGER NOT NULL DEFAULT 1,
        PRIMARY KEY (consumer_seq, id)
      ) WITHOUT ROWID;
    `,
	},
	{
		version: 14,
		name: 'waiting deliveries in order',
		sql: `
      -- The oldest delivery still waiting, for /metrics, without reading every open one.
      CREATE INDEX webhook_deliveries_waiting ON webhook_deliveries(seq) WHERE status IN ('pending', 'failed');
    `,
	},
	{
		version: 15,
		name: 'trace context of events',
		sql: `
      -- The W3C trace context of the span that recorded the event: each delivery attempt is a span
      -- of that trace and sends it on (traceparent, tracestate). Null for events recorded before.
      ALTER TABLE events ADD COLUMN trace_parent TEXT;
      ALTER TABLE events ADD COLUMN trace_state TEXT;
    `,
	},
	{
		version: 16,
		name: 'endpoint health',
		sql: `
      -- Failed attempts in a row (a delivered one resets it) and, once they reached the threshold,
      -- since when the endpoint is failing: one webhook.failing and one webhook.recovered an incident.
      ALTER TABLE webhooks ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE webhooks ADD COLUMN failing_since TEXT;
    `,
	},
	{
		version: 17,
		name: 'waiting deliveries through the due index',
		sql: `
      -- Migration 14's index cost every delivery two more index writes (queued, then delivered) for a
      -- question /metrics asks once a scrape: the due index covers the same rows, and answers it.
      DROP INDEX webhook_deliveries_waiting;
    `,
	},
	{
		version: 18,
		name: 'why and when endpoints are held and released',
		sql: `
      -- Why the server held an endpoint itself (n8n answered that its webhook is not registered);
      -- null for a hold its receiver or a person asked for. And when it was last released: n8n may
      -- answer "not registered" for a moment after its trigger released it, which holds nothing.
      ALTER TABLE webhooks ADD COLUMN held_reason TEXT;
      ALTER TABLE webhooks ADD COLUMN released_at TEXT;
    `,
	},
	{
		version: 19,
		name: 'attempts per endpoint in 5-minute buckets',
		sql: `
      -- Each endpoint's attempts by the 5 minutes they started in (start: Unix ms), for its health
      -- over the last hour and day without reading the attempt log; kept for a day.
      CREATE TABLE webhook_attempt_buckets (
        webhook_id   TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        start        INTEGER NOT NULL,
        attempts     INTEGER NOT NULL,
        delivered    INTEGER NOT NULL,
        delivered_ms INTEGER NOT NULL,  -- summed answer times of the delivered attempts
        PRIMARY KEY (webhook_id, start)
      ) WITHOUT ROWID;
      CREATE INDEX webhook_attempt_buckets_by_start ON webhook_attempt_buckets(start);
    `,
	},
	{
		version: 20,
		name: 'the waiting deliveries counted as they change',
		sql: `
      -- How many deliveries wait (pending or failed), kept by triggers as deliveries are queued,
      -- settled, put back and deleted, so that /metrics reads one row rather than counting them;
      -- and how many were ever put back to waiting (resent, recovered), after which the oldest
      -- waiting delivery may be older than the one last read.
      CREATE TABLE webhook_backlog (
        waiting  INTEGER NOT NULL,
        reopened INTEGER NOT NULL
      );
      INSERT INTO webhook_backlog (waiting, reopened)
        SELECT count(*), 0 FROM webhook_deliveries WHERE status IN ('pending', 'failed');
      CREATE TRIGGER webhook_backlog_queued AFTER INSERT ON webhook_deliveries
        WHEN NEW.status IN ('pending', 'failed')
        BEGIN UPDATE webhook_backlog SET waiting = waiting + 1; END;
      CREATE TRIGGER webhook_backlog_reopened AFTER UPDATE OF status ON webhook_deliveries
        WHEN NEW.status IN ('pending', 'failed') AND OLD.status NOT IN ('pending', 'failed')
        BEGIN UPDATE webhook_backlog SET waiting = waiting + 1, reopened = reopened + 1; END;
      CREATE TRIGGER webhook_backlog_settled AFTER UPDATE OF status ON webhook_deliveries
        WHEN OLD.status IN ('pending', 'failed') AND NEW.status NOT IN ('pending', 'failed')
        BEGIN UPDATE webhook_backlog SET waiting = waiting - 1; END;
      CREATE TRIGGER webhook_backlog_deleted AFTER DELETE ON webhook_deliveries
        WHEN OLD.status IN ('pending', 'failed')
        BEGIN UPDATE webhook_backlog SET waiting = waiting - 1; END;
    `,
	},
	{
		version: 21,
		name: "each endpoint's waiting deliveries counted, and the first of them kept",
		sql: `
      -- Each endpoint's waiting deliveries (pending or failed): how many, and the first of them (the
      -- lowest seq; null when none waits), kept by triggers as deliveries are queued, settled, put
      -- back and deleted. /metrics and an endpoint's health read these rows: finding the first by
      -- walking the due index held up every API request for as long as the walk took, longer the
      -- more waited (docs/observability.md). When the first settles, the next is the first waiting
      -- one after it in the endpoint's order, usually the very next. Replaces migration 20's count.
      DROP TRIGGER webhook_backlog_queued;
      DROP TRIGGER webhook_backlog_reopened;
      DROP TRIGGER webhook_backlog_settled;
      DROP TRIGGER webhook_backlog_deleted;
      DROP TABLE webhook_backlog;
      CREATE TABLE webhook_backlogs (
        webhook_id TEXT PRIMARY KEY REFERENCES webhooks(id) ON DELETE CASCADE,
        waiting    INTEGER NOT NULL,
        first_seq  INTEGER
      ) WITHOUT ROWID;
      INSERT INTO webhook_backlogs (webhook_id, waiting, first_seq)
        SELECT w.id, count(d.seq), min(d.seq)
        FROM webhooks w LEFT JOIN webhook_deliveries d
          ON d.webhook_id = w.id AND d.status IN ('pending', 'failed')
        GROUP BY w.id;
      CREATE TRIGGER webhook_backlogs_created AFTER INSERT ON webhooks
        BEGIN INSERT INTO webhook_backlogs (webhook_id, waiting, first_seq) VALUES (NEW.id, 0, NULL); END;
      -- A new delivery's seq is above every other's: it is the first only when none waits.
      CREATE TRIGGER webhook_backlogs_queued AFTER INSERT ON webhook_deliveries
        WHEN NEW.status IN ('pending', 'failed')
        BEGIN UPDATE webhook_backlogs SET waiting = waiting + 1, first_seq = coalesce(first_seq, NEW.seq)
              WHERE webhook_id = NEW.webhook_id; END;
      CREATE TRIGGER webhook_backlogs_reopened AFTER UPDATE OF status ON webhook_deliveries
        WHEN NEW.status IN ('pending', 'failed') AND OLD.status NOT IN ('pending', 'failed')
        BEGIN UPDATE webhook_backlogs SET waiting = waiting + 1, first_seq = min(coalesce(first_seq, NEW.seq), NEW.seq)
              WHERE webhook_id = NEW.webhook_id; END;
      CREATE TRIGGER webhook_backlogs_settled AFTER UPDATE OF status ON webhook_deliveries
        WHEN OLD.status IN ('pending', 'failed') AND NEW.status NOT IN ('pending', 'failed')
        ${LEFT_THE_BACKLOG}
      CREATE TRIGGER webhook_backlogs_deleted AFTER DELETE ON webhook_deliveries
        WHEN OLD.status IN ('pending', 'failed')
        ${LEFT_THE_BACKLOG}
    `,
	},
];

function textLength({ min, max }: { min: number; max: number }): string {
	return `length(%) BETWEEN ${min} AND ${max}`;
}

/** Triggers refusing an insert or update of `table` that breaks any of the conditions (`%` stands for the column). */
function boundsCheck(table: string, conditions: Record<string, string>): string {
	const broken = Object.entries(conditions)
		.map(([column, condition]) => `NOT (${condition.replaceAll('%', `NEW.${column}`)})`)
		.join(' OR ');
	return ['INSERT', 'UPDATE']
		.map(
			(event) =>
				`CREATE TRIGGER ${table}_bounds_${event.toLowerCase()} BEFORE ${event} ON ${table} WHEN ${broken} ` +
				`BEGIN SELECT RAISE(ABORT, 'bounds: ${table}'); END;`,
		)
		.join('\n');
}

export function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): void {
	const current = db.pragma('user_version', { simple: true }) as number;
	const latest = migrations.at(-1)?.version ?? 0;
	if (current > latest) {
		throw new Error(
			`Database schema version ${current} is newer than this server supports (${latest}).`,
		);
	}
	for (const migration of migrations) {
		if (migration.version <= current) continue;
		inTransaction(db, () => {
			db.exec(migration.sql);
			db.pragma(`user_version = ${migration.version}`);
		});
	}
}
