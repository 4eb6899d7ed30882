import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configurationDefaults, VARIABLE_MEANINGS } from '../../server/src/config.ts';
import { ROOT } from '../../tooling/root.ts';

// docs/server.md is where an operator reads what each variable does by default: it must say what
// the code does.
describe('the configuration table of docs/server.md', () => {
	const rows = new Map(
		[
			...readFileSync(join(ROOT, 'docs', 'server.md'), 'utf8').matchAll(
				/^\| `(\w+)` \| ([^|]+) \|/gm,
			),
		].map(([, name, value]) => [name, value.trim()]),
	);

	it('lists every variable the server reads, and no other', () => {
		expect([...rows.keys()].sort()).toEqual(Object.keys(VARIABLE_MEANINGS).sort());
	});

	it("gives each one's default as the code has it", () => {
		const defaults = configurationDefaults();
		for (const [name, value] of Object.entries(defaults)) {
			if (value === undefined) continue; // no default (PUBLIC_URL): the table says what applies
			const shown = Array.isArray(value) ? value.join(',') : String(value);
			expect({ name, documented: rows.get(name) }).toEqual({ name, documented: `\`${shown}\`` });
		}
	});
});
