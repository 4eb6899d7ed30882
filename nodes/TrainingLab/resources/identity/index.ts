import { defineResource } from '../../shared/resource';
import * as get from './get';

export const identity = defineResource('identity', 'Identity', 'get', [get]);
