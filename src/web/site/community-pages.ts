/**
 * The school's upcoming public events, its published posts and pages, and the images the site
 * shows (its logo, a published page's pictures). Members-only events, drafts and another
 * school's things are the same 404 as an address that never existed.
 */
import { html } from 'hono/html';
import { upcomingPublicEvents } from '../../domain/catalog/public-catalogue.ts';
import { publicPage, publishedPost, publishedPosts } from '../../domain/catalog/public-site-content.ts';
import { configuredFileStore } from '../../domain/school/file-store.ts';
import { openStoredFile } from '../../domain/school/storage.ts';
import type { AppContext } from '../../http/context.ts';
import { fileResponse } from '../../http/file-response.ts';
import { dateTimeRange, longDay } from '../shared/school-format.ts';
import { blockFileIds, prose } from './blocks.ts';
import type { SiteContext } from './context.ts';
import { pageBody } from './course-pages.ts';
import { found, notFound, sendSitePage } from './kit.ts';

/** `GET …/events`: upcoming public events in the school's time zone. */
export async function showEvents(ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const { events } = await upcomingPublicEvents(ctx.db, req.site.id, { limit: 100 });
  const body = html`<h1>Upcoming events</h1>
${
  events.length === 0
    ? html`<p>No upcoming events.</p>`
    : html`<ul class="items">${events.map(
        (e) => html`<li><h2>${e.title}</h2>
<p><time datetime="${e.startsAt}">${dateTimeRange(req.site, e.startsAt, e.endsAt)}</time></p>
<p>${e.online ? 'Online' : (e.location ?? '')}${e.spotsLeft !== null ? html` · ${e.spotsLeft === 0 ? 'Fully booked' : `${e.spotsLeft} of ${e.capacity} places left`}` : ''}</p>
${e.description ? prose(e.description) : ''}</li>`,
      )}</ul>`
}`;
  return sendSitePage(c, req, 200, 'Events', body, { current: 'events' });
}

/** `GET …/posts`: published posts, newest first. */
export async function showPosts(ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const { posts } = await publishedPosts(ctx.db, req.site.id, { limit: 100 });
  const body = html`<h1>Posts</h1>
${
  posts.length === 0
    ? html`<p>No posts yet.</p>`
    : html`<ul class="items">${[...posts].reverse().map(
        (p) => html`<li><h2><a href="${req.base}/posts/${p.slug}">${p.title}</a></h2>
${p.publishedAt ? html`<p class="muted"><time datetime="${p.publishedAt}">${longDay(req.site, p.publishedAt)}</time></p>` : ''}</li>`,
      )}</ul>`
}`;
  return sendSitePage(c, req, 200, 'Posts', body, { current: 'posts' });
}

/** `GET …/posts/:slug`: a published post. */
export async function showPost(ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const post = await found(publishedPost(ctx.db, req.site.id, c.req.param('slug') ?? ''));
  if (!post) throw notFound('This post does not exist or is not published.');
  const body = html`<p><a href="${req.base}/posts">← All posts</a></p>
<h1>${post.title}</h1>
${post.publishedAt ? html`<p class="muted"><time datetime="${post.publishedAt}">${longDay(req.site, post.publishedAt)}</time></p>` : ''}
${prose(post.body)}`;
  return sendSitePage(c, req, 200, post.title, body, { current: 'posts' });
}

/** `GET …/pages/:slug`: a published page's blocks. */
export async function showPage(ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const page = await found(publicPage(ctx.db, req.site.id, c.req.param('slug') ?? ''));
  if (!page) throw notFound('This page does not exist or is not published.');
  return sendSitePage(c, req, 200, page.title, html`<h1>${page.title}</h1>${await pageBody(ctx, req, page)}`);
}

/** A raster image of the school's files; SVG (which can carry script) and other files are a 404. */
async function sendImage(ctx: AppContext, c: SiteContext, fileId: string | null): Promise<Response> {
  const schoolId = c.get('site').site.id;
  const file = fileId
    ? await found(openStoredFile(ctx.db, configuredFileStore(ctx.config), schoolId, fileId))
    : undefined;
  if (!file?.file.contentType.startsWith('image/') || file.file.contentType.includes('svg')) {
    throw notFound('There is no image here.');
  }
  return fileResponse(c, file.content, {
    'Content-Type': file.file.contentType,
    'Cache-Control': 'public, max-age=300',
    'Content-Security-Policy': "default-src 'none'",
  });
}

/** `GET …/logo`: the school's logo. */
export function showLogo(ctx: AppContext, c: SiteContext): Promise<Response> {
  return sendImage(ctx, c, c.get('site').site.appearance.logoFileId);
}

/** `GET …/pages/:slug/images/:fileId`: an image a published page's blocks show. */
export async function showPageImage(ctx: AppContext, c: SiteContext): Promise<Response> {
  const page = await found(publicPage(ctx.db, c.get('site').site.id, c.req.param('slug') ?? ''));
  const fileId = c.req.param('fileId') ?? '';
  return sendImage(ctx, c, page && blockFileIds(page.blocks).includes(fileId) ? fileId : null);
}
