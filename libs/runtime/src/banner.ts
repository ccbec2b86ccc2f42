import { USER_CREATED } from '#mds/access';
import type { Runtime } from './runtime';

/**
 * What `npm start` prints on a terminal once it listens: where the API and its docs are, where the
 * data lives, and how to get the first token — or, when there is no user yet and no MDS_ADMIN_* was
 * given, the exact command that creates one.
 */
export async function banner(runtime: Runtime, port: number): Promise<string> {
  const { config } = runtime;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const base = `http://${host}:${port}`;
  const database = runtime.embedded
    ? `${config.dataDir} (embedded PostgreSQL; remove the directory to start afresh)`
    : `PostgreSQL at ${(() => {
        const url = new URL(runtime.databaseUrl);
        return `${url.hostname}:${url.port || 5432}${url.pathname}`;
      })()} (DATABASE_URL)`;
  const log = runtime.store.kind === 'esdb' ? `EventStoreDB (EVENTSTORE_URL)` : 'PostgreSQL, the same database';
  const users = (await runtime.store.readAll({ filter: { types: [USER_CREATED] }, limit: 1 })).events.length > 0;
  const lines = [
    '',
    `  Marketing Data Service is running`,
    '',
    `  API        ${base}`,
    `  API docs   ${base}/api/docs/`,
    `  Health     ${base}/health`,
    `  Data       ${database}`,
    `  Event log  ${log}`,
    '',
  ];
  if (users) {
    const who = config.admin?.username ?? '<username>';
    lines.push(`  A token:   curl -X POST -u ${who}:'<password>' ${base}/api/access-tokens/`);
  } else {
    lines.push(
      '  No user exists yet. Stop the service (Ctrl-C) and start it with a first admin:',
      `    MDS_ADMIN_USERNAME=admin MDS_ADMIN_PASSWORD='a long password' npm start`,
      '  or, beside the running service (it uses the same data):',
      `    npx mds users create admin --role admin --role superuser --password-stdin`,
      `  then get a token:  curl -X POST -u admin:'a long password' ${base}/api/access-tokens/`,
    );
  }
  lines.push('', '  Ctrl-C stops it. Logs follow (LOG_FORMAT=json for JSON lines).', '', '');
  return lines.join('\n');
}
