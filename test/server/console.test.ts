import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONSOLE_CSP } from '../../server/src/http/console';
import { rawRequest } from '../support/raw-http';
import { startTestServer, type TestServer } from '../support/test-server';

// How the server hands out the web console (server/console, built into build/console): static
// files under a strict policy, nothing else. The console itself runs in Chromium in
// test/e2e/console.e2e.ts.

describe('the console, built', () => {
	let server: TestServer;
	let consoleDir: string;
	let origin: string;

	beforeAll(async () => {
		consoleDir = mkdtempSync(join(tmpdir(), 'traininglab-console-'));
		writeFileSync(join(consoleDir, 'index.html'), '<!doctype html><title>console</title>');
		writeFileSync(join(consoleDir, 'main.js'), 'export {};');
		writeFileSync(join(consoleDir, '.hidden'), 'not served');
		mkdirSync(join(consoleDir, 'views'));
		writeFileSync(join(consoleDir, 'views', 'members.js'), 'export {};');
		server = await startTestServer({}, { consoleDir });
		origin = new URL(server.url).origin;
	});

	afterAll(async () => {
		await server.stop();
		rmSync(consoleDir, { recursive: true, force: true });
	});

	it('serves the page and its modules with the policy, no referrer, no framing, revalidated each time', async () => {
		for (const [path, type] of [
			['/console/', /^text\/html/],
			['/console/main.js', /^text\/javascript|^application\/javascript/],
			['/console/views/members.js', /^text\/javascript|^application\/javascript/],
		] as const) {
			const response = await fetch(`${origin}${path}`);
			expect({ path, status: response.status }).toEqual({ path, status: 200 });
			expect(response.headers.get('content-type')).toMatch(type);
			expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
			expect(response.headers.get('referrer-policy')).toBe('no-referrer');
			expect(response.headers.get('x-frame-options')).toBe('DENY');
			expect(response.headers.get('x-content-type-options')).toBe('nosniff');
			expect(response.headers.get('cache-control')).toBe('no-cache');
			expect(response.headers.get('set-cookie')).toBeNull();
		}
	});

	it('allows no inline script or style and nothing from another origin', () => {
		const directives = new Map(
			CONSOLE_CSP.split(';').map((directive) => {
				const [name, ...values] = directive.trim().split(/\s+/);
				return [name, values] as const;
			}),
		);
		expect(directives.get('default-src')).toEqual(["'none'"]);
		for (const name of ['script-src', 'style-src', 'connect-src', 'img-src'])
			expect(directives.get(name)).toEqual(["'self'"]);
		expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
		expect(directives.get('require-trusted-types-for')).toEqual(["'script'"]);
	});

	it('sends / to the console', async () => {
		const response = await fetch(`${origin}/`, { redirect: 'manual' });
		expect(response.status).toBe(302);
		expect(response.headers.get('location')).toBe('/console/');
	});

	it('serves nothing outside its folder, and no dotfile', async () => {
		for (const path of [
			'/console/.hidden',
			'/console/../package.json',
			'/console/%2e%2e/package.json',
		]) {
			const response = await rawRequest(
				server.port,
				`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
			);
			expect({ path, status: response.status }).toEqual({ path, status: 404 });
			expect(response.json.error.code).toBe('not_found');
		}
	});
});

describe('the console, not built', () => {
	it('answers with how to build it', async () => {
		const server = await startTestServer(
			{},
			{ consoleDir: join(tmpdir(), 'no-such-console-build') },
		);
		try {
			const response = await fetch(`${new URL(server.url).origin}/console/`);
			expect(response.status).toBe(404);
			expect((await response.json()).error.message).toContain('npm run build:console');
		} finally {
			await server.stop();
		}
	});
});
