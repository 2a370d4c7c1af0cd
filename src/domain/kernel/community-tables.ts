/** The community's tables: posts, comments, the site's pages, forms and their submissions. */

export interface PostsTable {
  id: string;
  school_id: string;
  author_user_id: string | null;
  title: string;
  slug: string;
  body: string;
  status: 'draft' | 'published';
  published_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface CommentsTable {
  id: string;
  school_id: string;
  author_user_id: string | null;
  target_type: 'lecture' | 'post';
  target_id: string;
  body: string;
  created_at: string;
}

export interface PagesTable {
  id: string;
  school_id: string;
  slug: string;
  title: string;
  /** JSON array of content blocks. */
  blocks: string;
  published: number;
  created_at: string;
  updated_at: string;
}

export interface FormsTable {
  id: string;
  school_id: string;
  title: string;
  /** JSON array of field definitions. */
  fields: string;
  created_at: string;
  updated_at: string;
}

export interface FormSubmissionsTable {
  id: string;
  school_id: string;
  form_id: string;
  email: string | null;
  /** JSON object of answers keyed by field name. */
  data: string;
  submitted_at: string;
}
