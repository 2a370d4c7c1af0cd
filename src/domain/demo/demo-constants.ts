/** Fixed slugs and codes of the demo data, so tests and docs can rely on them. */
export const DEMO = {
  courses: {
    typescript: 'getting-started-with-typescript',
    accessibility: 'web-accessibility-essentials',
    sql: 'sql-for-course-creators',
    draft: 'advanced-course-marketing',
    other: 'einfuehrung-in-python',
  },
  coupons: { welcome: 'WELCOME10', spring: 'SPRING5' },
  digitalProduct: 'TypeScript Cheat Sheet Pack',
  plans: { monthly: 'All Access Monthly', yearly: 'All Access Yearly' },
  events: {
    qa: 'Live Q&A: TypeScript generics',
    workshop: 'Accessibility audit workshop',
    past: 'Kick-off webinar',
  },
  posts: { welcome: 'welcome-to-demo-academy', roadmap: 'roadmap-next-term' },
  pages: { home: 'home', about: 'about', faq: 'faq' },
  form: 'Contact us',
  /** The paid TypeScript course's checkout page at the school's (pretend) payment provider. */
  checkoutUrl: 'https://pay.example.com/demo-academy/typescript',
} as const;

/** People the catalogue part builds on (created by the identity part of the seed). */
export interface DemoPeople {
  demoSchoolId: string;
  otherSchoolId: string;
  ownerId: string;
  lecturerId: string;
  studentId: string;
  otherLecturerId: string;
  otherStudentId: string;
}
