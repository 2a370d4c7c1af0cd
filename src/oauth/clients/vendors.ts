/**
 * Vendor integrations (product.md §3, spec §5.2 item 1): the built-in list in vendors.json plus an
 * operator's VENDORS_FILE, validated with zod and kept in `oauth_clients` as kind 'vendor' with
 * fixed client_ids. Data, not code: operators add or correct vendors without a release.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import { ConfigError } from '../../config.ts';
import type { AppContext } from '../../http/context.ts';
import { isoNow } from '../../store/time.ts';
import { checkCimdUrl } from './cimd.ts';
import { CONSOLE_CLIENT_IDS, syncConsoleClients } from './console-clients.ts';
import { isHttpsRedirectUri, isLoopbackRedirectUri, MAX_REDIRECT_URI_LENGTH } from './redirect-uris.ts';

// RFC 8252 §7.1 private-use schemes (cursor://, windsurf://); never a scheme a browser executes.
const PRIVATE_USE = /^([a-z][a-z0-9+.-]*):\/?[\x21-\x7e]+$/;
const FORBIDDEN_SCHEMES = new Set([
  'http',
  'https',
  'javascript',
  'data',
  'file',
  'blob',
  'vbscript',
  'about',
  'ftp',
  'ws',
  'wss',
]);

function isVendorRedirectUri(uri: string): boolean {
  if (uri.includes('#') || uri.length > MAX_REDIRECT_URI_LENGTH) return false;
  if (isHttpsRedirectUri(uri) || isLoopbackRedirectUri(uri)) return true;
  const m = PRIVATE_USE.exec(uri);
  return !!m && !FORBIDDEN_SCHEMES.has(m[1]);
}

const vendorSchema = z.object({
  client_id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{1,63}$/, 'lowercase letters, digits and "-" (2-64 characters)'),
  client_name: z.string().trim().min(1).max(100),
  names: z.array(z.string().trim().min(1).max(100)).max(20).default([]),
  redirect_uris: z
    .array(
      z.string().refine(isVendorRedirectUri, 'must be https, loopback or a private-use scheme, no fragment'),
    )
    .max(50)
    .default([]),
  redirect_uri_prefixes: z
    .array(
      z
        .string()
        .refine(
          (p) =>
            isHttpsRedirectUri(p) && p.endsWith('/') && !p.includes('?') && new URL(p).pathname.length > 1,
          'must be an https URL with a path ending in "/" and no query',
        ),
    )
    .max(10)
    .default([]),
  metadata_document_urls: z
    .array(
      z.string().refine(isDocumentUrl, 'must be a canonical https URL with a path, no query or fragment'),
    )
    .max(10)
    .default([]),
  source: z.string().max(500).optional(),
});

function isDocumentUrl(url: string): boolean {
  try {
    checkCimdUrl(url, { allowedHosts: [], openRegistration: true });
    return true;
  } catch {
    return false;
  }
}

const vendorsFileSchema = z.object({ vendors: z.array(vendorSchema).max(200) });

/** One vendor integration as validated. */
export type Vendor = z.infer<typeof vendorSchema>;

function parseVendorList(text: string, origin: string): Vendor[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError(`${origin}: not valid JSON`);
  }
  const parsed = vendorsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${origin}: ${issue.path.join('.')}: ${issue.message}`);
  }
  for (const v of parsed.data.vendors) {
    if (v.redirect_uris.length === 0 && v.redirect_uri_prefixes.length === 0)
      throw new ConfigError(`${origin}: vendor ${v.client_id} has no redirect URI`);
  }
  return parsed.data.vendors;
}

const loaded = new WeakMap<Config, Vendor[]>();

/**
 * The built-in vendors, then VENDORS_FILE's: an entry with a built-in client_id replaces it, others
 * are added. Throws ConfigError on a bad file, so a deployment fails at start, not at first use.
 */
export function loadVendors(config: Config): Vendor[] {
  const cached = loaded.get(config);
  if (cached) return cached;
  const builtIn = parseVendorList(
    readFileSync(new URL('./vendors.json', import.meta.url), 'utf8'),
    'vendors.json',
  );
  const byId = new Map(builtIn.map((v) => [v.client_id, v]));
  if (config.vendorsFile) {
    let text: string;
    try {
      text = readFileSync(config.vendorsFile, 'utf8');
    } catch {
      throw new ConfigError(`VENDORS_FILE: cannot read ${config.vendorsFile}`);
    }
    for (const v of parseVendorList(text, `VENDORS_FILE ${config.vendorsFile}`)) byId.set(v.client_id, v);
  }
  const vendors = [...byId.values()];
  // The first-party consoles' client_ids belong to them (console-clients.ts).
  const reserved = vendors.find((v) => CONSOLE_CLIENT_IDS.includes(v.client_id));
  if (reserved) throw new ConfigError(`vendors: the client_id ${reserved.client_id} is reserved for Lectern`);
  const seen = new Map<string, string>();
  for (const v of vendors) {
    for (const name of vendorNames(v)) {
      const other = seen.get(name);
      if (other && other !== v.client_id)
        throw new ConfigError(`vendors: the name "${name}" belongs to both ${other} and ${v.client_id}`);
      seen.set(name, v.client_id);
    }
  }
  const urls = new Map<string, string>();
  for (const v of vendors) {
    for (const url of v.metadata_document_urls) {
      const other = urls.get(url);
      if (other)
        throw new ConfigError(
          `vendors: the metadata document ${url} belongs to both ${other} and ${v.client_id}`,
        );
      urls.set(url, v.client_id);
    }
  }
  loaded.set(config, vendors);
  return vendors;
}

function normaliseName(name: string): string {
  return name.trim().toLowerCase();
}

function vendorNames(v: Vendor): Set<string> {
  return new Set([v.client_name, ...v.names].map(normaliseName));
}

/** The vendor whose name matches `clientName`, case-insensitive and trimmed (product.md §3 rule 2). */
export function matchVendor(config: Config, clientName: string): Vendor | undefined {
  const wanted = normaliseName(clientName);
  if (!wanted) return undefined;
  return loadVendors(config).find((v) => vendorNames(v).has(wanted));
}

/**
 * Writes every vendor, and the first-party console clients, into `oauth_clients` (insert, or
 * update a row of the same kind); safe from several instances at once. Run once at start-up by
 * the runtime (runtime.ts), so client lookups only read.
 */
export async function ensureVendorClients(ctx: AppContext): Promise<void> {
  const now = isoNow();
  for (const v of loadVendors(ctx.config)) {
    const values = {
      kind: 'vendor' as const,
      name: v.client_name,
      token_endpoint_auth_method: 'none' as const,
      secret_hash: null,
      redirect_uris: JSON.stringify(v.redirect_uris),
      // A desktop app (loopback or private-use callback) is native; a web platform is not.
      application_type: v.redirect_uris.every(isHttpsRedirectUri) ? ('web' as const) : ('native' as const),
      reviewed: 1,
      metadata: JSON.stringify({
        vendor: v.client_id,
        redirect_uri_prefixes: v.redirect_uri_prefixes,
        names: v.names,
        source: v.source,
      }),
      metadata_fetched_at: null,
      metadata_expires_at: null,
      updated_at: now,
    };
    // The fixed client_id, and each metadata-document URL the vendor uses as client_id: those
    // are answered from this list, never fetched (the list is the operator's reviewed copy).
    for (const id of [v.client_id, ...v.metadata_document_urls]) {
      await ctx.db
        .insertInto('oauth_clients')
        .values({
          id,
          school_id: null,
          allowed_scopes: null,
          created_by_user_id: null,
          secret_rotated_at: null,
          created_at: now,
          ...values,
        })
        .onConflict((oc) =>
          oc
            .column('id')
            .doUpdateSet(values)
            // Never take over a loopback or member client; a fetched CIMD row becomes the vendor's.
            .where('oauth_clients.kind', 'in', id === v.client_id ? ['vendor'] : ['vendor', 'cimd']),
        )
        .execute();
    }
  }
  await syncConsoleClients(ctx);
}
