import DataLoader from 'dataloader';
import type { Section } from '../domain/catalog/curriculum-rows.ts';
import type { Event } from '../domain/community/events.ts';
import type { CoursesTable } from '../domain/kernel/tables.ts';
import type { LectureProgress } from '../domain/learning/lecture-progress.ts';
import {
  loadMemberCourses,
  loadMemberCurricula,
  loadMemberLectureProgress,
  loadSchoolEvents,
} from '../domain/member/member-account.ts';
import { getMemberProfile, type MemberProfile, type MemberScope } from '../domain/member/member-reads.ts';
import { findSchoolById, type School } from '../domain/school/schools.ts';
import type { Principal } from '../resource/principal.ts';
import type { Db } from '../store/database.ts';

/**
 * What every resolver gets: the database, the verified principal and its member scope, and
 * per-request batch loaders (one SQL statement per kind of object per tick, never one per row).
 */
export interface AccountContext {
  readonly db: Db;
  readonly principal: Principal;
  /** The only key any resolver reads through: (school, user) of the access token. */
  readonly scope: MemberScope;
  readonly loaders: Loaders;
}

/** Per-request loaders, created on first use so a query that needs none pays nothing. */
interface Loaders {
  viewer(): Promise<MemberProfile>;
  school(): Promise<School>;
  readonly courses: DataLoader<string, CoursesTable | undefined>;
  readonly curricula: DataLoader<string, Section[]>;
  readonly lectureProgress: DataLoader<string, ReadonlyMap<string, LectureProgress>>;
  readonly events: DataLoader<string, Event | undefined>;
  /** Forgets everything loaded: called after each mutation so later fields read fresh rows. */
  reset(): void;
}

const EMPTY = new Map<string, LectureProgress>();

/** Builds the context of one request. */
export function createAccountContext(db: Db, principal: Principal): AccountContext {
  const scope: MemberScope = { schoolId: principal.schoolId, userId: principal.userId };
  let viewer: Promise<MemberProfile> | undefined;
  let school: Promise<School> | undefined;
  let courses: Loaders['courses'] | undefined;
  let curricula: Loaders['curricula'] | undefined;
  let lectureProgress: Loaders['lectureProgress'] | undefined;
  let events: Loaders['events'] | undefined;
  let mutated = false;
  const loaders: Loaders = {
    viewer: () => {
      // Read with the token at the start of this request, until a mutation resets the loaders.
      viewer ??=
        principal.user && !mutated
          ? Promise.resolve({ id: principal.userId, ...principal.user })
          : getMemberProfile(db, scope);
      return viewer;
    },
    school: () => {
      school ??= findSchoolById(db, scope.schoolId).then((s) => {
        if (!s) throw new Error('the school of a valid token is missing');
        return s;
      });
      return school;
    },
    get courses() {
      courses ??= new DataLoader(async (ids) => {
        const map = await loadMemberCourses(db, scope, ids);
        return ids.map((id) => map.get(id));
      });
      return courses;
    },
    get curricula() {
      curricula ??= new DataLoader(async (ids) => {
        const map = await loadMemberCurricula(db, scope, ids);
        return ids.map((id) => map.get(id) ?? []);
      });
      return curricula;
    },
    get lectureProgress() {
      lectureProgress ??= new DataLoader(async (ids) => {
        const map = await loadMemberLectureProgress(db, scope, ids);
        return ids.map((id) => map.get(id) ?? EMPTY);
      });
      return lectureProgress;
    },
    get events() {
      events ??= new DataLoader(async (ids) => {
        const map = await loadSchoolEvents(db, scope, ids);
        return ids.map((id) => map.get(id));
      });
      return events;
    },
    reset() {
      mutated = true;
      viewer = school = undefined;
      courses = curricula = lectureProgress = events = undefined;
    },
  };
  return { db, principal, scope, loaders };
}
