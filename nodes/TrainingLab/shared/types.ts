import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

export interface ExecutionContext {
	/** The organisation of the credential's key, from `GET /me`, fetched once per execution of the node. */
	orgId(): Promise<string>;
}

/** One operation's behaviour: the API result for one input item (an array becomes several items). */
export type OperationExecute = (
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
) => Promise<IDataObject | IDataObject[]>;
