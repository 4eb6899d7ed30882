import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../tooling/root.ts';
import { PackageDirectoryLoader } from 'n8n-core';

let work: string;
let unpacked: string;
let files: string[];

// Built, staged and packed as `npm run package` does; the release publishes that same folder.
beforeAll(() => {
	work = mkdtempSync(join(tmpdir(), 'traininglab-pack-'));
	const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
	if (build.status !== 0) throw new Error(`npm run build failed: ${build.stdout}${build.stderr}`);
	const pack = spawnSync(
		'npm',
		['pack', './build/npm-package', '--json', '--pack-destination', work],
		{ cwd: ROOT, encoding: 'utf8' },
	);
	if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
	const [result] = JSON.parse(pack.stdout);
	files = result.files.map((file: { path: string }) => file.path);
	unpacked = join(work, 'package');
	mkdirSync(unpacked);
	spawnSync('tar', ['-xzf', join(work, result.filename), '-C', unpacked, '--strip-components=1']);
	// n8n provides n8n-workflow to community packages (their peer dependency).
	mkdirSync(join(unpacked, 'node_modules'));
	symlinkSync(
		join(ROOT, 'node_modules', 'n8n-workflow'),
		join(unpacked, 'node_modules', 'n8n-workflow'),
	);
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the published package', () => {
	it('holds only the built nodes, credentials, icons, README and LICENSE', () => {
		const unexpected = files.filter(
			(path) =>
				!/^(README\.md|LICENSE|package\.json)$/.test(path) &&
				!/^dist\/(nodes|credentials)\/.+\.(js|json|svg)$/.test(path) &&
				!/^dist\/icons\/.+\.svg$/.test(path),
		);
		expect(unexpected).toEqual([]);
		expect(files).toEqual(
			expect.arrayContaining([
				'README.md',
				'LICENSE',
				'dist/credentials/TrainingLabApi.credentials.js',
				'dist/nodes/TrainingLab/TrainingLab.node.js',
				'dist/nodes/TrainingLab/TrainingLab.node.json',
				'dist/nodes/TrainingLabActivityTrigger/TrainingLabActivityTrigger.node.js',
				'dist/nodes/TrainingLabActivityTrigger/TrainingLabActivityTrigger.node.json',
				'dist/icons/trainingLab.svg',
				'dist/icons/trainingLab.dark.svg',
			]),
		);
		expect(
			files.some(
				(path) =>
					path.startsWith('server/') ||
					path.startsWith('test/') ||
					path.endsWith('.ts') ||
					path.endsWith('.map'),
			),
		).toBe(false);
	});

	it("ships a package.json with only what an installed package needs, not the repository's development setup", () => {
		const manifest = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8'));
		const repository = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
		for (const field of ['scripts', 'workspaces', 'devDependencies', 'allowScripts'])
			expect(manifest).not.toHaveProperty(field);
		for (const field of ['name', 'version', 'description', 'repository', 'bugs', 'homepage', 'n8n'])
			expect(manifest[field]).toEqual(repository[field]);
		expect(manifest.description).not.toMatch(/server|implementation/i);
	});

	it("README is the n8n user's page: the nodes first, the API server named as this repository's, contributors sent to CONTRIBUTING.md", () => {
		const readme = readFileSync(join(unpacked, 'README.md'), 'utf8');
		const intro = readme.slice(0, readme.indexOf('\n## '));
		expect(intro).toMatch(/n8n community nodes for the \*\*Training Lab API\*\*/);
		expect(intro).toMatch(/not\s+part\s+of\s+the\s+npm\s+package/);
		// The n8n user's page, in the order of n8n's starter template, ending with the commands that
		// run the product and its tests from a clone; contributors have their own.
		const sections = [...readme.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
		expect(sections).toEqual([
			'Installation',
			'Operations',
			'Credentials',
			'Compatibility',
			'Usage',
			'Resources',
			'Version history',
			'License',
			'Run it from a clone',
		]);
		expect(intro).toMatch(/\[CONTRIBUTING\.md\]\(CONTRIBUTING\.md\)/);
	});

	it('README fits the npm page, and each of its links to the repository leads to a file there', () => {
		const readme = readFileSync(join(unpacked, 'README.md'), 'utf8');
		expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(420); // lines, as wc -l counts them
		const local = [...readme.matchAll(/\]\(((?:docs|examples)\/[^)#]+|[A-Z]+\.md)(?:#[^)]*)?\)/g)];
		expect(local.length).toBeGreaterThan(5);
		for (const [, path] of local)
			expect({ path, exists: existsSync(join(ROOT, path)) }).toEqual({ path, exists: true });
	});

	it('declares no runtime dependencies and n8n-workflow as its only peer dependency', () => {
		const manifest = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8'));
		expect(manifest.dependencies ?? {}).toEqual({});
		expect(manifest.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		expect(manifest).toMatchObject({
			name: 'n8n-nodes-traininglab',
			license: 'MIT',
			n8n: { n8nNodesApiVersion: 1 },
		});
		expect(manifest.keywords).toContain('n8n-community-node-package');
		for (const path of [...manifest.n8n.nodes, ...manifest.n8n.credentials])
			expect(existsSync(join(unpacked, path))).toBe(true);
	});

	it("is loaded by n8n's own package loader with its node, credential and icons", async () => {
		const loader = new PackageDirectoryLoader(unpacked);
		await loader.loadAll();
		const node = loader.getNode('trainingLab').type.description;
		expect(node).toMatchObject({
			displayName: 'Training Lab',
			usableAsTool: true,
			credentials: [{ name: 'trainingLabApi', required: true }],
		});
		expect(loader.getCredential('trainingLabApi').type.displayName).toBe('Training Lab API');
		expect(Object.keys(loader.nodeTypes).sort()).toEqual([
			'trainingLab',
			'trainingLabActivityTrigger',
			'trainingLabTrigger',
		]);
		expect(loader.getNode('trainingLabActivityTrigger').type.description).toMatchObject({
			displayName: 'Training Lab Activity Trigger',
			polling: true,
			credentials: [{ name: 'trainingLabApi', required: true }],
		});
		// n8n's node creator merges "Training Lab Trigger" into the "Training Lab" entry and shows the
		// trigger's description for both: it must describe the actions too, not only the trigger.
		expect(loader.getNode('trainingLabTrigger').type.description.description).toMatch(
			/^Manage .*members, sessions.*start workflows/,
		);
		const icons = [node.iconUrl, loader.getCredential('trainingLabApi').type.iconUrl].flatMap(
			(icon) => (typeof icon === 'object' ? [icon.light, icon.dark] : [icon]),
		);
		for (const icon of icons)
			expect(
				existsSync(join(unpacked, String(icon).replace(/^icons\/n8n-nodes-traininglab\//, ''))),
			).toBe(true);
	});
});
