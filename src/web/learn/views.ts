/**
 * The learning area's pages other than the player: My courses, a course's overview, and the
 * member's orders, events and subscription at the school.
 */
import { html } from 'hono/html';
import type { Course } from '../../domain/catalog/courses.ts';
import type { Section } from '../../domain/catalog/curriculum-rows.ts';
import type { Order } from '../../domain/commerce/orders.ts';
import type { MemberSubscription } from '../../domain/commerce/subscriptions.ts';
import type { EventRegistration } from '../../domain/community/event-registrations.ts';
import type { Event } from '../../domain/community/events.ts';
import type { EnrollmentSummary } from '../../domain/learning/enrollments.ts';
import type { LectureProgress } from '../../domain/learning/lecture-progress.ts';
import type { Html } from '../layout.ts';
import { csrfField, notice, topNav } from '../shared/page-kit.ts';
import { duration, words } from '../shared/school-format.ts';
import { coursePath, type Learner, learnPath, lecturePath, lecturesOf, sitePath } from './access.ts';

export type LearnSection = 'courses' | 'orders' | 'events' | 'subscription';

/** The area's navigation: its four sections and the way back to the school's site. */
export function learnNav(learner: Learner, current?: LearnSection): Html {
  const s = learner.school;
  return topNav(learner.viewer, [
    { href: learnPath(s), label: 'My courses', current: current === 'courses' },
    { href: learnPath(s, '/orders'), label: 'Orders', current: current === 'orders' },
    { href: learnPath(s, '/events'), label: 'Events', current: current === 'events' },
    { href: learnPath(s, '/subscription'), label: 'Subscription', current: current === 'subscription' },
    { href: sitePath(s), label: `${s.name} site` },
  ]);
}

/** "Lifetime access", "Access until 3 March 2027" or the expired sentence with what to do. */
function accessLine(learner: Learner, e: EnrollmentSummary): Html {
  if (e.lifetime) return html`<p class="muted">Lifetime access</p>`;
  if (e.active && e.expiresAt)
    return html`<p class="muted">Access until ${learner.format.date(e.expiresAt)}</p>`;
  return notice('warning', expiredSentence(learner, e));
}

/** The expired enrollment's message: when access ended and whom to ask. */
export function expiredSentence(learner: Learner, e: EnrollmentSummary): Html {
  const contact = learner.school.contact_email;
  return html`Your access ended on ${learner.format.date(e.expiresAt ?? '')}; contact the school${
    contact ? html` (<a href="mailto:${contact}">${contact}</a>)` : ''
  } to renew.`;
}

/** A progress bar with its words ("50 % complete"). */
export function progressBar(id: string, percent: number): Html {
  return html`<p id="${id}">${percent} % complete</p>
<progress max="100" value="${percent}" aria-labelledby="${id}">${percent} %</progress>`;
}

/** Where Continue leads: the last watched lecture, else the first one (or the overview). */
function continueHref(learner: Learner, e: EnrollmentSummary): string {
  return e.lastLectureId
    ? lecturePath(learner.school, e.course.slug, e.lastLectureId)
    : coursePath(learner.school, e.course.slug, '/start');
}

/** My courses: each enrolled course with its progress, access and Continue. */
export function myCoursesPage(learner: Learner, enrollments: readonly EnrollmentSummary[]): Html {
  return html`${learnNav(learner, 'courses')}
<h1>My courses</h1>
<p class="muted">Your courses at ${learner.school.name}.</p>
${
  enrollments.length === 0
    ? html`<p>You are not enrolled in any course yet. <a href="${sitePath(learner.school, '/courses')}">Browse the courses of ${learner.school.name}</a>.</p>`
    : html`<ul class="cards">${enrollments.map(
        (e) => html`<li>
<h2 id="course-${e.id}"><a href="${coursePath(learner.school, e.course.slug)}">${e.course.title}</a></h2>
${progressBar(`progress-${e.id}`, e.progressPercent)}
${accessLine(learner, e)}
${
  e.active
    ? html`<p><a class="button" href="${continueHref(learner, e)}" aria-describedby="course-${e.id}">${e.lastLectureId ? 'Continue' : 'Start'}</a></p>`
    : ''
}
</li>`,
      )}</ul>`
}`;
}

/** A tick or an empty place before a lecture in an outline, with words for screen readers. */
function mark(done: boolean): Html {
  return done
    ? html`<span aria-hidden="true">✓</span> <span class="visually-hidden">Completed:</span>`
    : html`<span aria-hidden="true">○</span>`;
}

/**
 * The outline of a course: sections and lectures, done ones ticked, the current one marked
 * (aria-current) when `currentId` is given.
 */
export function outline(
  learner: Learner,
  course: Course,
  sections: readonly Section[],
  progress: ReadonlyMap<string, LectureProgress>,
  currentId?: string,
): Html {
  return html`<ol class="outline">${sections.map(
    (s) => html`<li><strong>${s.title}</strong>
<ol>${s.lectures.map((l) => {
      const done = progress.get(l.id)?.completed === true;
      const label = `${l.title}${duration(l.durationSeconds) ? ` (${duration(l.durationSeconds)})` : ''}`;
      return html`<li>${mark(done)} <a href="${lecturePath(learner.school, course.slug, l.id)}"${
        l.id === currentId ? html` aria-current="page"` : ''
      }>${label}</a></li>`;
    })}</ol></li>`,
  )}</ol>`;
}

/** A course's overview: progress, access, Continue and the outline. */
export function courseOverviewPage(
  learner: Learner,
  course: Course,
  sections: readonly Section[],
  enrollment: EnrollmentSummary | undefined,
  progress: ReadonlyMap<string, LectureProgress>,
): Html {
  const lectures = lecturesOf(sections);
  const done = lectures.filter((l) => progress.get(l.id)?.completed).length;
  return html`${learnNav(learner)}
<p><a href="${learnPath(learner.school)}">My courses</a></p>
<h1>${course.title}</h1>
${course.description ? html`<p>${course.description}</p>` : ''}
${
  enrollment
    ? html`${progressBar('course-progress', enrollment.progressPercent)}
<p class="muted">${done} of ${lectures.length} lectures completed</p>
${accessLine(learner, enrollment)}
${enrollment.active && lectures.length > 0 ? html`<p><a href="${continueHref(learner, enrollment)}">${enrollment.lastLectureId ? 'Continue' : 'Start the course'}</a></p>` : ''}`
    : notice(
        'warning',
        'You teach this course or run this school: you see its lectures, and no progress is recorded.',
      )
}
<h2>Course outline</h2>
${lectures.length === 0 ? html`<p class="muted">This course has no lectures yet.</p>` : outline(learner, course, sections, progress)}`;
}

/** The member's orders: date, what, amount and status in words. */
export function ordersPage(learner: Learner, orders: readonly Order[]): Html {
  const f = learner.format;
  return html`${learnNav(learner, 'orders')}
<h1>Orders</h1>
${
  orders.length === 0
    ? html`<p>You have no orders at ${learner.school.name}.</p>`
    : html`<div class="table-wrap" role="region" aria-label="Your orders" tabindex="0"><table class="stack">
<thead><tr><th scope="col">Date</th><th scope="col">Order</th><th scope="col">What</th><th scope="col">Amount</th><th scope="col">Status</th></tr></thead>
<tbody>${orders.map(
        (o) => html`<tr>
<td data-label="Date">${f.date(o.createdAt)}</td>
<td data-label="Order">${o.number}</td>
<td data-label="What"><ul>${o.items.map((i) => html`<li>${i.title}${i.quantity > 1 ? ` × ${i.quantity}` : ''}</li>`)}</ul></td>
<td data-label="Amount">${f.money(o.totalAmount, o.currency)}${
          o.discountAmount > 0
            ? html`<br><span class="muted">${f.money(o.discountAmount, o.currency)} off${o.couponCode ? ` with ${o.couponCode}` : ''}</span>`
            : ''
        }${
          o.refundedAmount > 0
            ? html`<br><span class="muted">${f.money(o.refundedAmount, o.currency)} refunded</span>`
            : ''
        }</td>
<td data-label="Status">${words(o.status)}</td>
</tr>`,
      )}</tbody></table></div>`
}`;
}

const EVENT_DONE: Record<string, string> = {
  registered: 'You are registered. See you there.',
  canceled: 'Your registration is canceled.',
};

/** Upcoming events with Register / Cancel registration, and full ones saying so. */
export function eventsPage(
  learner: Learner,
  events: readonly Event[],
  registrations: ReadonlyMap<string, EventRegistration>,
  flash: { done?: string; error?: string },
): Html {
  const f = learner.format;
  return html`${learnNav(learner, 'events')}
<h1>Events</h1>
${flash.done && Object.hasOwn(EVENT_DONE, flash.done) ? notice('success', EVENT_DONE[flash.done]) : ''}
${flash.error ? notice('error', flash.error) : ''}
${
  events.length === 0
    ? html`<p>${learner.school.name} has no upcoming events.</p>`
    : html`<ul class="cards">${events.map((e) => {
        const mine = registrations.get(e.id);
        const registered = mine !== undefined && mine.status !== 'canceled';
        const full = e.spotsLeft === 0;
        return html`<li>
<h2 id="event-${e.id}">${e.title}</h2>
<p>${f.span(e.startsAt, e.endsAt)}</p>
${e.location ? html`<p>${e.location}</p>` : ''}
${e.description ? html`<p class="muted">${e.description}</p>` : ''}
<p class="muted">${e.spotsLeft === null ? 'Open to everyone' : full ? 'This event is full.' : `${e.spotsLeft} of ${e.capacity} places left`}</p>
${
  registered
    ? html`<p><strong>You are registered.</strong>${e.onlineUrl ? html` <a href="${e.onlineUrl}">Join online</a>` : ''}</p>
<form method="post" action="${learnPath(learner.school, `/events/${encodeURIComponent(e.id)}/cancel`)}">${csrfField(learner.viewer)}
<div class="actions start"><button class="danger" type="submit" aria-describedby="event-${e.id}">Cancel registration</button></div></form>`
    : full
      ? ''
      : html`<form method="post" action="${learnPath(learner.school, `/events/${encodeURIComponent(e.id)}/register`)}">${csrfField(learner.viewer)}
<div class="actions start"><button class="primary" type="submit" aria-describedby="event-${e.id}">Register</button></div></form>`
}
</li>`;
      })}</ul>`
}`;
}

/** The member's subscriptions: plan, price, status and when it renews or ends. */
export function subscriptionPage(learner: Learner, subscriptions: readonly MemberSubscription[]): Html {
  const f = learner.format;
  const per: Record<string, string> = { month: ' a month', year: ' a year', lifetime: ' once' };
  return html`${learnNav(learner, 'subscription')}
<h1>Subscription</h1>
${
  subscriptions.length === 0
    ? html`<p>You have no subscription at ${learner.school.name}.</p>`
    : html`<ul class="cards">${subscriptions.map(
        (s) => html`<li>
<h2>${s.plan.name}</h2>
${s.plan.description ? html`<p>${s.plan.description}</p>` : ''}
<dl>
<dt>Price</dt><dd>${f.money(s.plan.priceAmount, s.plan.currency)}${per[s.plan.interval] ?? ''}</dd>
<dt>Status</dt><dd>${words(s.status)}</dd>
${
  s.status === 'canceled'
    ? html`<dt>Ended</dt><dd>${s.canceledAt ? f.date(s.canceledAt) : s.currentPeriodEnd ? f.date(s.currentPeriodEnd) : 'Ended'}</dd>`
    : s.currentPeriodEnd
      ? html`<dt>${s.cancelAtPeriodEnd ? 'Ends on' : 'Renews on'}</dt><dd>${f.date(s.currentPeriodEnd)}</dd>`
      : ''
}
${s.trialEndsAt && s.status === 'trialing' ? html`<dt>Trial ends</dt><dd>${f.date(s.trialEndsAt)}</dd>` : ''}
</dl>
</li>`,
      )}</ul>
<p class="muted">To change or cancel your subscription, contact ${learner.school.name}${learner.school.contact_email ? html` at <a href="mailto:${learner.school.contact_email}">${learner.school.contact_email}</a>` : ''}.</p>`
}`;
}
