import pg from 'pg';

/**
 * The large store on PostgreSQL: the same fillers account-scenarios.ts writes into SQLite (other
 * members, their enrollments, 1000 grants and `tokens` access tokens), generated server-side with
 * generate_series because a million round trips would take minutes. Bench only.
 */
export async function fillBigPostgres(
  databaseUrl: string,
  fill: { clientId: string; scopes: string; resource: string; now: string; expires: string },
  tokens: number,
  enrollments: number,
): Promise<void> {
  const url = new URL(databaseUrl);
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const school = (await client.query("select id from schools where subdomain = 'demo'")).rows[0]
      .id as string;
    const courses = (await client.query('select id from courses where school_id = $1 order by id', [school]))
      .rows.length;
    const members = Math.ceil(enrollments / courses);
    const { clientId, scopes, resource, now, expires } = fill;
    await client.query('begin');
    await client.query(
      `insert into users (id, email, name, password_hash, created_at, updated_at)
       select 'usr_bench' || i, 'bench-' || i || '@example.com', 'Bench ' || i, null, $1, $1
       from generate_series(0, $2 - 1) i`,
      [now, members],
    );
    await client.query(
      `insert into memberships (id, school_id, user_id, roles, status, created_at, updated_at)
       select 'mem_bench' || i, $1, 'usr_bench' || i, '["student"]', 'active', $2, $2
       from generate_series(0, $3 - 1) i`,
      [school, now, members],
    );
    await client.query(
      `insert into enrollments (id, school_id, user_id, course_id, enrolled_at, expires_at, progress_percent, source, created_at, updated_at)
       select 'enr_bench' || u.i || '_' || c.n, $1, 'usr_bench' || u.i, c.id, $2, null, 0, 'import', $2, $2
       from generate_series(0, $3 - 1) u(i)
       cross join (select id, row_number() over (order by id) n from courses where school_id = $1) c
       limit $4`,
      [school, now, members, enrollments],
    );
    await client.query(
      `insert into oauth_grants (id, client_id, user_id, school_id, audience, scopes, resource, auth_time, created_at)
       select 'grt_bench' || i, $1, 'usr_bench' || (i % $2), $3, 'member', $4, $5, $6, $6
       from generate_series(0, 999) i`,
      [clientId, members, school, scopes, resource, now],
    );
    await client.query(
      `insert into oauth_tokens (token_hash, kind, grant_id, client_id, user_id, school_id, scopes, resource, expires_at, created_at)
       select md5('bench-a' || i) || md5('bench-b' || i), 'access', 'grt_bench' || (i % 1000), $1,
              'usr_bench' || ((i % 1000) % $2), $3, $4, $5, $6, $7
       from generate_series(0, $8 - 1) i`,
      [clientId, members, school, scopes, resource, expires, now, tokens],
    );
    await client.query('commit');
    await client.query('analyze');
  } finally {
    await client.end();
  }
}
