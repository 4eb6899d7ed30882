import { defineResource } from '../../shared/resource';
import * as create from './create';
import * as deleteWebhook from './delete';
import * as get from './get';
import * as getAll from './getAll';
import * as getDeliveries from './getDeliveries';

export const webhook = defineResource('webhook', 'Webhook', 'getAll', [
	create,
	deleteWebhook,
	get,
	getAll,
	getDeliveries,
]);
