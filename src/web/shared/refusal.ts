/**
 * The one refusal a page handler throws. A handler never returns a refusal page itself: it throws
 * a PageRefusal (or a redirect), and its area's `onError` renders it in that area's own chrome
 * (the console's navigation, the school's colours, the learning area's links), as the API
 * sub-apps render a thrown ProblemError in their own format.
 */

/** A way on from a refusal page, in words a person uses ("Go to My courses"). */
export interface RefusalLink {
  readonly href: string;
  readonly label: string;
}

/** What a PageRefusal carries besides its status and words. */
export interface RefusalOptions {
  /** Ways on; the area adds its own default when there are none. */
  readonly links?: readonly RefusalLink[];
  /** Extra response headers (Retry-After on a throttled form, Allow on a wrong method). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Private: why, for the log; never shown. */
  readonly cause?: unknown;
}

/** A page that says no: its status, a title and one sentence saying what to do next. */
export class PageRefusal extends Error {
  override name = 'PageRefusal';
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly links: readonly RefusalLink[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, title: string, detail: string, options: RefusalOptions = {}) {
    super(detail, { cause: options.cause });
    this.status = status;
    this.title = title;
    this.detail = detail;
    this.links = options.links ?? [];
    this.headers = options.headers ?? {};
  }
}

/**
 * Not a refusal but a way elsewhere, thrown from deep in a request (sign in first, the page
 * moved): the area's `onError` answers it with the redirect.
 */
export class PageRedirect extends Error {
  override name = 'PageRedirect';
  readonly location: string;
  readonly status: 302 | 303;

  constructor(location: string, status: 302 | 303 = 302) {
    super(`redirect to ${location}`);
    this.location = location;
    this.status = status;
  }
}

/** The refusals every area words the same way. */
export const refusals = {
  /** A form whose CSRF token is missing or stale (OWASP CSRF cheat sheet: synchronizer token). */
  formExpired: (links?: readonly RefusalLink[]) =>
    new PageRefusal(
      403,
      'Form expired',
      'This form has expired or did not come from this site. Go back, reload the page and try again.',
      { links },
    ),
  /** A POST that is not a web form. */
  unsupportedForm: (withFiles = false) =>
    new PageRefusal(
      415,
      'Unsupported form',
      withFiles
        ? 'This form must be sent as a web form with its files.'
        : 'This form must be sent as a web form.',
    ),
  /** A multipart body that did not parse. */
  formNotReadable: () =>
    new PageRefusal(400, 'Form not readable', 'The form did not arrive in full. Go back and try again.'),
};
