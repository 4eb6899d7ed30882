import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateWorkflow } from '@n8n/workflow-sdk';
import {
	NodeHelpers,
	type INodeParameters,
	type INodeType,
	type INodeTypeDescription,
	type INode,
} from 'n8n-workflow';
import { TrainingLab } from '../../nodes/TrainingLab/TrainingLab.node';
import { TrainingLabActivityTrigger } from '../../nodes/TrainingLabActivityTrigger/TrainingLabActivityTrigger.node';
import { TrainingLabTrigger } from '../../nodes/TrainingLabTrigger/TrainingLabTrigger.node';
import { ROOT } from '../../tooling/root';

// The workflows in examples/ are what a person imports first: each must be sound as n8n's own
// workflow validation judges it, and use our nodes only as their descriptions allow. (The e2e suite
// runs each of them in a real n8n.)
const OUR_NODES: Record<string, INodeType> = {
	'n8n-nodes-traininglab.trainingLab': new TrainingLab(),
	'n8n-nodes-traininglab.trainingLabTrigger': new TrainingLabTrigger(),
	'n8n-nodes-traininglab.trainingLabActivityTrigger': new TrainingLabActivityTrigger(),
};

/** Our node a workflow node is: n8n names the AI-tool variant of a node `<type>Tool`. */
const ourNode = (type: string): INodeType | undefined =>
	OUR_NODES[type] ?? OUR_NODES[type.replace(/Tool$/, '')];

const EXAMPLES = readdirSync(join(ROOT, 'examples')).filter((name) => name.endsWith('.json'));
const workflowOf = (name: string) =>
	JSON.parse(readFileSync(join(ROOT, 'examples', name), 'utf8')) as {
		name: string;
		nodes: INode[];
		connections: object;
	};

/** The parameters of `node` its description does not declare, or does not show as it is set. */
function undeclaredParameters(node: INode, description: INodeTypeDescription): string[] {
	const resolved = NodeHelpers.getNodeParameters(
		description.properties,
		node.parameters,
		true,
		false,
		node,
		description,
	) as INodeParameters;
	return Object.keys(node.parameters).filter((name) => !(name in resolved));
}

describe.each(EXAMPLES)('examples/%s', (file) => {
	const workflow = workflowOf(file);

	it("passes n8n's workflow validation without an error or a warning", () => {
		const result = validateWorkflow(workflow as never, { strictMode: true });
		expect([...result.errors, ...result.warnings].map((issue) => issue.message)).toEqual([]);
	});

	it('uses our nodes as their descriptions declare: versions, parameters, options', () => {
		const ours = workflow.nodes.filter((node) => ourNode(node.type));
		expect(ours.length).toBeGreaterThan(0);
		for (const node of ours) {
			const { description } = ourNode(node.type)!;
			const versions = [description.version].flat();
			expect({ node: node.name, supported: versions.includes(node.typeVersion) }).toEqual({
				node: node.name,
				supported: true,
			});
			expect({ node: node.name, undeclared: undeclaredParameters(node, description) }).toEqual({
				node: node.name,
				undeclared: [],
			});
			const events = description.properties.find((property) => property.name === 'events');
			const known = (events?.options ?? []).map((option) => (option as { value: string }).value);
			for (const event of (node.parameters.events as string[] | undefined) ?? [])
				expect({ node: node.name, event, known: known.includes(event) }).toMatchObject({
					known: true,
				});
			expect(node.credentials?.trainingLabApi?.id).toBe('YOUR_CREDENTIAL_ID');
		}
	});
});

it('the check refuses a parameter a node does not declare', () => {
	const [trigger] = workflowOf('react-to-member-removal.json').nodes;
	const wrong = { ...trigger, parameters: { ...trigger.parameters, eventz: ['member.removed'] } };
	expect(undeclaredParameters(wrong, new TrainingLabTrigger().description)).toEqual(['eventz']);
});
