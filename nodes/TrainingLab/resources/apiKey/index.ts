import { defineResource } from '../../shared/resource';
import * as create from './create';
import * as getAll from './getAll';
import * as revoke from './revoke';

export const apiKey = defineResource('apiKey', 'API Key', 'getAll', [create, getAll, revoke]);
