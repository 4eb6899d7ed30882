import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../server/src/db/migrations.ts';
import { ApiClient } from './support/api-client.ts';
import { npmRun, spawnServer } from './support/processes.ts';

let dir: string;
let env: Record<string, string>;
let key: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'traininglab-process-'));
  env = { DATABASE_PATH: join(dir, 'traininglab.sqlite') };
  key = JSON.parse(npmRun('bootstrap', ['--org', 'Process Org', '--email', 'p@process.test', '--name', 'P', '--demo'], env).stdout.trim().split('\n').at(-1)!).api_key;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the server process', () => {
  it('prints where it listens, serves /healthz, and keeps its data across a restart', async () => {
    const first = await spawnServer(env);
    expect(first.output()).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\/api\/v1$/m);
    expect(await (await fetch(first.url.replace('/api/v1', '/healthz'))).json()).toEqual({ status: 'ok' });
    const client = new ApiClient(first.url, key);
    const version = (await client.get(`/labs/${(await client.get('/labs')).body[0].id}/versions`)).body[0];
    const session = (await client.post('/sessions', { title: 'Survives', lab_version_id: version.id, capacity: 4 })).body;
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = await spawnServer(env);
    try {
      const again = new ApiClient(second.url, key);
      expect((await again.get(`/sessions/${session.id}`)).body).toMatchObject({ id: session.id, title: 'Survives' });
      const db = new Database(env.DATABASE_PATH, { readonly: true });
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)!.version);
      db.close();
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    }
  });

  it('on SIGTERM finishes the request in flight, then exits 0', async () => {
    const server = await spawnServer(env);
    const url = new URL(`${server.url}/sessions`);
    const client = new ApiClient(server.url, key);
    const version = (await client.get(`/labs/${(await client.get('/labs')).body[0].id}/versions`)).body[0];
    const body = JSON.stringify({ title: 'In flight', lab_version_id: version.id, capacity: 2 });

    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on('error', reject);
      req.write(body.slice(0, 10)); // the request is in flight: headers sent, body incomplete
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 200);
    });
    const finished = await response;
    expect(finished.status).toBe(201);
    expect(JSON.parse(finished.body).title).toBe('In flight');
    expect(await server.exited).toBe(0);
    expect(server.output()).toMatch(/SIGTERM received/);
  });

  it('refuses to start with an invalid configuration, naming the variable', async () => {
    await expect(spawnServer({ ...env, RATE_LIMIT_REQUESTS: 'many' })).rejects.toThrow(/RATE_LIMIT_REQUESTS/);
  });

  it('refuses a database written by a newer schema version instead of corrupting it', async () => {
    const newer = join(dir, 'newer.sqlite');
    const db = new Database(newer);
    db.pragma('user_version = 99');
    db.close();
    await expect(spawnServer({ ...env, DATABASE_PATH: newer })).rejects.toThrow(/schema version 99 is newer/);
  });
});
