import { defineResource } from '../../shared/resource';
import * as add from './add';
import * as getAll from './getAll';
import * as remove from './remove';
import * as updateRole from './updateRole';

export const member = defineResource('member', 'Member', 'getAll', [
	add,
	getAll,
	remove,
	updateRole,
]);
