import { z } from 'zod';
import { findSchoolById } from '../domain/school/schools.ts';
import { findUserById } from '../domain/school/users.ts';
import { formatScopes, MCP_CHALLENGE_SCOPES } from '../oauth/scopes.ts';
import type { ClientKind } from '../oauth/tables.ts';
import type { Principal } from '../resource/principal.ts';
import { READ_ONLY } from './hints.ts';
import { authenticationGuide } from './instructions.ts';
import { defineTool, type ToolCall } from './tool.ts';
import { toolInput } from './tool-input.ts';

const input = toolInput({
  sign_in: z.boolean().optional().describe('true: ask your MCP client to sign you in.'),
  as: z
    .enum(['operator', 'member'])
    .optional()
    .describe(
      'Optional: operator to administer a school (the challenge names the operator scopes); member for your own data, which needs a member app from your school: you get the steps to obtain one, and no sign-in is started. Omitted: your client’s default audience.',
    ),
});

type Audience = 'operator' | 'member';

/** How a member gets a client that may hold member scopes, in words an agent can relay. */
function memberAppSteps(baseUrl: string): string {
  return `Member tools (your own courses, progress, orders and event registrations) need a member app, and only a school can create one: an owner or admin of your school signs in at ${baseUrl}/admin, turns on MCP connections under Settings → Beta features, creates the app under Developers → OAuth applications and gives you its client_id, which you configure in your MCP client. The member scopes (account:read, account:write) are refused with invalid_scope to every other client: registered, loopback, vendor and metadata-document clients act for school operators only.`;
}

/** How an owner or admin gets a client that may hold operator scopes. */
function operatorClientSteps(registrationEndpoint: string): string {
  return `Operator tools (administering a school) need an owner or admin of the school signed in through an operator client: one registered at ${registrationEndpoint} with loopback redirect URIs, a client ID metadata document, or a known vendor platform (most MCP clients do this by themselves when you add this server). A member app can never be granted operator scopes, so that is a separate connection in your MCP client.`;
}

const CLIENT_WORDS: Record<ClientKind, string> = {
  member: 'the member app',
  loopback: 'the loopback client',
  cimd: 'the metadata-document client',
  vendor: 'the vendor client',
};

/** Who the token speaks for, as the structured answer carries it. */
async function signedInAs(call: ToolCall, p: Principal) {
  const [school, user] = await Promise.all([
    findSchoolById(call.ctx.db, p.schoolId),
    p.user ? Promise.resolve(p.user) : findUserById(call.ctx.db, p.userId),
  ]);
  return {
    audience: p.audience,
    user: user ? { name: user.name, email: user.email } : null,
    roles: [...p.roles],
    school: school ? { name: school.name, subdomain: school.subdomain } : null,
    client: { id: p.clientId, kind: p.client.kind },
    scopes: formatScopes(p.scopes),
  };
}

/** The next step in words: what to do from here, for this caller and the audience asked for. */
function nextStepFor(
  baseUrl: string,
  links: { walkthrough: string; registrationEndpoint: string },
  asked: Audience | undefined,
  signedIn: Awaited<ReturnType<typeof signedInAs>> | null,
): string {
  if (!signedIn) {
    if (asked === 'member') {
      return `Not signed in, and no sign-in was started: with a client that is not a member app it could only end in invalid_scope. ${memberAppSteps(baseUrl)} If your MCP client already uses a member app's client_id, call how_to_authenticate with sign_in=true and without as: a member app signs in with the member scopes by default.`;
    }
    return `Not signed in. Call how_to_authenticate with sign_in=true to sign in, or read ${links.walkthrough}.`;
  }
  const who = signedIn.user ? `${signedIn.user.name} <${signedIn.user.email}>` : 'your account';
  const roles = signedIn.roles.length ? ` (${signedIn.roles.join(', ')})` : '';
  const school = signedIn.school ? `${signedIn.school.name} (${signedIn.school.subdomain})` : 'your school';
  const status = `Signed in as ${who}, ${signedIn.audience}${roles} of ${school}, through ${CLIENT_WORDS[signedIn.client.kind]} ${signedIn.client.id}, with: ${signedIn.scopes || 'no scopes'}. List the tools again to see what this unlocks.`;
  const other: Audience = signedIn.audience === 'member' ? 'operator' : 'member';
  const otherSteps =
    other === 'member' ? memberAppSteps(baseUrl) : operatorClientSteps(links.registrationEndpoint);
  if (asked === other) {
    const article = other === 'operator' ? 'an' : 'a';
    return `${status} This token cannot become ${article} ${other} token, and no sign-in was started. ${otherSteps}`;
  }
  return `${status} ${otherSteps}`;
}

/**
 * `how_to_authenticate`: the walkthrough as data, and the way in for clients that start OAuth
 * only when a call answers 401. Anonymous callers see public tools only (spec §5.6), so a model
 * could never reach a protected tool to provoke that 401; `sign_in: true` provokes it on purpose.
 * It never starts a sign-in that can only fail: a member sign-in needs a member app, whose
 * default scopes are already the member ones, so `as: "member"` gets the steps to obtain one in
 * words instead of a challenge that every other client would answer with invalid_scope. Once
 * signed in it says who the token speaks for and what the other audience would need.
 */
export const howToAuthenticate = defineTool({
  name: 'how_to_authenticate',
  title: 'How to authenticate',
  description:
    'Explains how to get an OAuth access token for this server (discovery URLs, client registration, scopes) to unlock member and operator tools, and says in nextStep what to do from here; makes no network calls. With sign_in=true and no token, the server answers 401 so your MCP client opens the sign-in page and gets its default scopes: a registered or metadata-document client signs in as a school operator, a member app (client_id from the school) as a member. as=operator names the operator scopes in that challenge; as=member starts no sign-in and explains how to get a member app, the only kind of client that may hold member scopes. Once signed in it says who you are signed in as and what the other audience would need.',
  audience: 'public',
  scope: null,
  input,
  output: z.object({
    walkthrough: z.string(),
    protectedResourceMetadata: z.string(),
    authorizationServerMetadata: z.string(),
    openidConfiguration: z.string(),
    registrationEndpoint: z.string(),
    mcpEndpoint: z.string(),
    flow: z.string(),
    resource: z.string(),
    steps: z.array(z.string()),
    scopes: z.object({ operator: z.array(z.string()), member: z.array(z.string()), note: z.string() }),
    signedIn: z
      .object({
        audience: z.enum(['operator', 'member']),
        user: z.object({ name: z.string(), email: z.string() }).nullable(),
        roles: z.array(z.string()).describe('Your roles at the school.'),
        school: z.object({ name: z.string(), subdomain: z.string() }).nullable(),
        client: z.object({
          id: z.string(),
          kind: z
            .enum(['member', 'loopback', 'cimd', 'vendor'])
            .describe('member: a member app; the others act for operators.'),
        }),
        scopes: z.string(),
      })
      .nullable()
      .describe('Who the token speaks for; null without a token.'),
    nextStep: z.string().describe('What to do from here, in words.'),
  }),
  annotations: READ_ONLY,
  // Arguments the schema refuses get that error first, not a sign-in. Without `as` the
  // challenge names no scope: each client then asks for none and gets the default of its own
  // audience (RFC 6749 §3.3), so no client is sent to a scope it is refused. `as: "member"` is
  // answered in words (run): naming account scopes helps no client, since a member app gets them
  // by default, and sends every other client to invalid_scope.
  anonymousChallenge: (args) => {
    if (args.sign_in !== true || !input.safeParse(args).success) return undefined;
    if (args.as === 'member') return undefined;
    return args.as === 'operator' ? MCP_CHALLENGE_SCOPES : [];
  },
  run: async (call, args) => {
    const { baseUrl } = call.ctx.config;
    const guide = authenticationGuide(baseUrl);
    const signedIn = call.principal ? await signedInAs(call, call.principal) : null;
    return { ...guide, signedIn, nextStep: nextStepFor(baseUrl, guide, args.as, signedIn) };
  },
  summarize: (out) => out.nextStep,
});
