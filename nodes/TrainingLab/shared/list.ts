import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { apiRequestAllItems } from '../../shared/transport';

/** Fetches a list (with the filters in `qs`) honouring the operation's Return All (not offered to AI tools) / Limit parameters. */
export async function getList<T extends IDataObject = IDataObject>(
	this: IExecuteFunctions,
	itemIndex: number,
	path: string,
	qs: IDataObject = {},
): Promise<T[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', itemIndex) as number);
	const listAll = apiRequestAllItems<T>;
	return await listAll.call(this, path, { limit, itemIndex, qs });
}

export function locatorValue(this: IExecuteFunctions, name: string, itemIndex: number): string {
	return this.getNodeParameter(name, itemIndex, undefined, { extractValue: true }) as string;
}
