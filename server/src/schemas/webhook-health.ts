import { z } from 'zod';
import { Timestamp } from './common.ts';

const meanAnswerMs = z
	.int()
	.nullable()
	.meta({ description: "Mean time of the delivered attempts' answers; null when none delivered." });

const HealthPoint = z.object({
	start: Timestamp.meta({ description: 'Start of the span this point counts.' }),
	attempts: z.int().meta({ description: 'Attempts that started in it.' }),
	delivered: z.int().meta({ description: 'Of those, the ones delivered (2xx).' }),
	mean_answer_ms: meanAnswerMs,
});

const HealthWindow = z.object({
	attempts: z.int(),
	delivered: z.int(),
	success_rate: z
		.number()
		.nullable()
		.meta({ description: 'delivered / attempts, from 0 to 1; null without attempts.' }),
	mean_answer_ms: meanAnswerMs,
	points: z.array(HealthPoint),
});

export const WebhookHealth = z.object({
	waiting: z.int().meta({
		description:
			'Deliveries neither delivered nor given up: due, waiting for a retry, or held with the endpoint.',
	}),
	oldest_waiting_event_at: Timestamp.nullable().meta({
		description: "When the oldest waiting delivery's event happened; null when none waits.",
	}),
	last_hour: HealthWindow.meta({ description: 'The last hour, in 12 points of 5 minutes.' }),
	last_day: HealthWindow.meta({ description: 'The last day, in 24 points of an hour.' }),
});
export type WebhookHealth = z.infer<typeof WebhookHealth>;
export type HealthWindow = z.infer<typeof HealthWindow>;
