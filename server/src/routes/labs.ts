import { defineListRoute, defineRoute } from '../http/route.ts';
import { listQuery } from '../schemas/common.ts';
import { Lab, LabCreate, LabParams, LabVersion, LabVersionParams } from '../schemas/labs.ts';

export const labRoutes = [
	defineListRoute({
		path: '/labs',
		operationId: 'listLabs',
		tag: 'Labs',
		summary: 'List labs',
		access: 'member',
		query: listQuery(100),
		success: { description: 'A page of labs.', schema: Lab },
		handle: ({ services, caller, page }) => services.labs.list(caller.org.id, page),
	}),
	defineRoute({
		method: 'post',
		path: '/labs',
		operationId: 'createLab',
		tag: 'Labs',
		summary: 'Create a lab',
		description: 'Emits `lab.created`.',
		access: 'admin',
		body: LabCreate,
		success: { status: 201, description: 'The new lab.', schema: Lab },
		errors: ['name_taken'],
		handle: ({ services, actor, body }) => services.labs.create(actor, body),
	}),
	defineListRoute({
		path: '/labs/{labId}/versions',
		operationId: 'listLabVersions',
		tag: 'Labs',
		summary: 'List the versions of a lab',
		access: 'member',
		params: LabParams,
		query: listQuery(100),
		success: { description: 'A page of versions, oldest first.', schema: LabVersion },
		handle: ({ services, caller, params, page }) =>
			services.labs.listVersions(caller.org.id, params.labId, page),
	}),
	defineRoute({
		method: 'post',
		path: '/labs/{labId}/versions',
		operationId: 'createLabVersion',
		tag: 'Labs',
		summary: 'Create a draft version',
		description:
			'The new draft is numbered one above the latest version. No body. Emits `lab_version.created`.',
		access: 'admin',
		params: LabParams,
		success: { status: 201, description: 'The new draft version.', schema: LabVersion },
		handle: ({ services, actor, params }) => services.labs.createVersion(actor, params.labId),
	}),
	defineRoute({
		method: 'post',
		path: '/labs/{labId}/versions/{versionId}/publish',
		operationId: 'publishLabVersion',
		tag: 'Labs',
		summary: 'Publish a draft version',
		description:
			'Sessions can only be created from published versions. Emits `lab_version.published`.',
		access: 'admin',
		params: LabVersionParams,
		success: { status: 200, description: 'The published version.', schema: LabVersion },
		errors: ['invalid_state'],
		handle: ({ services, actor, params }) =>
			services.labs.publish(actor, params.labId, params.versionId),
	}),
];
