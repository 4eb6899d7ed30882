import { ApiError, notFound } from '../core/errors.ts';
import { generateJoinCode } from '../lib/join-code.ts';
import { pageOf, type Page, type PageRequest } from '../core/paging.ts';
import type { SessionListRow, SessionRow } from '../repositories/sessions.ts';
import type {
	JoinRequest,
	JoinResult,
	Session,
	SessionCreate,
	SessionDetail,
} from '../schemas/sessions.ts';
import type { Actor } from '../core/actor.ts';
import { DomainService } from './domain-service.ts';

type Transition = {
	from: Session['state'];
	to: Session['state'];
	event: 'session.started' | 'session.ended';
};
const START: Transition = { from: 'scheduled', to: 'running', event: 'session.started' };
const END: Transition = { from: 'running', to: 'ended', event: 'session.ended' };

export class SessionService extends DomainService {
	list(orgId: string, page: PageRequest): Page<Session> {
		return pageOf(
			page,
			'ascending',
			(after, limit) => this.repos.sessions.page(orgId, after, limit),
			toSession,
		);
	}

	get(orgId: string, sessionId: string): SessionDetail {
		return this.#detail(this.#find(orgId, sessionId));
	}

	create(actor: Actor, input: SessionCreate): Session {
		return this.transaction(() => {
			const version = this.repos.labVersions.find(actor.orgId, input.lab_version_id);
			if (!version) throw notFound('Lab version');
			if (version.status !== 'published') {
				throw new ApiError(
					'lab_version_not_published',
					`Lab version ${version.version} is a draft; publish it first.`,
				);
			}
			const row = {
				id: this.newId(),
				org_id: actor.orgId,
				lab_version_id: version.id,
				title: input.title,
				state: 'scheduled' as const,
				capacity: input.capacity,
				starts_at: input.starts_at ?? null,
				join_code: this.#newJoinCode(),
				created_at: this.nowIso(),
			};
			this.repos.sessions.insert(row);
			const session = toSession({ ...row, seq: 0 });
			this.events.record(actor, 'session.created', {
				session_id: session.id,
				title: session.title,
				lab_version_id: session.lab_version_id,
				capacity: session.capacity,
				starts_at: session.starts_at,
			});
			return session;
		});
	}

	start(actor: Actor, sessionId: string): SessionDetail {
		return this.#transition(actor, sessionId, START);
	}

	end(actor: Actor, sessionId: string): SessionDetail {
		return this.#transition(actor, sessionId, END);
	}

	delete(actor: Actor, sessionId: string): void {
		this.transaction(() => {
			const session = this.#find(actor.orgId, sessionId);
			if (session.state === 'running') {
				throw new ApiError('invalid_state', 'A running session cannot be deleted; end it first.');
			}
			this.repos.sessions.delete(session.id);
			this.events.record(actor, 'session.deleted', {
				session_id: session.id,
				title: session.title,
			});
		});
	}

	/** Replaces the join code; the old one stops working with this commit. */
	rotateJoinCode(actor: Actor, sessionId: string): { join_code: string } {
		return this.transaction(() => {
			const session = this.#find(actor.orgId, sessionId);
			if (session.state === 'ended') throw sessionEnded();
			const joinCode = this.#newJoinCode();
			this.repos.sessions.setJoinCode(session.id, joinCode);
			this.events.record(actor, 'session.join_code_rotated', { session_id: session.id });
			return { join_code: joinCode };
		});
	}

	/** Capacity is checked and the participant inserted in one write transaction, so joins never overfill. */
	join(actor: Actor, input: JoinRequest): JoinResult {
		return this.transaction(() => {
			const session = this.repos.sessions.findByJoinCode(actor.orgId, input.join_code);
			if (!session) throw notFound('Join code');
			if (session.state === 'ended') throw sessionEnded();
			if (this.repos.participants.findByEmail(session.id, input.email)) {
				throw new ApiError('already_member', `${input.email} has already joined this session.`);
			}
			if (this.repos.participants.count(session.id) >= session.capacity) {
				throw new ApiError('session_full', `The session is full (capacity ${session.capacity}).`);
			}
			const participant = {
				id: this.newId(),
				email: input.email,
				name: input.name,
				joined_at: this.nowIso(),
			};
			this.repos.participants.insert({ ...participant, session_id: session.id });
			this.events.record(actor, 'participant.joined', {
				session_id: session.id,
				participant_id: participant.id,
				email: participant.email,
				name: participant.name,
			});
			return { session_id: session.id, participant };
		});
	}

	#transition(actor: Actor, sessionId: string, transition: Transition): SessionDetail {
		return this.transaction(() => {
			const session = this.#find(actor.orgId, sessionId);
			if (session.state !== transition.from) {
				throw new ApiError(
					'invalid_state',
					`The session is ${session.state}; only a ${transition.from} session can become ${transition.to}.`,
				);
			}
			this.repos.sessions.setState(session.id, transition.to);
			this.events.record(actor, transition.event, { session_id: session.id, title: session.title });
			return this.#detail({ ...session, state: transition.to });
		});
	}

	#find(orgId: string, sessionId: string): SessionRow {
		const session = this.repos.sessions.find(orgId, sessionId);
		if (!session) throw notFound('Session');
		return session;
	}

	#detail(session: SessionRow): SessionDetail {
		return { ...toSession(session), participants: this.repos.participants.count(session.id) };
	}

	#newJoinCode(): string {
		// 31^8 ≈ 8.5e11 codes: a collision is rare, but the unique index would turn one into a 500.
		for (;;) {
			const code = generateJoinCode();
			if (!this.repos.sessions.joinCodeTaken(code)) return code;
		}
	}
}

function toSession(row: SessionListRow): Session {
	return {
		id: row.id,
		title: row.title,
		state: row.state,
		capacity: row.capacity,
		starts_at: row.starts_at,
		lab_version_id: row.lab_version_id,
		created_at: row.created_at,
	};
}

const sessionEnded = (): ApiError =>
	new ApiError('invalid_state', 'The session has ended; it takes no more participants.');
