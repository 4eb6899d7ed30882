import { z } from 'zod';
import { BOUNDS } from './bounds.ts';
import {
	listParameter,
	listQuery,
	rangeInOrder,
	timeRange,
	Timestamp,
	TimestampInput,
	Uuid,
	quoted,
} from './common.ts';
import { EventType, eventTypesParameter } from './events.ts';

export const WebhookParams = z.object({ orgId: Uuid, webhookId: Uuid });
export const DeliveryParams = WebhookParams.extend({ deliveryId: Uuid });

const WebhookUrl = z
	.url({ protocol: /^https?$/ })
	.max(BOUNDS.webhookUrl.max)
	// A transform runs only once the checks above passed, so the URL is known to parse here.
	.transform((value, ctx) => {
		const url = new URL(value);
		if (url.username !== '' || url.password !== '') {
			ctx.addIssue({ code: 'custom', message: 'URL must not contain a user name or password.' });
			return z.NEVER;
		}
		return url.href;
	})
	.meta({
		description: `Absolute \`https://\` URL of a public host, at most ${BOUNDS.webhookUrl.max} characters.`,
	});

const EventTypes = z
	.array(EventType)
	.min(1)
	.max(EventType.options.length)
	.transform((types) => [...new Set(types)]);

const Description = z.string().trim().max(BOUNDS.webhookDescription.max);

const RequireReceipt = z.boolean().meta({
	description:
		"`true`: an answer counts as delivered only when it is a 2xx carrying the header `webhook-receipt` with the delivery's `webhook-id`; any other answer is a failed attempt, retried (a proxy's page, or a program answering 200 while it starts, did not take the event). For receivers that answer every delivery they take with it, as the n8n Training Lab Trigger does. `false` (the default): any 2xx.",
});

export const WebhookCreate = z.object({
	url: WebhookUrl,
	event_types: EventTypes,
	description: Description.optional(),
	require_receipt: RequireReceipt.optional(),
});
export type WebhookCreate = z.infer<typeof WebhookCreate>;

export const WebhookUpdate = z
	.object({
		url: WebhookUrl.optional(),
		event_types: EventTypes.optional(),
		description: Description.nullable()
			.optional()
			.meta({ description: 'The new description; `null` or an empty string removes it.' }),
		disabled: z.boolean().optional().meta({
			description:
				'`true` disables the endpoint: it receives nothing, and what it subscribes to is kept as given-up deliveries that a recovery can send. `false` enables it again, also after a 410 Gone.',
		}),
		held: z
			.boolean()
			.optional()
			.meta({
				description: `For the receiver itself. \`true\` holds its deliveries while it is away (an n8n workflow deactivated, or being saved): they are kept, not sent, and a held endpoint does not count toward the ${BOUNDS.webhookEndpoints.max} an organization may have. \`false\` releases them: they are sent as if nothing had happened (or skipped, with \`skip_held_events\`). An endpoint held for ${BOUNDS.heldWebhookEndpoints.days} days, or the one held longest once an organization holds more than ${BOUNDS.heldWebhookEndpoints.max}, is deleted with what it kept.`,
			}),
		skip_held_events: z.boolean().optional().meta({
			description:
				'With `"held": false`: the deliveries of events that happened while it was held are given up instead of sent (a recovery can still send them).',
		}),
		require_receipt: RequireReceipt.optional(),
	})
	.refine(
		(update) => Object.values(update).some((value) => value !== undefined),
		'Give at least one of url, event_types, description, disabled, held, require_receipt.',
	)
	.refine((update) => !update.skip_held_events || update.held === false, {
		path: ['skip_held_events'],
		message: 'Only with "held": false, when the deliveries are released.',
	});
export type WebhookUpdate = z.infer<typeof WebhookUpdate>;

export const WebhookTestRequest = z.object({
	event_type: EventType.meta({ description: 'A type the endpoint subscribes to.' }),
});
export type WebhookTestRequest = z.infer<typeof WebhookTestRequest>;

export const WebhookRecoverRequest = z.object({
	since: TimestampInput.meta({
		description:
			'Deliveries of events that occurred at or after this time are sent again; not in the future.',
	}),
});
export type WebhookRecoverRequest = z.infer<typeof WebhookRecoverRequest>;

/** The longest a replaced secret may go on signing deliveries. */
export const MAX_SECRET_OVERLAP_MS = 7 * 24 * 60 * 60 * 1000;
/** How long a replaced secret goes on signing deliveries unless a time is given. */
export const DEFAULT_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export const WebhookRotateSecretRequest = z.object({
	old_secret_expires_at: TimestampInput.optional().meta({
		description:
			'Until when deliveries are signed with the old secret too: 24 hours from now when left out, at most 7 days; a time that is not in the future ends the old secret at once (a secret that leaked).',
	}),
});
export type WebhookRotateSecretRequest = z.infer<typeof WebhookRotateSecretRequest>;

export const WebhookRecovery = z.object({
	queued: z.int().meta({
		description:
			'How many failed or given-up deliveries were queued again, each on a fresh schedule.',
	}),
	since: Timestamp,
});
export type WebhookRecovery = z.infer<typeof WebhookRecovery>;

export const Webhook = z.object({
	id: Uuid,
	url: z.string(),
	event_types: z.array(EventType),
	description: z.string().optional(),
	created_at: Timestamp,
	disabled_at: Timestamp.nullable().meta({
		description:
			'When the endpoint was disabled (by a person, or because it answered 410 Gone); null while enabled. A disabled endpoint receives nothing until it is enabled again.',
	}),
	held_since: Timestamp.nullable().meta({
		description:
			'Since when its deliveries are held (`PATCH` with `"held": true`: an n8n workflow deactivated; or the server, see `held_reason`): they are kept and sent once it is released. Null while they are sent.',
	}),
	held_reason: z.string().nullable().meta({
		description:
			"Why the server held the endpoint itself: its receiver, an n8n instance, answered `404` that the workflow's webhook is not registered there (the workflow deactivated or deleted without its trigger being told, or n8n's database restored). Activating the workflow again releases it. Null when its receiver or a person held it, and while it is not held.",
	}),
	require_receipt: RequireReceipt,
	previous_secret_expires_at: Timestamp.nullable().meta({
		description:
			'While a replaced secret still signs deliveries (`POST …/rotate-secret`): until when. Every delivery meanwhile carries two signatures, `v1,<new> v1,<old>`. Null otherwise.',
	}),
});
export type Webhook = z.infer<typeof Webhook>;

export const WebhookCreated = Webhook.extend({
	secret: z
		.string()
		.meta({ description: 'Signing secret (`whsec_…`). Shown once, in this response only.' }),
});
export type WebhookCreated = z.infer<typeof WebhookCreated>;

export const WebhookSecretRotated = Webhook.extend({
	secret: z.string().meta({
		description: 'The new signing secret (`whsec_…`). Shown once, in this response only.',
	}),
});
export type WebhookSecretRotated = z.infer<typeof WebhookSecretRotated>;

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'exhausted'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** `GET …/deliveries`: a page, of some states, event types, test or real events, and times only. */
export const DeliveryListQuery = listQuery(100)
	.extend({
		status: listParameter(
			z.enum(DELIVERY_STATUSES, {
				error: (issue) =>
					`Unknown status ${quoted(issue.input)}; one of ${DELIVERY_STATUSES.join(', ')}`,
			}),
			'Only deliveries in these states (`pending`, `succeeded`, `failed`, `exhausted`): repeated, or separated by commas.',
		),
		event_type: eventTypesParameter(
			'Only deliveries of events of these types: repeated, or separated by commas.',
		),
		test: z
			.enum(['true', 'false'])
			.transform((value) => value === 'true')
			.pipe(z.boolean())
			.optional()
			.meta({ description: '`true`: only test events; `false`: only real ones.' }),
		...timeRange('deliveries of events that occurred'),
	})
	.refine(...rangeInOrder);

export const ATTEMPT_CAUSES = ['schedule', 'retry_after', 'resend', 'recovery', 'test'] as const;
export type AttemptCause = (typeof ATTEMPT_CAUSES)[number];

export const DeliveryAttempt = z.object({
	attempt: z.int().meta({ description: 'Number of this try, from 1.' }),
	attempted_at: Timestamp.meta({ description: 'When the try started.' }),
	duration_ms: z
		.int()
		.meta({ description: 'How long it took until the answer, error or timeout.' }),
	status_code: z
		.int()
		.nullable()
		.meta({ description: 'HTTP status received; null if none was (connection error, timeout).' }),
	error: z.string().nullable().meta({
		description:
			"Why the try failed, with the start of the receiver's answer; null when it delivered.",
	}),
	cause: z.enum(ATTEMPT_CAUSES).meta({
		description:
			'What started it: `schedule` (the first try, or a retry of the schedule), `retry_after` (a retry the receiver asked for with `Retry-After`), `resend` (a person), `recovery` (a person recovering deliveries) or `test` (a test event).',
	}),
});
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

export const AttemptResponse = z
	.object({
		headers: z.record(z.string(), z.string()).meta({
			description:
				'The headers that say what answered and why (`content-type`, `server`, `retry-after`, `location`, `webhook-receipt`, request ids…), never cookies or credentials; each value at most 512 characters.',
		}),
		body: z.string().meta({ description: 'The first 4 KB of the body, as UTF-8 text.' }),
		body_truncated: z
			.boolean()
			.meta({ description: '`true` when the body was longer than the 4 KB kept.' }),
	})
	.meta({ description: "The receiver's answer; null when none came (timeout, connection error)." });

export const DeliveryAttemptDetail = DeliveryAttempt.extend({
	response: AttemptResponse.nullable(),
});
export type DeliveryAttemptDetail = z.infer<typeof DeliveryAttemptDetail>;

export const WebhookDelivery = z.object({
	id: Uuid,
	event_id: Uuid,
	event_type: EventType,
	event_occurred_at: Timestamp,
	test: z.boolean().meta({
		description: 'A sample event sent with `POST …/test`; nothing happened in the organization.',
	}),
	resends: z.int().meta({
		description:
			'How often a person had it sent again (`POST …/resend`); the body of a resend says which one it is in `resend`.',
	}),
	status: z.enum(DELIVERY_STATUSES).meta({
		description:
			'`pending` (not tried yet), `succeeded`, `failed` (will be retried at `next_attempt_at`) or `exhausted` (no more tries).',
	}),
	attempts: z.int(),
	last_status_code: z
		.int()
		.nullable()
		.meta({ description: 'HTTP status of the last attempt; null if none was received.' }),
	last_error: z.string().nullable(),
	last_attempt_at: Timestamp.nullable(),
	next_attempt_at: Timestamp.nullable(),
	attempt_log: z.array(DeliveryAttempt).meta({
		description:
			"Every try so far, oldest first; `GET …/deliveries/{deliveryId}` adds each one's answer.",
	}),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const WebhookDeliveryDetail = WebhookDelivery.extend({
	attempt_log: z.array(DeliveryAttemptDetail).meta({
		description:
			"Every try so far, oldest first, each with the receiver's answer. Early retries a receiver asks for (`retry_after`) are bounded: at most 10 per step of the schedule.",
	}),
});
export type WebhookDeliveryDetail = z.infer<typeof WebhookDeliveryDetail>;
