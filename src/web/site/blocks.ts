/**
 * A page's blocks as HTML: hero, heading, text (a small, safe part of Markdown), image, video,
 * button and course list (the block set of admin/operations/pages.ts, and the older shapes the
 * pages domain keeps). Unknown or malformed blocks are skipped; every value is escaped.
 */
import { html } from 'hono/html';
import type { PublicCourse } from '../../domain/catalog/public-catalogue.ts';
import type { SitePage } from '../../domain/community/pages.ts';
import type { Html } from '../layout.ts';
import { price } from '../shared/school-format.ts';

import type { SiteRequest } from './kit.ts';

type Block = SitePage['blocks'][number];

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** An http(s) address, or undefined (a stored value is checked again before it becomes a link). */
export function httpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

// **bold** and *emphasis* inside one line; everything else is text.
function inline(line: string): Html {
  const parts = line.split(/(\*\*[^*]+\*\*|\*[^*\s][^*]*\*)/g);
  return html`${parts.map((part) => {
    if (/^\*\*[^*]+\*\*$/.test(part)) return html`<strong>${part.slice(2, -2)}</strong>`;
    if (/^\*[^*\s][^*]*\*$/.test(part)) return html`<em>${part.slice(1, -1)}</em>`;
    return part;
  })}`;
}

/**
 * Text as paragraphs: blank lines separate paragraphs, lines starting "- " or "* " make a list,
 * "#" lines are headings (one level below the page's); **bold** and *emphasis* inline.
 */
export function prose(text: string): Html {
  const chunks = text
    .replace(/\r\n?/g, '\n')
    .split(/\n{2,}/)
    .map((chunk) => chunk.trim())
    .filter(Boolean);
  return html`<div class="text">${chunks.map((chunk) => {
    const lines = chunk.split('\n');
    if (lines.every((l) => /^[-*] /.test(l))) {
      return html`<ul>${lines.map((l) => html`<li>${inline(l.slice(2))}</li>`)}</ul>`;
    }
    const heading = /^(#{1,3}) (.+)$/.exec(chunk);
    if (heading && lines.length === 1) {
      return heading[1].length === 1
        ? html`<h2>${heading[2]}</h2>`
        : heading[1].length === 2
          ? html`<h3>${heading[2]}</h3>`
          : html`<h4>${heading[2]}</h4>`;
    }
    return html`<p>${lines.map((l, i) => html`${i > 0 ? html`<br>` : ''}${inline(l)}`)}</p>`;
  })}</div>`;
}

/** A list of published courses as cards. */
export function courseCards(req: SiteRequest, courses: readonly PublicCourse[], heading = 'h3'): Html {
  if (courses.length === 0) return html`<p>No courses yet.</p>`;
  const title = (c: PublicCourse) =>
    heading === 'h2'
      ? html`<h2><a href="${req.base}/courses/${c.slug}">${c.title}</a></h2>`
      : html`<h3><a href="${req.base}/courses/${c.slug}">${c.title}</a></h3>`;
  return html`<ul class="courses">${courses.map(
    (c) => html`<li>${title(c)}
<p class="price">${price(req.site, c.priceAmount, c.currency)}</p>
${c.description ? html`<p>${c.description.length > 200 ? `${c.description.slice(0, 197)}…` : c.description}</p>` : ''}
${c.lecturers.length > 0 ? html`<p class="muted">Taught by ${c.lecturers.join(', ')}</p>` : ''}</li>`,
  )}</ul>`;
}

/** What a page's blocks need beyond themselves: the courses their course lists name. */
interface BlockData {
  readonly courses: (block: Block) => readonly PublicCourse[];
  /** Where an image file of this page is read (only files the page's blocks name are served). */
  readonly imageHref: (fileId: string) => string;
}

/** The ids of the stored files a page's blocks show (hero and image blocks). */
export function blockFileIds(blocks: readonly Block[]): string[] {
  return blocks.flatMap((b) => {
    const id = b.type === 'hero' ? b.image_file_id : b.type === 'image' ? b.file_id : undefined;
    return typeof id === 'string' && /^[a-z]{3}_[0-9a-z]{26}$/.test(id) ? [id] : [];
  });
}

/** One block as HTML, or nothing for a block this site does not show. */
function block(req: SiteRequest, b: Block, data: BlockData): Html | string {
  switch (b.type) {
    case 'hero': {
      const [image] = blockFileIds([b]);
      return html`<section class="hero">
<h2>${str(b.heading)}</h2>
${str(b.text) ? html`<p>${str(b.text)}</p>` : ''}
${image ? html`<img src="${data.imageHref(image)}" alt="">` : ''}
</section>`;
    }
    case 'heading': {
      const text = str(b.text);
      if (!text) return '';
      return b.level === 3
        ? html`<h3>${text}</h3>`
        : b.level === 4
          ? html`<h4>${text}</h4>`
          : html`<h2>${text}</h2>`;
    }
    case 'text':
      return prose(str(b.markdown) || str(b.text));
    case 'image': {
      const [file] = blockFileIds([b]);
      const alt = str(b.alt);
      if (file) return html`<figure><img src="${data.imageHref(file)}" alt="${alt}"></figure>`;
      // Images elsewhere are not loaded into the page (its CSP allows this site only): a link.
      const url = httpUrl(b.url);
      return url
        ? html`<p><a href="${url}" rel="noopener noreferrer">${alt || 'View the image'}</a></p>`
        : '';
    }
    case 'video': {
      const url = httpUrl(b.url);
      return url
        ? html`<p><a href="${url}" rel="noopener noreferrer">Watch: ${str(b.title) || 'the video'}</a></p>`
        : '';
    }
    case 'button': {
      const url = httpUrl(b.url);
      const label = str(b.label);
      return url && label
        ? html`<p><a class="button" href="${url}" rel="noopener noreferrer">${label}</a></p>`
        : '';
    }
    case 'course_list':
      return courseCards(req, data.courses(b));
    default:
      return '';
  }
}

/** A page's blocks in order. */
export function renderBlocks(req: SiteRequest, blocks: readonly Block[], data: BlockData): Html {
  return html`${blocks.map((b) => block(req, b, data))}`;
}
