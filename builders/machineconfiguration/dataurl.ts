/**
 * RFC 2397 `data:` URLs for Ignition file contents.
 *
 * Encoding rule (the one butane uses, minus compression, so our output matches what OpenShift docs show):
 * - percent form `data:,<escaped>`, where every byte outside RFC 2396's unreserved set
 *   (`A-Z a-z 0-9 - _ . ! ~ * ' ( )`) becomes `%XX` with upper-case hex;
 * - base64 form `data:;base64,<standard base64 with padding>`;
 * - the shorter of the two wins, the percent form on a tie. Text stays readable in `oc get mc -o yaml`;
 *   binary and mostly non-ASCII contents (3 characters per escaped byte) go to base64.
 * The output depends only on the bytes, so the same contents always give the same URL.
 */

const UNRESERVED = /[A-Za-z0-9\-_.!~*'()]/;

function percentEncode(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && UNRESERVED.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

export function encodeDataUrl(contents: Uint8Array | string): string {
  const bytes = typeof contents === "string" ? Buffer.from(contents, "utf8") : Buffer.from(contents);
  const percent = `data:,${percentEncode(bytes)}`;
  const base64 = `data:;base64,${bytes.toString("base64")}`;
  return base64.length < percent.length ? base64 : percent;
}

export interface DecodedDataUrl {
  /** The media type as written (`text/plain;charset=utf-8`), empty when omitted. */
  mediaType: string;
  data: Buffer;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Decodes a `data:` URL, or explains why not. Stricter than the machine-config-daemon's decoder, so that
 * whatever passes here decodes there too: printable ASCII only, complete %XX escapes, padded base64.
 */
export function decodeDataUrl(url: string): DecodedDataUrl | { error: string } {
  if (!url.startsWith("data:")) return { error: "it does not start with data:" };
  const comma = url.indexOf(",");
  if (comma < 0) return { error: "it has no ',' before the data" };
  if (!/^[\x21-\x7e]*$/.test(url))
    return { error: "it holds spaces or non-ASCII characters that must be %-escaped" };
  const header = url.slice("data:".length, comma);
  const payload = url.slice(comma + 1);
  const isBase64 = header.endsWith(";base64");
  const mediaType = isBase64 ? header.slice(0, -";base64".length) : header;
  if (isBase64) {
    if (!BASE64.test(payload)) return { error: "its base64 data is not standard padded base64" };
    return { mediaType, data: Buffer.from(payload, "base64") };
  }
  if (/%(?![0-9A-Fa-f]{2})/.test(payload)) return { error: "it has a '%' that does not start a %XX escape" };
  const bytes: number[] = [];
  for (let i = 0; i < payload.length; i++) {
    if (payload[i] === "%") {
      bytes.push(parseInt(payload.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(payload.charCodeAt(i));
    }
  }
  return { mediaType, data: Buffer.from(bytes) };
}

/** Decodes standard padded base64, or returns undefined: Buffer.from would silently skip bad characters. */
export function decodeBase64(text: string): Buffer | undefined {
  return BASE64.test(text) ? Buffer.from(text, "base64") : undefined;
}
