import { z } from 'zod';
import { DEFAULT_SERVICE_NAME, otlpTarget, OtlpVariables, type OtlpTarget } from './otlp-config.ts';

/** Seconds between webhook delivery attempts: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 27 hours in all). */
export const DEFAULT_RETRY_SCHEDULE_S: readonly number[] = [
	5, 300, 1800, 7200, 18000, 36000, 36000,
];

const Flag = z.enum(['true', 'false']).transform((value) => value === 'true');
const Seconds = z.coerce.number<string>().positive();

const Milliseconds = z.coerce.number().int().min(1).max(3_600_000);
/** Days, fractions allowed (0.01 is under a quarter of an hour), from about a minute. */
const Days = z.coerce.number<string>().min(0.001);
const DAY_MS = 24 * 60 * 60 * 1000;

/** An absolute http(s) URL clients reach the server at, optionally with a path prefix; no trailing slash. */
const PublicUrl = z
	.url({ protocol: /^https?$/, abort: true })
	.refine((value) => {
		const url = new URL(value);
		return !url.username && !url.password && !url.search && !url.hash;
	}, 'must be an http(s) URL without credentials, query or fragment')
	.transform((value) => value.replace(/\/+$/, ''));

const Env = z
	.object({
		PORT: z.coerce.number().int().min(0).max(65535).default(3000),
		HOST: z.string().min(1).default('127.0.0.1'),
		PUBLIC_URL: PublicUrl.optional(),
		DATABASE_PATH: z.string().min(1).default('./data/traininglab.sqlite'),
		RATE_LIMIT_REQUESTS: z.coerce.number().int().min(1).default(600),
		RATE_LIMIT_WINDOW_S: z.coerce.number().int().min(1).default(60),
		WEBHOOK_ALLOW_INSECURE_URLS: Flag.default(false),
		WEBHOOK_RETRY_SCHEDULE_S: z
			.string()
			.default(DEFAULT_RETRY_SCHEDULE_S.join(','))
			.transform((value) => value.split(',').map((part) => part.trim()))
			.pipe(z.array(Seconds).min(1)),
		WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(1).default(10000),
		WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(32),
		WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(16),
		WEBHOOK_ORG_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(24),
		WEBHOOK_DNS_TIMEOUT_MS: Milliseconds.default(5000),
		HTTP_HEADERS_TIMEOUT_MS: Milliseconds.default(10_000),
		HTTP_REQUEST_TIMEOUT_MS: Milliseconds.default(30_000),
		HTTP_KEEP_ALIVE_TIMEOUT_MS: Milliseconds.default(5000),
		EVENT_RETENTION_DAYS: Days.default(90),
		DELIVERY_RETENTION_DAYS: Days.default(30),
		METRICS_ENABLED: Flag.default(false),
		METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
		...OtlpVariables,
	})
	.refine((env) => env.HTTP_HEADERS_TIMEOUT_MS <= env.HTTP_REQUEST_TIMEOUT_MS, {
		path: ['HTTP_HEADERS_TIMEOUT_MS'],
		message: 'must not exceed HTTP_REQUEST_TIMEOUT_MS',
	})
	.refine((env) => env.DELIVERY_RETENTION_DAYS <= env.EVENT_RETENTION_DAYS, {
		path: ['DELIVERY_RETENTION_DAYS'],
		message: 'must not exceed EVENT_RETENTION_DAYS (a delivery keeps its event)',
	});

export interface HttpLimits {
	/** Time a client has to send the request headers. */
	headersTimeoutMs: number;
	/** Time a client has to send the whole request, body included. */
	requestTimeoutMs: number;
	/** How long an idle keep-alive connection is kept open. */
	keepAliveTimeoutMs: number;
}

export interface Config {
	port: number;
	host: string;
	/** Base of every absolute URL the server emits (e.g. `Link`); undefined: the listen address. */
	publicUrl: string | undefined;
	http: HttpLimits;
	databasePath: string;
	rateLimit: { requests: number; windowSeconds: number };
	/** How long the activity log and finished webhook deliveries are kept, by their event's time. */
	retention: { eventMs: number; deliveryMs: number };
	/** `GET /metrics`: off unless enabled; with a token, only for `Authorization: Bearer <token>`. */
	metrics: { enabled: boolean; token: string | undefined };
	/** Where traces go; undefined: nowhere. */
	otlp: OtlpTarget | undefined;
	webhooks: {
		allowInsecureUrls: boolean;
		retryScheduleSeconds: number[];
		timeoutMs: number;
		concurrency: number;
		endpointConcurrency: number;
		orgConcurrency: number;
		dnsTimeoutMs: number;
	};
}

/** What each variable means, for `npm start -- --help`; its type holds it to the variables of Env. */
export const VARIABLE_MEANINGS: Record<keyof z.input<typeof Env>, string> = {
	PORT: 'listen port (0: any free port; the server prints the one it got)',
	HOST: 'listen address',
	PUBLIC_URL: 'where clients reach the server, the base of every absolute URL it emits',
	DATABASE_PATH: 'SQLite file, created with its folder (:memory: allowed)',
	RATE_LIMIT_REQUESTS: 'request budget per API key per window',
	RATE_LIMIT_WINDOW_S: 'length of that window, seconds',
	WEBHOOK_ALLOW_INSECURE_URLS:
		'true allows http:// and non-public webhook targets (development only)',
	WEBHOOK_RETRY_SCHEDULE_S: 'delays between webhook delivery attempts, seconds',
	WEBHOOK_TIMEOUT_MS: 'per-attempt webhook timeout',
	WEBHOOK_CONCURRENCY: 'webhook deliveries in flight at once',
	WEBHOOK_ENDPOINT_CONCURRENCY:
		'webhook deliveries in flight at once to one endpoint (a backlog goes at its pace)',
	WEBHOOK_ORG_CONCURRENCY:
		"webhook deliveries in flight at once to one organization's endpoints (the others' always find a slot)",
	WEBHOOK_DNS_TIMEOUT_MS: 'bound on resolving a webhook host when an endpoint is created',
	HTTP_HEADERS_TIMEOUT_MS: 'time a client has to send the request headers',
	HTTP_REQUEST_TIMEOUT_MS: 'time a client has to send the whole request',
	HTTP_KEEP_ALIVE_TIMEOUT_MS: 'how long an idle keep-alive connection stays open',
	EVENT_RETENTION_DAYS:
		'days the activity log keeps an event (fractions allowed); then it is deleted, once no kept delivery refers to it',
	DELIVERY_RETENTION_DAYS:
		'days a finished (succeeded or given-up) webhook delivery is kept with its attempts, by its event time; at most EVENT_RETENTION_DAYS',
	METRICS_ENABLED: 'true serves Prometheus metrics at /metrics (docs/observability.md)',
	METRICS_TOKEN:
		'when set, /metrics answers only Authorization: Bearer <this token> (at least 16 characters)',
	OTEL_EXPORTER_OTLP_ENDPOINT:
		'OpenTelemetry collector (OTLP over HTTP) that receives the traces, e.g. http://localhost:4318',
	OTEL_EXPORTER_OTLP_TRACES_ENDPOINT:
		'the URL traces are posted to, as it is (no /v1/traces added); instead of OTEL_EXPORTER_OTLP_ENDPOINT',
	OTEL_EXPORTER_OTLP_PROTOCOL: 'how traces are sent: http/protobuf, the only one supported',
	OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'the same, for traces (http/protobuf)',
	OTEL_EXPORTER_OTLP_HEADERS:
		"headers sent with every export, name=value pairs separated by commas, percent-encoded (e.g. a hosted collector's key)",
	OTEL_EXPORTER_OTLP_TRACES_HEADERS:
		'headers for trace exports, read the same way; over OTEL_EXPORTER_OTLP_HEADERS where both name one',
	OTEL_SERVICE_NAME:
		'the service.name the traces carry (over a service.name in OTEL_RESOURCE_ATTRIBUTES)',
	OTEL_RESOURCE_ATTRIBUTES:
		'attributes of the resource the traces come from, key=value pairs separated by commas, percent-encoded',
};

/** Each configuration variable's default, as a value (undefined: none, as for PUBLIC_URL). */
export function configurationDefaults(): Partial<Record<keyof typeof VARIABLE_MEANINGS, unknown>> {
	return { ...Env.parse({}), OTEL_SERVICE_NAME: DEFAULT_SERVICE_NAME };
}

/** The help of `npm start`: every configuration variable with its default and meaning. */
export function configurationHelp(): string {
	const defaults = configurationDefaults();
	const rows = Object.entries(VARIABLE_MEANINGS).map(([name, meaning]) => {
		const value = defaults[name as keyof typeof VARIABLE_MEANINGS];
		const shown =
			value !== undefined
				? String(value)
				: name === 'PUBLIC_URL'
					? '(the listen address)'
					: '(none)';
		return `  ${name.padEnd(28)} ${meaning}
  ${''.padEnd(28)} default: ${shown}`;
	});
	return [
		'Usage: npm start            (or: node server/src/main.ts)',
		'',
		'Starts the Training Lab API server. It is configured by environment variables:',
		'',
		...rows,
		'',
		'Example: PORT=3001 DATABASE_PATH=./data/dev.sqlite npm start',
	].join('\n');
}

/** Configuration from environment variables; an invalid value stops the server with a message naming it. */
export function loadConfig(env: Record<string, string | undefined>): Config {
	const result = Env.safeParse(
		Object.fromEntries(Object.entries(env).filter(([, value]) => value !== '')),
	);
	if (!result.success) {
		const problems = result.error.issues.map(
			(issue) => `${issue.path[0]?.toString()}: ${issue.message}`,
		);
		throw new Error(`Invalid configuration: ${problems.join('; ')}`);
	}
	const e = result.data;
	return {
		port: e.PORT,
		host: e.HOST,
		publicUrl: e.PUBLIC_URL,
		http: {
			headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
			requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
			keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
		},
		databasePath: e.DATABASE_PATH,
		rateLimit: { requests: e.RATE_LIMIT_REQUESTS, windowSeconds: e.RATE_LIMIT_WINDOW_S },
		retention: {
			eventMs: e.EVENT_RETENTION_DAYS * DAY_MS,
			deliveryMs: e.DELIVERY_RETENTION_DAYS * DAY_MS,
		},
		metrics: { enabled: e.METRICS_ENABLED, token: e.METRICS_TOKEN },
		otlp: otlpTarget(e),
		webhooks: {
			allowInsecureUrls: e.WEBHOOK_ALLOW_INSECURE_URLS,
			retryScheduleSeconds: e.WEBHOOK_RETRY_SCHEDULE_S,
			timeoutMs: e.WEBHOOK_TIMEOUT_MS,
			concurrency: e.WEBHOOK_CONCURRENCY,
			endpointConcurrency: e.WEBHOOK_ENDPOINT_CONCURRENCY,
			orgConcurrency: e.WEBHOOK_ORG_CONCURRENCY,
			dnsTimeoutMs: e.WEBHOOK_DNS_TIMEOUT_MS,
		},
	};
}
