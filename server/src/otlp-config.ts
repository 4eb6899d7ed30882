import { validateHeaderName, validateHeaderValue } from 'node:http';
import { z } from 'zod';

// The variables by which OpenTelemetry's SDKs are told where traces go, read as they read them:
// the general ones, the traces-only ones over them, and the resource the spans come from.

/** An OpenTelemetry collector that takes OTLP over HTTP, in protobuf. */
export interface OtlpTarget {
	/** Where exports are posted: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`. */
	url: string;
	/** Sent with every export. */
	headers: Record<string, string>;
	/** The attributes of every span's resource, `service.name` among them. */
	resource: Record<string, string>;
}

/**
 * A list as OpenTelemetry's SDKs read `OTEL_EXPORTER_OTLP_HEADERS` and `OTEL_RESOURCE_ATTRIBUTES`:
 * `key=value` pairs separated by commas, each percent-encoded. `accepts` checks each pair. The
 * message shows no part of the value (headers hold a hosted collector's key).
 */
function keyValueList(
	accepts: (key: string, value: string) => boolean,
	message: string,
	normalize = (key: string) => key,
) {
	return z.string().transform((list, context) => {
		const pairs: Record<string, string> = {};
		for (const pair of list.split(',')) {
			if (pair.trim() === '') continue;
			const at = pair.indexOf('=');
			const key = at > 0 ? decodedOrNull(pair.slice(0, at).trim()) : null;
			const value = at > 0 ? decodedOrNull(pair.slice(at + 1).trim()) : null;
			if (key === null || value === null || !accepts(key, value)) {
				context.addIssue({ code: 'custom', message });
				return z.NEVER;
			}
			pairs[normalize(key)] = value;
		}
		return pairs;
	});
}

/** Headers for every export (a hosted collector's key). */
const OtlpHeaders = keyValueList(
	sendable,
	'must be name=value pairs separated by commas, each percent-encoded (e.g. authorization=Bearer%20…)',
	(name) => name.toLowerCase(),
);

/** Attributes of the resource every span belongs to (`deployment.environment.name=staging`). */
const ResourceAttributes = keyValueList(
	(key) => key !== '',
	'must be key=value pairs separated by commas, each percent-encoded (e.g. deployment.environment.name=staging)',
);

/** A collector's address, or its traces URL. */
const OtlpUrl = z.url({ protocol: /^https?$/ });

const OtlpProtocol = z.enum(['http/protobuf'], {
	error: 'only http/protobuf is supported (not grpc or http/json)',
});

export const DEFAULT_SERVICE_NAME = 'traininglab-api';

function decodedOrNull(text: string): string | null {
	try {
		return decodeURIComponent(text);
	} catch {
		return null;
	}
}

/** Whether Node's http would send this header: the checks an export's request makes. */
function sendable(name: string, content: string): boolean {
	try {
		validateHeaderName(name);
		validateHeaderValue(name, content);
		return true;
	} catch {
		return false;
	}
}

/** The variables, as part of the server's configuration (config.ts). */
export const OtlpVariables = {
	OTEL_EXPORTER_OTLP_ENDPOINT: OtlpUrl.optional(),
	OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: OtlpUrl.optional(),
	OTEL_EXPORTER_OTLP_PROTOCOL: OtlpProtocol.default('http/protobuf'),
	OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: OtlpProtocol.optional(),
	OTEL_EXPORTER_OTLP_HEADERS: OtlpHeaders.optional(),
	OTEL_EXPORTER_OTLP_TRACES_HEADERS: OtlpHeaders.optional(),
	OTEL_SERVICE_NAME: z.string().min(1).optional(),
	OTEL_RESOURCE_ATTRIBUTES: ResourceAttributes.optional(),
};
/** Where traces go, as OpenTelemetry's SDKs read the variables: a traces-only one over the general one. */
export function otlpTarget(e: z.infer<z.ZodObject<typeof OtlpVariables>>): OtlpTarget | undefined {
	const url =
		e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
		(e.OTEL_EXPORTER_OTLP_ENDPOINT &&
			`${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`);
	if (!url) return undefined;
	const attributes = e.OTEL_RESOURCE_ATTRIBUTES ?? {};
	return {
		url,
		headers: { ...e.OTEL_EXPORTER_OTLP_HEADERS, ...e.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
		resource: {
			...attributes,
			'service.name': e.OTEL_SERVICE_NAME ?? attributes['service.name'] ?? DEFAULT_SERVICE_NAME,
		},
	};
}
