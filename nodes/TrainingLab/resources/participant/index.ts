import { defineResource } from '../../shared/resource';
import * as join from './join';

export const participant = defineResource('participant', 'Participant', 'join', [join]);
