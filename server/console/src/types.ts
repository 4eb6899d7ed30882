// The shapes the console reads, as /api/v1/openapi.json describes them (the server's zod schemas are
// their source; the console is compiled for the browser on its own, so it restates the fields it uses).

export type Role = 'admin' | 'trainer';

export interface Me {
	user: { id: string; email: string; name: string };
	org: { id: string; name: string; slug: string };
	role: Role;
}

export interface Member {
	user_id: string;
	email: string;
	name: string;
	role: Role;
}

export interface ActivityEvent {
	id: string;
	type: string;
	actor: string;
	occurred_at: string;
	data: Record<string, unknown>;
}

export type SessionState = 'scheduled' | 'running' | 'ended';

export interface Session {
	id: string;
	title: string;
	state: SessionState;
	capacity: number;
	starts_at: string | null;
	lab_version_id: string;
	created_at: string;
	participants?: number;
}

export interface Lab {
	id: string;
	name: string;
	tier: string;
}

export interface LabVersion {
	id: string;
	version: number;
	status: 'published' | 'draft';
	published_at?: string;
}

export interface ApiKey {
	id: string;
	name: string;
	prefix: string;
	role: Role;
	created_at: string;
	revoked_at: string | null;
}

export interface Webhook {
	id: string;
	url: string;
	event_types: string[];
	description?: string;
	created_at: string;
	disabled_at: string | null;
}

export interface DeliveryAttempt {
	attempt: number;
	attempted_at: string;
	duration_ms: number;
	status_code: number | null;
	error: string | null;
}

export interface Delivery {
	id: string;
	event_id: string;
	event_type: string;
	event_occurred_at: string;
	/** A sample sent with Send test event. */
	test: boolean;
	/** How often a person had it sent again. */
	resends: number;
	status: 'pending' | 'succeeded' | 'failed' | 'exhausted';
	attempts: number;
	last_status_code: number | null;
	last_error: string | null;
	last_attempt_at: string | null;
	next_attempt_at: string | null;
	attempt_log: DeliveryAttempt[];
}
