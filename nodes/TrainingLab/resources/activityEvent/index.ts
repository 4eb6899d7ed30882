import { defineResource } from '../../shared/resource';
import * as getAll from './getAll';

export const activityEvent = defineResource('activityEvent', 'Activity Event', 'getAll', [getAll]);
