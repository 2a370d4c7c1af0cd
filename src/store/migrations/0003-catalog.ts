import type { Kysely } from 'kysely';
import { schoolTable, timestamps } from './columns.ts';

/** Courses, their lecturers, curriculum, enrollments and per-lecture progress. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await timestamps(
    schoolTable(db, 'courses')
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('price_amount', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('image_url', 'text')
      .addColumn('published_at', 'text'),
  )
    .addUniqueConstraint('courses_school_slug', ['school_id', 'slug'])
    .execute();
  await db.schema
    .createIndex('courses_school_status')
    .on('courses')
    .columns(['school_id', 'status', 'id'])
    .execute();

  await db.schema
    .createTable('course_lecturers')
    .addColumn('course_id', 'text', (c) => c.notNull().references('courses.id').onDelete('cascade'))
    .addColumn('lecturer_id', 'text', (c) => c.notNull().references('lecturers.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('course_lecturers_pk', ['course_id', 'lecturer_id'])
    .execute();
  await db.schema
    .createIndex('course_lecturers_lecturer')
    .on('course_lecturers')
    .column('lecturer_id')
    .execute();

  await timestamps(
    schoolTable(db, 'sections')
      .addColumn('course_id', 'text', (c) => c.notNull().references('courses.id').onDelete('cascade'))
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull()),
  ).execute();
  await db.schema.createIndex('sections_course').on('sections').columns(['course_id', 'position']).execute();

  await timestamps(
    schoolTable(db, 'lectures')
      .addColumn('course_id', 'text', (c) => c.notNull().references('courses.id').onDelete('cascade'))
      .addColumn('section_id', 'text', (c) => c.notNull().references('sections.id').onDelete('cascade'))
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('duration_seconds', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('is_free_preview', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('body', 'text')
      .addColumn('video_url', 'text')
      .addColumn('file_id', 'text', (c) => c.references('stored_files.id').onDelete('set null')),
  ).execute();
  await db.schema
    .createIndex('lectures_section')
    .on('lectures')
    .columns(['section_id', 'position'])
    .execute();
  await db.schema.createIndex('lectures_course').on('lectures').column('course_id').execute();

  await timestamps(
    schoolTable(db, 'enrollments')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('course_id', 'text', (c) => c.notNull().references('courses.id').onDelete('cascade'))
      .addColumn('enrolled_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text')
      .addColumn('progress_percent', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('completed_at', 'text')
      .addColumn('last_lecture_id', 'text', (c) => c.references('lectures.id').onDelete('set null'))
      .addColumn('last_position_seconds', 'integer')
      .addColumn('last_watched_at', 'text')
      .addColumn('source', 'text', (c) => c.notNull()),
  )
    .addUniqueConstraint('enrollments_user_course', ['user_id', 'course_id'])
    .execute();
  await db.schema
    .createIndex('enrollments_school_user')
    .on('enrollments')
    .columns(['school_id', 'user_id', 'id'])
    .execute();
  await db.schema
    .createIndex('enrollments_school_course')
    .on('enrollments')
    .columns(['school_id', 'course_id', 'id'])
    .execute();

  await db.schema
    .createTable('lecture_progress')
    .addColumn('enrollment_id', 'text', (c) => c.notNull().references('enrollments.id').onDelete('cascade'))
    .addColumn('lecture_id', 'text', (c) => c.notNull().references('lectures.id').onDelete('cascade'))
    .addColumn('position_seconds', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('completed_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('lecture_progress_pk', ['enrollment_id', 'lecture_id'])
    .execute();
}
