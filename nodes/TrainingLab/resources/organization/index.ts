import { defineResource } from '../../shared/resource';
import * as close from './close';

export const organization = defineResource('organization', 'Organization', 'close', [close]);
