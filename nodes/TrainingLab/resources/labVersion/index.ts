import { defineResource } from '../../shared/resource';
import * as create from './create';
import * as getAll from './getAll';
import * as publish from './publish';

export const labVersion = defineResource('labVersion', 'Lab Version', 'getAll', [
	create,
	getAll,
	publish,
]);
