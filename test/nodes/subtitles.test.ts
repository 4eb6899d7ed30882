import { Workflow, type INode, type INodeParameters, type INodeType } from 'n8n-workflow';
import { TrainingLab } from '../../nodes/TrainingLab/TrainingLab.node';
import { TrainingLabActivityTrigger } from '../../nodes/TrainingLabActivityTrigger/TrainingLabActivityTrigger.node';
import { TrainingLabTrigger } from '../../nodes/TrainingLabTrigger/TrainingLabTrigger.node';
import { onlyNodeType } from '../support/n8n';
import { PACKAGE_NAME } from '../../tooling/root';

/** The subtitle the n8n editor shows under a node on the canvas: its `subtitle` expression, resolved. */
function subtitle(nodeType: INodeType, parameters: INodeParameters): unknown {
	const node: INode = {
		id: 'a1b2c3d4-0000-4000-8000-000000000001',
		name: 'Node',
		type: `${PACKAGE_NAME}.${nodeType.description.name}`,
		typeVersion: 1,
		position: [0, 0],
		parameters,
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: onlyNodeType(nodeType),
	});
	return workflow.expression.getSimpleParameterValue(
		node,
		nodeType.description.subtitle as string,
		'internal',
		{},
	);
}

describe('canvas subtitles show display names, not internal values', () => {
	it('the Training Lab node shows the action of its resource and operation', () => {
		const node = new TrainingLab();
		expect(subtitle(node, { resource: 'session', operation: 'create' })).toBe('Create a session');
		expect(subtitle(node, { resource: 'activityEvent', operation: 'getAll' })).toMatch(
			/^Get many activity events?$/i,
		);
		expect(subtitle(node, { resource: 'organization', operation: 'close' })).toMatch(
			/^Close (an|the) organization$/i,
		);
	});

	it('every operation of every resource has a readable subtitle', () => {
		const node = new TrainingLab();
		const resources = node.description.properties.find((p) => p.name === 'resource')!.options!;
		for (const resource of resources as Array<{ value: string }>) {
			const operations = node.description.properties.find(
				(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource.value),
			)!.options as Array<{ value: string; action: string }>;
			for (const operation of operations)
				expect(subtitle(node, { resource: resource.value, operation: operation.value })).toBe(
					operation.action,
				);
		}
	});

	it('the triggers show their events by name', () => {
		expect(subtitle(new TrainingLabTrigger(), { events: ['member.removed', 'org.closed'] })).toBe(
			'Member Removed, Organization Closed',
		);
		expect(subtitle(new TrainingLabActivityTrigger(), { events: ['*'] })).toBe('All Events');
		expect(
			subtitle(new TrainingLabActivityTrigger(), { events: ['session.created', 'lab.created'] }),
		).toBe('Session Created, Lab Created');
	});
});
