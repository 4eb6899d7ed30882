import { defineResource } from '../../shared/resource';
import * as create from './create';
import * as deleteSession from './delete';
import * as end from './end';
import * as get from './get';
import * as getAll from './getAll';
import * as rotateJoinCode from './rotateJoinCode';
import * as start from './start';

export const session = defineResource('session', 'Session', 'create', [
	create,
	deleteSession,
	end,
	get,
	getAll,
	rotateJoinCode,
	start,
]);
