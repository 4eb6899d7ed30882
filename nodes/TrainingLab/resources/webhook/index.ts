import { defineResource } from '../../shared/resource';
import * as create from './create';
import * as deleteWebhook from './delete';
import * as get from './get';
import * as getAll from './getAll';
import * as getDeliveries from './getDeliveries';
import * as getDelivery from './getDelivery';
import * as getHealth from './getHealth';
import * as recoverDeliveries from './recoverDeliveries';
import * as resendDelivery from './resendDelivery';
import * as rotateSecret from './rotateSecret';
import * as sendTest from './sendTest';
import * as update from './update';

export const webhook = defineResource('webhook', 'Webhook', 'getAll', [
	create,
	deleteWebhook,
	get,
	getAll,
	getDeliveries,
	getDelivery,
	getHealth,
	recoverDeliveries,
	resendDelivery,
	rotateSecret,
	sendTest,
	update,
]);
