import { PERSON_NAME_MAX, type PersonNameRefusal } from '../../domain/school/person-name.ts';

/** The pages' words for a refused name (domain/school/person-name.ts decides). */
export function personNameWords(reason: PersonNameRefusal): string {
  switch (reason) {
    case 'empty':
      return 'Enter your name.';
    case 'too_long':
      return `Enter a name of at most ${PERSON_NAME_MAX} characters.`;
    case 'control_character':
      return 'A name cannot contain control or text-direction characters. Type it again without them.';
  }
}
