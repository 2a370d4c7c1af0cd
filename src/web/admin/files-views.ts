/** Files: the school's stored files and the upload form. */
import { html } from 'hono/html';
import type { Html } from '../layout.ts';
import { confirmForm, csrfField, notice } from '../shared/page-kit.ts';
import { fileSize, timeOf } from '../shared/school-format.ts';
import { type Area, areaNav, areaPath } from './area.ts';

/** A file as the storage operations return it. */
export interface ApiFile {
  readonly id: string;
  readonly filename: string;
  readonly content_type: string;
  readonly size_bytes: number;
  readonly created_at: string;
}

/** The stored media types in words (the storage allowlist's types; others read "File"). */
const TYPE_WORDS: Readonly<Record<string, string>> = {
  'image/png': 'PNG image',
  'image/jpeg': 'JPEG image',
  'image/gif': 'GIF image',
  'image/webp': 'WebP image',
  'application/pdf': 'PDF document',
  'application/zip': 'ZIP archive',
  'application/epub+zip': 'EPUB book',
  'video/mp4': 'MP4 video',
  'audio/mp4': 'MP4 audio',
  'video/webm': 'WebM video',
  'audio/mpeg': 'MP3 audio',
  'text/plain': 'Text',
  'text/csv': 'CSV table',
  'text/markdown': 'Markdown text',
};

/** What the upload form says is accepted. */
export const ACCEPTED_WORDS =
  'images (PNG, JPEG, GIF, WebP), PDF, ZIP, EPUB, MP4 and WebM video, MP3 and MP4 audio, plain text, CSV and Markdown';

export const fileTypeWords = (contentType: string): string => TYPE_WORDS[contentType] ?? 'File';

/** Messages shown after a redirect, chosen by a fixed code. */
const DONE: Record<string, string> = {
  uploaded: 'The file was uploaded.',
  deleted: 'The file was deleted.',
};

export const filesPath = (area: Area) => areaPath(area.school.id, '/files');

/** What the files page shows besides the list. */
export interface FilesState {
  readonly done?: string;
  /** Why the last upload was refused, in words. */
  readonly error?: string;
  readonly limitBytes: number;
  /** More files than the page lists. */
  readonly more: boolean;
}

function fileRow(area: Area, f: ApiFile): Html {
  const path = filePath(area, f.id);
  return html`<tr>
<td>${f.filename}</td>
<td>${fileTypeWords(f.content_type)}</td>
<td>${fileSize(area.school, f.size_bytes)}</td>
<td>${timeOf(area.school, f.created_at)}</td>
<td><a href="${path}/download">Download<span class="visually-hidden"> ${f.filename}</span></a>
<a href="${path}/delete">Delete<span class="visually-hidden"> ${f.filename}</span></a></td>
</tr>`;
}

/** The page of one file of the school. */
export const filePath = (area: Area, id: string) =>
  areaPath(area.school.id, `/files/${encodeURIComponent(id)}`);

/** The page that asks before a file is deleted, saying what loses it. */
export function deleteFilePage(area: Area, f: ApiFile): Html {
  return html`${areaNav(area, 'files')}
<h1>Delete “${f.filename}”?</h1>
<p>${fileTypeWords(f.content_type)}, ${fileSize(area.school, f.size_bytes)}, uploaded ${timeOf(area.school, f.created_at)}.</p>
${notice('warning', 'Whatever shows it loses it: a lecture’s video or download, a page’s image, the logo, a digital product’s file. This cannot be undone.')}
${confirmForm(area.viewer, `${filePath(area, f.id)}/delete`, 'Delete file', filesPath(area), { confirm: 'yes' })}`;
}

/** The files page: the upload form, then the school's files, newest first. */
export function filesPage(area: Area, files: readonly ApiFile[], state: FilesState): Html {
  const done = state.done && Object.hasOwn(DONE, state.done) ? notice('success', DONE[state.done]) : '';
  const limit = fileSize(area.school, state.limitBytes);
  return html`${areaNav(area, 'files')}
<h1>Files</h1>
<p>Files for lectures and downloads at ${area.school.name}.</p>
${done}
<h2 id="upload">Upload a file</h2>
<form method="post" action="${filesPath(area)}" enctype="multipart/form-data" novalidate>
${csrfField(area.viewer)}
<label for="file">File</label>
<input id="file" name="file" type="file" required aria-describedby="file-hint${state.error ? ' file-error' : ''}"${state.error ? html` aria-invalid="true"` : ''}>
<p class="hint" id="file-hint">Accepted: ${ACCEPTED_WORDS}; up to ${limit}.</p>
${state.error ? html`<p class="field-error" id="file-error" role="alert">${state.error}</p>` : ''}
<div class="actions start"><button class="primary" type="submit">Upload file</button></div>
</form>
<h2 id="files">The school’s files</h2>
${
  files.length === 0
    ? html`<p class="muted">No files yet.</p>`
    : html`<div class="table-wrap" role="region" aria-label="Files" tabindex="0"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Size</th><th scope="col">Uploaded</th><th scope="col">Actions</th></tr></thead>
<tbody>${files.map((f) => fileRow(area, f))}</tbody>
</table></div>${state.more ? html`<p class="muted">Only the newest ${files.length} files are listed.</p>` : ''}`
}`;
}

/** The page for an upload larger than the server accepts, with what to do instead. */
export function tooLargeBody(
  limitBytes: number,
  locale: string,
  back: { readonly href: string; readonly label: string },
): Html {
  return html`<h1>File too large</h1>
${notice('error', `This file is larger than this server accepts (${fileSize({ locale }, limitBytes)}).`)}
<p>Make the file smaller (a shorter or lower-resolution video, a compressed PDF) and upload it again,
or ask the people who run this Lectern server to raise its upload limit.</p>
<p><a href="${back.href}">${back.label}</a></p>`;
}
