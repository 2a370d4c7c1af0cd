import { newId } from '../../crypto/ids.ts';
import type { Tx } from '../../store/database.ts';
import { isoIn, isoNow } from '../../store/time.ts';
import { updateAppearance } from '../school/appearance.ts';
import { DEMO, type DemoPeople } from './demo-constants.ts';

/**
 * Posts, comments, pages, forms and submissions of Demo Academy, and its theme: the `home` page
 * its site opens with lists `featuredCourseIds`.
 */
export async function seedDemoCommunity(
  tx: Tx,
  p: DemoPeople,
  lectureId: string,
  featuredCourseIds: readonly string[],
): Promise<void> {
  const s = p.demoSchoolId;
  const now = isoNow();
  const welcomePost = newId('pst');
  await tx
    .insertInto('posts')
    .values([
      {
        id: welcomePost,
        school_id: s,
        author_user_id: p.ownerId,
        title: 'Welcome to Demo Academy',
        slug: DEMO.posts.welcome,
        body: 'We are glad you are here. Start with Getting Started with TypeScript.',
        status: 'published',
        published_at: now,
        created_at: now,
        updated_at: now,
      },
      {
        id: newId('pst'),
        school_id: s,
        author_user_id: p.lecturerId,
        title: 'Roadmap for next term',
        slug: DEMO.posts.roadmap,
        body: 'Draft: marketing course, more live sessions.',
        status: 'draft',
        published_at: null,
        created_at: now,
        updated_at: now,
      },
    ])
    .execute();
  await tx
    .insertInto('comments')
    .values([
      {
        id: newId('cmt'),
        school_id: s,
        author_user_id: p.studentId,
        target_type: 'lecture',
        target_id: lectureId,
        body: 'The part on union types finally made it click. Thanks!',
        created_at: now,
      },
      {
        id: newId('cmt'),
        school_id: s,
        author_user_id: p.studentId,
        target_type: 'post',
        target_id: welcomePost,
        body: 'Happy to be here!',
        created_at: now,
      },
    ])
    .execute();
  const page = (slug: string, title: string, blocks: unknown[], published: boolean) => ({
    id: newId('pag'),
    school_id: s,
    slug,
    title,
    blocks: JSON.stringify(blocks),
    published: published ? 1 : 0,
    created_at: now,
    updated_at: now,
  });
  await tx
    .insertInto('pages')
    .values([
      page(
        DEMO.pages.home,
        'Demo Academy',
        [
          { type: 'hero', heading: 'Learn the modern web', text: 'Courses by working developers.' },
          {
            type: 'text',
            markdown:
              'Short courses on **TypeScript**, accessibility and SQL. Start with the free SQL course, or watch a free preview of any course.',
          },
          { type: 'heading', text: 'Popular courses', level: 2 },
          { type: 'course_list', course_ids: featuredCourseIds },
          { type: 'button', label: 'Read about us', url: 'https://demo-academy.example.com/about' },
        ],
        true,
      ),
      page(
        DEMO.pages.about,
        'About us',
        [
          {
            type: 'text',
            markdown: 'Demo Academy is a sample school.\n\nIts teachers work on the web every day.',
          },
        ],
        true,
      ),
      page(DEMO.pages.faq, 'FAQ', [{ type: 'text', markdown: 'Coming soon.' }], false),
    ])
    .execute();
  await updateAppearance(tx, s, { primaryColor: '#0f5c4d', accentColor: '#e0a526', font: 'sans-serif' });
  const formId = newId('frm');
  await tx
    .insertInto('forms')
    .values({
      id: formId,
      school_id: s,
      title: DEMO.form,
      fields: JSON.stringify([
        { name: 'name', label: 'Your name', type: 'text', required: true },
        { name: 'email', label: 'Email', type: 'email', required: true },
        { name: 'message', label: 'Message', type: 'textarea', required: true },
      ]),
      created_at: now,
      updated_at: now,
    })
    .execute();
  await tx
    .insertInto('form_submissions')
    .values([
      {
        id: newId('fsb', Date.now() - 1),
        school_id: s,
        form_id: formId,
        email: 'prospect@example.com',
        data: JSON.stringify({
          name: 'Pat Prospect',
          email: 'prospect@example.com',
          message: 'Do you offer team plans?',
        }),
        submitted_at: isoIn(-2 * 86400),
      },
      {
        id: newId('fsb'),
        school_id: s,
        form_id: formId,
        email: 'student@example.com',
        data: JSON.stringify({
          name: 'Sam Student',
          email: 'student@example.com',
          message: 'Loving the course!',
        }),
        submitted_at: isoIn(-86400),
      },
    ])
    .execute();
}
