import { defineResource } from '../../shared/resource';
import * as create from './create';
import * as getAll from './getAll';

export const lab = defineResource('lab', 'Lab', 'getAll', [create, getAll]);
