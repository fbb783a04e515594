/**
 * The URL library (k8s.io/apiserver pkg/cel/library/urls.go): `url(s)`, `isURL(s)`, `getScheme()`,
 * `getHost()`, `getHostname()`, `getPort()`, `getEscapedPath()`, `getQuery()`. URLs parse as Go's
 * url.ParseRequestURI parses them: absolute URLs and absolute paths, no fragment.
 */
import { CelScalar, celFunc, celMethod, CelFunc, celMap } from "@bufbuild/cel";
import { opaque, payload } from "../opaque";

const { STRING, BOOL, DYN } = CelScalar;

interface ParsedUrl {
  scheme: string;
  host: string;
  path: string;
  rawQuery: string;
}

/** url.ParseRequestURI, for the parts the library reads; undefined when Go refuses the text. */
export function parseRequestUri(text: string): ParsedUrl | undefined {
  if (text.includes("#") || [...text].some((c) => c <= " " || c === "\u007f")) return undefined;
  const queryAt = text.indexOf("?");
  const rest = queryAt < 0 ? text : text.slice(0, queryAt);
  const rawQuery = queryAt < 0 ? "" : text.slice(queryAt + 1);
  if (rest.startsWith("/")) return { scheme: "", host: "", path: rest, rawQuery };
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/.exec(rest);
  if (!scheme) return undefined;
  const after = scheme[2];
  if (!after.startsWith("//")) {
    return after.startsWith("/") ? { scheme: scheme[1], host: "", path: after, rawQuery } : undefined;
  }
  const slash = after.indexOf("/", 2);
  const authority = slash < 0 ? after.slice(2) : after.slice(2, slash);
  const host = authority.slice(authority.lastIndexOf("@") + 1);
  if (/^\[/.test(host) ? !/^\[[0-9A-Fa-f:.]+(%[^\]]+)?\](:\d*)?$/.test(host) : /[[\]]/.test(host))
    return undefined;
  if (!/^(\[.*\]|[^:]*)(:\d*)?$/.test(host)) return undefined;
  return { scheme: scheme[1], host, path: slash < 0 ? "" : after.slice(slash), rawQuery };
}

const URL_TYPE = "kubernetes.URL";
const urlOf = (v: unknown, fn: string) => payload<ParsedUrl>(v, URL_TYPE, fn);

function hostParts(host: string): { hostname: string; port: string } {
  const bracket = /^\[(.*)\](?::(\d*))?$/.exec(host);
  if (bracket) return { hostname: bracket[1], port: bracket[2] ?? "" };
  const colon = host.lastIndexOf(":");
  return colon < 0
    ? { hostname: host, port: "" }
    : { hostname: host.slice(0, colon), port: host.slice(colon + 1) };
}

/** url.Values of a raw query: each key with its values in order. */
function queryValues(raw: string): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const part of raw.split(/[&]/)) {
    if (!part) continue;
    const eq = part.indexOf("=");
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, " "));
      } catch {
        return undefined;
      }
    };
    const key = decode(eq < 0 ? part : part.slice(0, eq));
    const value = decode(eq < 0 ? "" : part.slice(eq + 1));
    if (key === undefined || value === undefined) continue;
    values.set(key, [...(values.get(key) ?? []), value]);
  }
  return values;
}

export const URL_LIBRARY: CelFunc[] = [
  celFunc("url", [STRING], DYN, (s) => {
    const parsed = parseRequestUri(s);
    if (!parsed)
      throw new Error(
        `URL parse error during conversion from string: parse ${JSON.stringify(s)}: invalid URI for request`,
      );
    return opaque(URL_TYPE, parsed, s);
  }),
  celFunc("isURL", [STRING], BOOL, (s) => parseRequestUri(s) !== undefined),
  celMethod("getScheme", DYN, [], STRING, function () {
    return urlOf(this, "getScheme").scheme;
  }),
  celMethod("getHost", DYN, [], STRING, function () {
    return urlOf(this, "getHost").host;
  }),
  celMethod("getHostname", DYN, [], STRING, function () {
    return hostParts(urlOf(this, "getHostname").host).hostname;
  }),
  celMethod("getPort", DYN, [], STRING, function () {
    return hostParts(urlOf(this, "getPort").host).port;
  }),
  celMethod("getEscapedPath", DYN, [], STRING, function () {
    return urlOf(this, "getEscapedPath").path;
  }),
  celMethod("getQuery", DYN, [], DYN, function () {
    return celMap(queryValues(urlOf(this, "getQuery").rawQuery));
  }),
];

/** `string(url)`: the URL as written. */
export function urlString(value: unknown): string | undefined {
  try {
    const url = urlOf(value, "string");
    return `${url.scheme ? `${url.scheme}:` : ""}${url.host ? `//${url.host}` : ""}${url.path}${url.rawQuery ? `?${url.rawQuery}` : ""}`;
  } catch {
    return undefined;
  }
}
