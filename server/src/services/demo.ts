import type { Actor } from '../core/actor.ts';
import type { Services } from './index.ts';

/** Demo content of `bootstrap --demo`: two labs, each with version 1 published and version 2 draft, and two trainers. */
export function seedDemo(services: Services, actor: Actor, emailDomain: string): void {
	for (const input of [
		{ name: 'Kubernetes Basics', tier: 'cluster' as const },
		{ name: 'Linux Fundamentals', tier: 'vm' as const },
	]) {
		const lab = services.labs.create(actor, input);
		const first = services.labs.createVersion(actor, lab.id);
		services.labs.publish(actor, lab.id, first.id);
		services.labs.createVersion(actor, lab.id);
	}
	services.members.add(actor, {
		email: `trainer1@${emailDomain}`,
		name: 'Trainer One',
		role: 'trainer',
	});
	services.members.add(actor, {
		email: `trainer2@${emailDomain}`,
		name: 'Trainer Two',
		role: 'trainer',
	});
}
