/**
 * A `Content-Disposition` value naming a file (RFC 6266 §4.3): `filename` carries an ASCII
 * stand-in for old clients, `filename*` the real name in UTF-8 (RFC 8187). A header value must
 * be ByteString-safe, so a name outside ASCII ("Übersicht.pdf", "日本語.pdf") goes only in
 * `filename*`; putting it raw in `filename` made the response fail.
 */
export function contentDisposition(kind: 'inline' | 'attachment', filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
