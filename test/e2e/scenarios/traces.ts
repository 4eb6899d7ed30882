import { randomBytes } from 'node:crypto';
import { eventually } from '../../../tooling/eventually';
import { patiently } from '../../../tooling/n8n/processes';
import type { E2e } from '../context';

/**
 * One trace from a client's API request to the n8n execution it started: the API server and n8n
 * export to the suite's stand-in collector (`e2e.collector`), and each delivery attempt sends its
 * span on in `traceparent`, which n8n makes the parent of the execution's trace.
 */
export function traceScenarios(e2e: E2e): void {
	describe('one trace from an API request into the n8n execution it starts', () => {
		it("the request, the event, the delivery attempt and n8n's execution are one trace, each span a child of the one before", async () => {
			const org = 'traced';
			const { org: of, api_key: key } = e2e.org(org);
			const workflowId = await e2e.memberRemovalTrigger(org);
			const [member] = await e2e.addTrainers(org, 1);
			const traceId = randomBytes(16).toString('hex');
			const callerSpanId = randomBytes(8).toString('hex');
			const removed = await fetch(`${e2e.api.url}/orgs/${of.id}/members/${member.user_id}`, {
				method: 'DELETE',
				headers: {
					authorization: `Bearer ${key}`,
					traceparent: `00-${traceId}-${callerSpanId}-01`,
				},
			});
			expect(removed.status).toBe(204);
			expect(await e2e.noticesOnceSettled(org, workflowId, [member.user_id])).toEqual([
				member.user_id,
			]);

			const collector = e2e.collector!;
			const spans = await eventually(
				() => {
					const trace = collector.trace(traceId);
					return trace.some((span) => span.service === 'n8n') && trace;
				},
				"n8n's spans of the execution, in the request's trace",
				patiently(60_000, e2e.n8n.log),
			);
			const ours = (name: string) =>
				spans.find((span) => span.service === 'traininglab-api' && span.name === name)!;
			const request = ours('DELETE /api/v1/orgs/{orgId}/members/{userId}');
			const event = ours('event member.removed');
			const attempt = ours('deliver member.removed');
			expect(request.parentSpanId).toBe(callerSpanId);
			expect(event.parentSpanId).toBe(request.spanId);
			expect(attempt.parentSpanId).toBe(event.spanId);
			const n8nSpans = spans.filter((span) => span.service === 'n8n');
			// n8n's execution hangs below the attempt that delivered the event: its top span's parent.
			const ids = new Set(n8nSpans.map((span) => span.spanId));
			const n8nTop = n8nSpans.filter((span) => !ids.has(span.parentSpanId ?? ''));
			expect(n8nTop.map((span) => span.parentSpanId)).toEqual([attempt.spanId]);
			console.log(
				`n8n ${e2e.n8n.version}: one trace of ${spans.length} spans: ${spans
					.map((span) => `${span.service}: ${span.name}`)
					.join(' → ')}`,
			);
		});
	});
}
