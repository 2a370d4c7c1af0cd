import { z } from 'zod';
import { findSchoolById } from '../domain/school/schools.ts';
import { ACCOUNT_CHALLENGE_SCOPES, formatScopes, MCP_CHALLENGE_SCOPES } from '../oauth/scopes.ts';
import { authenticationGuide } from './instructions.ts';
import { defineTool, READ_ONLY } from './tool.ts';
import { toolInput } from './tool-input.ts';

const input = toolInput({
  sign_in: z.boolean().optional().describe('true: ask your MCP client to sign you in.'),
  as: z
    .enum(['operator', 'member'])
    .optional()
    .describe(
      'Optional: the audience whose scopes the challenge names; operator to administer a school, member (member apps only) for your own data. Omitted: your client’s default.',
    ),
});

/**
 * `how_to_authenticate`: the walkthrough as data, and the way in for clients that start OAuth
 * only when a call answers 401. Anonymous callers see public tools only (spec §5.6), so a model
 * could never reach a protected tool to provoke that 401; `sign_in: true` provokes it on purpose,
 * with the scopes of the audience asked for, and once signed in says who the token speaks for.
 */
export const howToAuthenticate = defineTool({
  name: 'how_to_authenticate',
  title: 'How to authenticate',
  description:
    "Explains how to get an OAuth access token for this server (discovery URLs, client registration, scopes) to unlock member and operator tools; makes no network calls. With sign_in=true and no token, the server answers 401 so your MCP client opens the sign-in page and gets its default scopes: a registered or metadata-document client signs in as a school operator, a member app (client_id from the school) as a member. as=operator or as=member names that audience's scopes in the challenge; as=member works only with a member app. Once signed in it says who you are signed in as.",
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
        school: z.object({ name: z.string(), subdomain: z.string() }).nullable(),
        scopes: z.string(),
      })
      .nullable()
      .describe('Who the token speaks for; null without a token.'),
  }),
  annotations: READ_ONLY,
  // Arguments the schema refuses get that error first, not a sign-in. Without `as` the
  // challenge names no scope: each client then asks for none and gets the default of its own
  // audience (RFC 6749 §3.3), so no client is sent to a scope it is refused.
  anonymousChallenge: (args) => {
    if (args.sign_in !== true || !input.safeParse(args).success) return undefined;
    if (args.as === 'member') return ACCOUNT_CHALLENGE_SCOPES;
    return args.as === 'operator' ? MCP_CHALLENGE_SCOPES : [];
  },
  run: async (call) => {
    const guide = authenticationGuide(call.ctx.config.baseUrl);
    const p = call.principal;
    if (!p) return { ...guide, signedIn: null };
    const school = await findSchoolById(call.ctx.db, p.schoolId);
    return {
      ...guide,
      signedIn: {
        audience: p.audience,
        school: school ? { name: school.name, subdomain: school.subdomain } : null,
        scopes: formatScopes(p.scopes),
      },
    };
  },
  summarize: (out) =>
    out.signedIn
      ? `Signed in as ${out.signedIn.audience} of ${out.signedIn.school?.name ?? 'your school'} with: ${out.signedIn.scopes}. List the tools again to see what this unlocks.`
      : `Not signed in. Call how_to_authenticate with sign_in=true to sign in, or read ${out.walkthrough}.`,
});
