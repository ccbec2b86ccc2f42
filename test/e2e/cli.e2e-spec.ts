import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { hashAccessToken, IssueTokenWithPasswordCommand, IssueTokenWithPasswordHandler, isWellFormedToken, USER_PASSWORD_CHANGED, userIdFor, userStream } from '#mds/access';
import { SecretBox } from '#mds/platform';
import { accessProjection, findTokenByHash, Projector, PROJECTIONS, waitForProjection } from '#mds/projections';
import { streamsProjection } from '#mds/projections';
import { openTestRuntime, type TestRuntime } from '../support/runtime';
import { ROOT, runCli } from '../support/processes';

describe('mds CLI: users and tokens', () => {
  let rt: TestRuntime;
  let env: Record<string, string>;

  beforeAll(async () => {
    rt = await openTestRuntime({ projections: [accessProjection] });
    env = { DATABASE_URL: rt.db.url, LOG_LEVEL: 'warn', MDS_SECRET_KEY: 'b'.repeat(64), MDS_PASSWORD_HASH_COST: '10' };
  });
  afterAll(async () => {
    await rt?.close();
  });

  it('creates users (password from stdin, optional TOTP), refuses duplicates, unlocks, and prints tokens that work', async () => {
    const created = await runCli(['users', 'create', 'ada', '--role', 'admin', '--role', 'auditor', '--password-stdin'], env, 60_000, 'a long password\n');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^created user ada \(users\/[0-9a-f]{24}\) with roles admin, auditor$/m);
    const again = await runCli(['users', 'create', 'ADA', '--password-stdin'], env, 60_000, 'another password\n');
    expect([again.code, again.stderr.trim()]).toEqual([1, 'mds: user "ADA" already exists']);
    const withTotp = await runCli(['users', 'create', 'grace', '--totp'], { ...env, MDS_USER_PASSWORD: 'grace password' });
    expect(withTotp.stdout).toMatch(/TOTP secret \(shown once\): [A-Z2-7]{32}\notpauth:\/\/totp\//);
    const noPassword = await runCli(['users', 'create', 'nopw'], env);
    expect(noPassword.code).toBe(1);
    expect(noPassword.stderr).toMatch(/--password-stdin or MDS_USER_PASSWORD/);

    const token = await runCli(['tokens', 'create', '--user', 'ada', '--name', 'ops', '--scope', 'GET /metrics'], env);
    expect(token.code).toBe(0);
    const value = token.stdout.trim();
    expect(isWellFormedToken(value)).toBe(true);
    const projector = new Projector(rt.runnerDeps(), rt.projections);
    await projector.start();
    try {
      await waitForProjection(rt.pool, 'access', await rt.store.headPosition());
      const record = await findTokenByHash(rt.pool, hashAccessToken(value));
      expect(record).toMatchObject({ ownerRoles: ['admin', 'auditor'], scopes: [{ method: 'GET', path: '/metrics' }] });
    } finally {
      await projector.stop();
    }
    expect((await runCli(['users', 'unlock', 'ada'], env)).stdout).toMatch(/unlocked ada \(0 failed logins forgotten\)/);
    expect((await runCli(['users', 'unlock', 'nobody'], env)).stderr).toMatch(/no user "nobody"/);
  }, 90_000);

  it('lists users, sets passwords (sealed in the log), deletes users but not the last superuser, and names token owners', async () => {
    const user = (name: string, role: string) => runCli(['users', 'create', name, '--role', role], { ...env, MDS_USER_PASSWORD: 'the first password' });
    expect((await user('root', 'superuser')).code).toBe(0);
    expect((await user('bob', 'staff')).code).toBe(0);
    const bobToken = (await runCli(['tokens', 'create', '--user', 'bob', '--name', 'laptop'], env)).stdout.trim();
    const bob = userIdFor('bob');
    const projector = new Projector(rt.runnerDeps(), rt.projections);
    await projector.start();
    try {
      const table = await runCli(['users', 'list'], env);
      expect([table.code, table.stderr]).toEqual([0, '']);
      const rows = table.stdout.trim().split('\n').map((l) => l.split(/\s{2,}/));
      expect(rows[0]).toEqual(['USERNAME', 'ROLES', 'TOTP', 'LOCKED', 'CREATED']);
      expect(rows.slice(1).map((r) => r.slice(0, 4))).toEqual([
        ['ada', 'admin,auditor', 'off', 'no'],
        ['grace', 'staff', 'on', 'no'],
        ['root', 'superuser', 'off', 'no'],
        ['bob', 'staff', 'off', 'no'],
      ]);
      const json = (await runCli(['users', 'list', '--json'], env)).stdout.trim().split('\n').map((l) => JSON.parse(l));
      expect(json[3]).toEqual({ user_id: bob, username: 'bob', roles: ['staff'], totp: false, failed_logins: 0, locked: false, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });

      const tokens = await runCli(['tokens', 'list'], env);
      expect(tokens.stdout).toMatch(new RegExp(`users/${bob} \\(bob\\)\\s+laptop`));

      // A new password: in the log only as a sealed hash; logins take it, not the old one.
      const set = await runCli(['users', 'set-password', 'bob', '--password-stdin'], env, 60_000, 'the second password\n');
      expect([set.code, set.stdout]).toEqual([0, 'changed the password of bob; logins need the new one from now on\n']);
      const [changed] = (await rt.store.readStream(userStream(bob))).filter((e) => e.type === USER_PASSWORD_CHANGED);
      expect(Object.keys(changed.data as object).sort()).toEqual(['at', 'by', 'password_hash_sealed', 'user_id']);
      expect(JSON.stringify(changed.data)).not.toMatch(/scrypt|second password/);
      const login = (password: string) =>
        new IssueTokenWithPasswordHandler(rt.store, { ...rt.accessDeps, secrets: new SecretBox(Buffer.from('b'.repeat(64), 'hex')) }).execute(new IssueTokenWithPasswordCommand('bob', password, undefined, {}));
      await expect(login('the first password')).rejects.toMatchObject({ status: 401 });
      const loggedIn = await login('the second password');
      expect(loggedIn.access_token.owner_id).toBe(`users/${bob}`);
      const refused = async (args: string[], input?: string) => {
        const r = await runCli(args, { ...env, MDS_USER_PASSWORD: '' }, 60_000, input);
        return [r.code, r.stderr.trim()];
      };
      expect(await refused(['users', 'set-password', 'bob', '--password-stdin'], 'short\n')).toEqual([1, 'mds: password must be 8 to 1024 characters']);
      expect(await refused(['users', 'set-password', 'nobody', '--password-stdin'], 'a long password\n')).toEqual([1, 'mds: no user "nobody"']);
      expect(await refused(['users', 'set-password', 'bob'])).toEqual([1, 'mds: give the password with --password-stdin or MDS_USER_PASSWORD']);

      expect(await refused(['users', 'delete', 'root'])).toEqual([1, 'mds: "root" is the last superuser: create another one first (mds users create <username> --role superuser)']);
      const deleted = await runCli(['users', 'delete', 'bob'], env);
      expect([deleted.code, deleted.stdout]).toEqual([0, `deleted user bob (users/${bob}), 2 token(s) revoked; every API process refuses their tokens from now on\n`]);
      for (const token of [bobToken, loggedIn.access_token.token]) expect(await findTokenByHash(rt.pool, hashAccessToken(token))).toMatchObject({ ownerExists: false, revoked: true });
      expect(await refused(['users', 'delete', 'bob'])).toEqual([1, 'mds: no user "bob"']);
      expect((await runCli(['users', 'list'], env)).stdout).not.toMatch(/^bob /m);
      const all = await runCli(['tokens', 'list', '--all'], env);
      expect(all.stdout).toMatch(new RegExp(`users/${bob} \\(deleted user\\)\\s+laptop.* by cli$`, 'm'));
    } finally {
      await projector.stop();
    }
  }, 120_000);
});

describe('mds CLI', () => {
  let rt: TestRuntime;
  let env: Record<string, string>;

  beforeAll(async () => {
    rt = await openTestRuntime({ projections: [streamsProjection] });
    env = { DATABASE_URL: rt.db.url, LOG_LEVEL: 'warn', MDS_PROJECTION_BATCH_SIZE: '100', MDS_SECRET_KEY: 'a'.repeat(64), MDS_PASSWORD_HASH_COST: '10' };
    for (let i = 0; i < 30; i++) {
      await rt.store.append(`customer-${i % 3}`, Array.from({ length: 50 }, (_, j) => ({ id: randomUUID(), type: j % 2 ? 'CustomerRenamed' : 'CustomerImported', data: { i, j }, metadata: { actor: 'users/1' } })));
    }
  });
  afterAll(async () => {
    await rt?.close();
  });

  it('reads events as JSON lines, from a position, by stream and type, with a limit', async () => {
    const all = await runCli(['events', 'read'], env);
    expect(all.code).toBe(0);
    const lines = all.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1500);
    // Positions as the log gives them (1, 2, 3 … on PostgreSQL; commit positions on EventStoreDB).
    const positions = (await rt.store.readAll({ limit: 2000 })).events.map((e) => e.position);
    expect(lines.map((e) => e.position)).toEqual(positions);
    expect(lines[0]).toMatchObject({ stream: 'customer-0', revision: 0, type: 'CustomerImported', data: { i: 0, j: 0 }, metadata: { actor: 'users/1', schema: 1 } });

    const some = await runCli(['events', 'read', '--from', String(positions[9]), '--type', 'CustomerRenamed', '--limit', '3'], env);
    expect(some.stdout.trim().split('\n').map((l) => JSON.parse(l).position)).toEqual([positions[9], positions[11], positions[13]]);

    const stream = await runCli(['events', 'read', '--stream', 'customer-2', '--limit', '2'], env);
    expect(stream.stdout.trim().split('\n').map((l) => [JSON.parse(l).stream, JSON.parse(l).revision])).toEqual([['customer-2', 0], ['customer-2', 1]]);

    const bad = await runCli(['events', 'read', '--limit', 'many'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/whole number/);
  }, 60_000);

  it('lists projections with checkpoint and lag, and rebuilds one blue/green with progress', async () => {
    const statuses = (out: string) => out.trim().split('\n').map((l) => JSON.parse(l));
    const before = await runCli(['projections', 'list', '--json'], env);
    expect(statuses(before.stdout).map((s) => s.name)).toEqual(PROJECTIONS.map((p) => p.name));
    // Lag in events on PostgreSQL (positions are dense there), a distance in bytes on EventStoreDB.
    const head = await rt.store.headPosition();
    // In the API's snake_case, with null for what is not there yet.
    expect(statuses(before.stdout)[0]).toEqual({ name: 'streams', version: 1, generation: null, live_version: null, checkpoint: 0, lag: head, building: null });

    const projector = new Projector(rt.runnerDeps(), rt.projections);
    await projector.start();
    await waitForProjection(rt.pool, 'streams', head);
    await projector.stop();

    const table = await runCli(['projections', 'list'], env);
    expect(table.stdout).toMatch(/^NAME\s+VERSION\s+GENERATION\s+CHECKPOINT\s+LAG/m);
    expect(table.stdout).toMatch(new RegExp(`^streams\\s+1\\s+1\\s+${head}\\s+0`, 'm'));

    const rebuild = await runCli(['projections', 'rebuild', 'streams'], env);
    expect(rebuild.code).toBe(0);
    expect(rebuild.stderr).toMatch(new RegExp(`streams g2 \\[#+\\] 100\\.0%\\s+position ${head}/${head}\\s+\\d+ events/s\\s+ETA`));
    expect(rebuild.stdout).toMatch(/rebuilt streams: generation 2 is live \(generation 1 retired\); 1500 events in [\d.]+ s \(\d+ events\/s\)/);

    const after = await runCli(['projections', 'list', '--json'], env);
    expect(statuses(after.stdout)[0]).toEqual({ name: 'streams', version: 1, generation: 2, live_version: 1, checkpoint: head, lag: 0, building: null });
    const rows = (await rt.pool.query('SELECT stream, event_count FROM streams ORDER BY stream')).rows;
    expect(rows).toEqual([
      { stream: 'customer-0', event_count: 500 },
      { stream: 'customer-1', event_count: 500 },
      { stream: 'customer-2', event_count: 500 },
    ]);

    const unknown = await runCli(['projections', 'rebuild', 'nope'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown projection "nope"; known: streams, access, shops/);
  }, 90_000);
});

describe('mds without the service', () => {
  /** The modules a fresh Node process has loaded after `script`, and what the script put in `out`. */
  function loadedBy(script: string): { modules: string[]; out: string } {
    const whole = `let out = ''; ${script}; process.stdout.write(JSON.stringify({ modules: Object.keys(require.cache), out }));`;
    return JSON.parse(execFileSync(process.execPath, ['-e', whole], { cwd: ROOT, encoding: 'utf8' })) as { modules: string[]; out: string };
  }
  /** The modules `mds <args>` loaded (the compiled CLI, as bin/mds.js runs it), and what it printed. */
  const loaded = (args: string[]) =>
    loadedBy(`
      const { buildCli } = require(${JSON.stringify(path.join(ROOT, 'dist/apps/cli/src/main.js'))});
      const program = buildCli();
      const quiet = (c) => { c.exitOverride().configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (out += s) }); c.commands.forEach(quiet); };
      quiet(program);
      try { program.parse(${JSON.stringify(['node', 'mds', ...args])}); } catch {}`);
  const service = (modules: string[]) => modules.filter((m) => /node_modules\/(@nestjs|pg|fastify|@eventstore|pino)\/|dist\/(libs|projections)\/|dist\/apps\/(api|outlet-worker)\//.test(m));

  it.each([[['--help']], [['users', '--help']], [['users', 'delete', '--help']], [['events', 'read', '--limit', 'many']], [['nope']]])('answers mds %j without loading the service (Nest, pg, the runtime, projections)', (args) => {
    const { modules, out } = loaded(args);
    expect(out).not.toBe('');
    expect(service(modules)).toEqual([]);
  });

  it('loads, for a command, no EventStoreDB client, webhook client, pretty printer or Ajv it does not use', () => {
    // What every command on the service loads (Nest, the runtime, the contexts, the projections); each
    // of these took 0.05-0.2 s of CPU at every `mds` start while its log was on PostgreSQL.
    const { modules } = loadedBy(`require(${JSON.stringify(path.join(ROOT, 'dist/apps/cli/src/cli-context.js'))})`);
    expect(modules.some((m) => m.includes('node_modules/@nestjs/cqrs/'))).toBe(true);
    expect(modules.filter((m) => /node_modules\/(@eventstore|@grpc|undici|pino-pretty|ajv)\//.test(m))).toEqual([]);
  });
});
