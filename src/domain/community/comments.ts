import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import type { CommentsTable } from '../kernel/community-tables.ts';
import { mapPage, type Page, type PageParams, paginate } from '../kernel/pagination.ts';

/** A comment on a lecture or a post (read only for operators). */
export interface Comment {
  id: string;
  schoolId: string;
  authorUserId: string | null;
  authorName: string | null;
  targetType: CommentsTable['target_type'];
  targetId: string;
  /** For lecture comments: the lecture's course. */
  courseId: string | null;
  body: string;
  createdAt: string;
}

export interface CommentFilter {
  targetType?: Comment['targetType'];
  targetId?: string;
  courseId?: string;
  authorUserId?: string;
  from?: string;
  to?: string;
}

type Row = CommentsTable & { author_name: string | null; course_id: string | null };

function toComment(r: Row): Comment {
  return {
    id: r.id,
    schoolId: r.school_id,
    authorUserId: r.author_user_id,
    authorName: r.author_name,
    targetType: r.target_type,
    targetId: r.target_id,
    courseId: r.course_id,
    body: r.body,
    createdAt: r.created_at,
  };
}

function query(db: Db | Tx, schoolId: string) {
  return db
    .selectFrom('comments')
    .leftJoin('users', 'users.id', 'comments.author_user_id')
    .leftJoin('lectures', (j) =>
      j.onRef('lectures.id', '=', 'comments.target_id').on('comments.target_type', '=', 'lecture'),
    )
    .selectAll('comments')
    .select(['users.name as author_name', 'lectures.course_id as course_id'])
    .where('comments.school_id', '=', schoolId);
}

/** Comments of the school, oldest first, by target, course, author or date range. */
export async function listComments(
  db: Db | Tx,
  schoolId: string,
  filter: CommentFilter = {},
  page: PageParams = {},
): Promise<Page<Comment>> {
  let q = query(db, schoolId);
  if (filter.targetType) q = q.where('comments.target_type', '=', filter.targetType);
  if (filter.targetId) q = q.where('comments.target_id', '=', filter.targetId);
  if (filter.courseId) q = q.where('lectures.course_id', '=', filter.courseId);
  if (filter.authorUserId) q = q.where('comments.author_user_id', '=', filter.authorUserId);
  if (filter.from) q = q.where('comments.created_at', '>=', filter.from);
  if (filter.to) q = q.where('comments.created_at', '<', filter.to);
  return mapPage(await paginate(q, page, { table: 'comments' }), toComment);
}

/** A comment of the school; 404 otherwise. */
export async function getComment(db: Db | Tx, schoolId: string, id: string): Promise<Comment> {
  const row = await query(db, schoolId).where('comments.id', '=', id).executeTakeFirst();
  if (!row) throw problems.notFound('No such comment.');
  return toComment(row);
}
