/** Quotes an auth-param value (RFC 9110 §11.2 quoted-string). */
function quote(value: string): string {
  return `"${value.replace(/[\\"]/g, (ch) => `\\${ch}`).replace(/[\r\n]/g, ' ')}"`;
}

/**
 * RFC 6750 §3: error_description is limited to %x20-21 / %x23-5B / %x5D-7E (printable ASCII
 * without '"' and '\\'), whoever wrote the text.
 */
function describable(text: string): string {
  return text.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '');
}

/**
 * Builds the `WWW-Authenticate: Bearer …` challenge of RFC 6750 §3 with RFC 9728 §5.1's pointer
 * at the metadata of the resource that refused (`resourceMetadataUrl` in oauth/metadata/resource-param.ts).
 */
export function bearerChallenge(
  metadataUrl: string,
  options: { error?: string; description?: string; scope?: readonly string[] } = {},
): string {
  const params = [`resource_metadata=${quote(metadataUrl)}`];
  if (options.error) params.push(`error=${quote(options.error)}`);
  if (options.error && options.description) {
    params.push(`error_description=${quote(describable(options.description))}`);
  }
  if (options.scope && options.scope.length > 0) params.push(`scope=${quote(options.scope.join(' '))}`);
  return `Bearer ${params.join(', ')}`;
}
