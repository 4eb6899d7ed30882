export const ERROR_STATUS = {
	validation_failed: 400,
	malformed_json: 400,
	unauthorized: 401,
	forbidden: 403,
	not_found: 404,
	request_timeout: 408,
	name_taken: 409,
	url_taken: 409,
	already_member: 409,
	last_admin: 409,
	invalid_state: 409,
	session_full: 409,
	lab_version_not_published: 409,
	idempotency_conflict: 409,
	webhook_limit_reached: 409,
	consumer_exists: 409,
	consumer_limit_reached: 409,
	payload_too_large: 413,
	unsupported_media_type: 415,
	expectation_failed: 417,
	headers_too_large: 431,
	rate_limited: 429,
	internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

interface ErrorDetail {
	path: string;
	message: string;
}

export interface ErrorEnvelope {
	error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
}

/** An error the API reports to the client as-is; anything else becomes a 500 `internal`. */
export class ApiError extends Error {
	readonly code: ErrorCode;
	readonly status: number;
	readonly details: ErrorDetail[] | undefined;

	constructor(code: ErrorCode, message: string, details?: ErrorDetail[]) {
		super(message);
		this.name = 'ApiError';
		this.code = code;
		this.status = ERROR_STATUS[code];
		this.details = details;
	}

	toEnvelope(): ErrorEnvelope {
		return {
			error: {
				code: this.code,
				message: this.message,
				...(this.details ? { details: this.details } : {}),
			},
		};
	}
}

export const notFound = (what: string): ApiError => new ApiError('not_found', `${what} not found.`);
