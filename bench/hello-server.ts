/** The baseline: a bare Hono hello-world on the same runtime and server adapter as Lectern. */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.get('/', (c) => c.text('Hello, World!'));
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(process.argv[2] ?? 0) }, (info) => {
  console.log(`listening ${info.port}`);
});
