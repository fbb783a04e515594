/**
 * The IP and CIDR libraries (k8s.io/apiserver pkg/cel/library/ip.go and cidr.go): `ip(s)`, `isIP(s)`,
 * `ip.isCanonical(s)`, `family()`, `isUnspecified()`, `isLoopback()`, `isLinkLocalMulticast()`,
 * `isLinkLocalUnicast()`, `isGlobalUnicast()`; `cidr(s)`, `isCIDR(s)`, `containsIP()`, `containsCIDR()`,
 * `ip()`, `masked()`, `prefixLength()`; `string()` of both. Parsing is Go's netip.ParseAddr and
 * ParsePrefix (no leading zeros in IPv4, no zones in prefixes), and Kubernetes refuses zones and
 * IPv4-mapped IPv6 addresses.
 */
import { CelScalar, celFunc, celMethod, CelFunc } from "@bufbuild/cel";
import { opaque, payload } from "../opaque";

const { STRING, BOOL, INT, DYN } = CelScalar;

/** An address as netip holds it: 4 or 16 bytes, and the zone it was written with. */
export interface Addr {
  bytes: number[];
  zone: string;
}

function parseIPv4(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((p) => (/^(0|[1-9]\d{0,2})$/.test(p) ? Number(p) : 256));
  return bytes.every((b) => b <= 255) ? bytes : undefined;
}

function parseIPv6(text: string): number[] | undefined {
  const lastColon = text.lastIndexOf(":");
  let source = text;
  if (text.slice(lastColon + 1).includes(".")) {
    const v4 = parseIPv4(text.slice(lastColon + 1));
    if (!v4) return undefined;
    const hex = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);
    source = `${text.slice(0, lastColon + 1)}${hex(v4[0], v4[1])}:${hex(v4[2], v4[3])}`;
  }
  const halves = source.split("::");
  if (halves.length > 2) return undefined;
  const groups = (part: string) =>
    part === "" ? [] : part.split(":").map((g) => (/^[0-9a-fA-F]{1,4}$/.test(g) ? parseInt(g, 16) : -1));
  const left = groups(halves[0]);
  const right = halves.length === 2 ? groups(halves[1]) : [];
  if ([...left, ...right].some((g) => g < 0)) return undefined;
  const missing = 8 - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...left, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...right];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

/** netip.ParseAddr. */
export function parseAddr(text: string): Addr | undefined {
  if (!text.includes(":")) {
    const bytes = parseIPv4(text);
    return bytes && { bytes, zone: "" };
  }
  const percent = text.indexOf("%");
  const zone = percent < 0 ? "" : text.slice(percent + 1);
  if (percent >= 0 && zone === "") return undefined;
  const bytes = parseIPv6(percent < 0 ? text : text.slice(0, percent));
  return bytes && { bytes, zone };
}

const is4In6 = (a: Addr) =>
  a.bytes.length === 16 &&
  a.bytes.slice(0, 10).every((b) => b === 0) &&
  a.bytes[10] === 255 &&
  a.bytes[11] === 255;

/** netip.Addr.String: dotted IPv4, RFC 5952 IPv6 (longest run of two or more zero groups as `::`). */
export function addrString(a: Addr): string {
  if (a.bytes.length === 4) return a.bytes.join(".");
  const groups = Array.from({ length: 8 }, (_, i) => (a.bytes[2 * i] << 8) | a.bytes[2 * i + 1]);
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length && j - i >= 2) best = { start: i, length: j - i };
    i = j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(":");
  const text =
    best.start < 0
      ? hex(groups)
      : `${hex(groups.slice(0, best.start))}::${hex(groups.slice(best.start + best.length))}`;
  return a.zone ? `${text}%${a.zone}` : text;
}

/** The address Kubernetes accepts, or the error `ip()` returns (ip.go, parseIPAddr). */
function kubernetesAddr(text: string): Addr | string {
  const addr = parseAddr(text);
  if (!addr)
    return `IP Address ${JSON.stringify(text)} parse error during conversion from string: ParseAddr(${JSON.stringify(text)}): unable to parse IP`;
  if (addr.zone) return `IP address ${JSON.stringify(text)} with zone value is not allowed`;
  if (is4In6(addr)) return `IPv4-mapped IPv6 address ${JSON.stringify(text)} is not allowed`;
  return addr;
}

const IP = "net.IP";
const CIDR = "net.CIDR";

const ipValue = (a: Addr) => opaque(IP, a, addrString(a));

function toAddr(text: string): Addr {
  const addr = kubernetesAddr(text);
  if (typeof addr === "string") throw new Error(addr);
  return addr;
}

interface Prefix {
  addr: Addr;
  bits: number;
}

/** netip.ParsePrefix, with the Kubernetes refusals of ip.go. */
function kubernetesPrefix(text: string): Prefix | string {
  const slash = text.lastIndexOf("/");
  const fail = `network address parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(text)}): ${slash < 0 ? "no '/'" : "bad bits after slash"}`;
  if (slash < 0) return fail;
  const bitsText = text.slice(slash + 1);
  const addr = parseAddr(text.slice(0, slash));
  if (!addr || addr.zone) return fail;
  if (!/^(0|[1-9]\d*)$/.test(bitsText) || Number(bitsText) > addr.bytes.length * 8) return fail;
  if (is4In6(addr)) return `IPv4-mapped IPv6 address ${JSON.stringify(text)} is not allowed`;
  return { addr, bits: Number(bitsText) };
}

function maskedAddr(p: Prefix): Addr {
  const bytes = p.addr.bytes.map((b, i) => {
    const keep = Math.max(0, Math.min(8, p.bits - 8 * i));
    return b & ((0xff << (8 - keep)) & 0xff);
  });
  return { bytes, zone: "" };
}

const prefixString = (p: Prefix) => `${addrString(p.addr)}/${p.bits}`;
const cidrValue = (p: Prefix) => opaque(CIDR, p, prefixString(p));

function toPrefix(text: string): Prefix {
  const prefix = kubernetesPrefix(text);
  if (typeof prefix === "string") throw new Error(prefix);
  return prefix;
}

function contains(p: Prefix, a: Addr): boolean {
  if (a.bytes.length !== p.addr.bytes.length) return false;
  const masked = maskedAddr(p);
  return addrString(maskedAddr({ addr: a, bits: p.bits })) === addrString(masked);
}

const inRange = (a: Addr, first: number[], bits: number) =>
  a.bytes.length === first.length && contains({ addr: { bytes: first, zone: "" }, bits }, a);

/** netip.Addr predicates. */
const isLoopback = (a: Addr) =>
  a.bytes.length === 4 ? a.bytes[0] === 127 : a.bytes.slice(0, 15).every((b) => b === 0) && a.bytes[15] === 1;
const isUnspecified = (a: Addr) => a.bytes.every((b) => b === 0);
const isLinkLocalUnicast = (a: Addr) =>
  a.bytes.length === 4
    ? a.bytes[0] === 169 && a.bytes[1] === 254
    : a.bytes[0] === 0xfe && (a.bytes[1] & 0xc0) === 0x80;
const isLinkLocalMulticast = (a: Addr) =>
  a.bytes.length === 4
    ? a.bytes[0] === 224 && a.bytes[1] === 0 && a.bytes[2] === 0
    : a.bytes[0] === 0xff && (a.bytes[1] & 0x0f) === 0x02;
const isMulticast = (a: Addr) => (a.bytes.length === 4 ? (a.bytes[0] & 0xf0) === 0xe0 : a.bytes[0] === 0xff);
const isGlobalUnicast = (a: Addr) =>
  !isUnspecified(a) &&
  !isLoopback(a) &&
  !isMulticast(a) &&
  !isLinkLocalUnicast(a) &&
  !(a.bytes.length === 4 && inRange(a, [255, 255, 255, 255], 32));

const ipOf = (v: unknown, fn: string) => payload<Addr>(v, IP, fn);
const cidrOf = (v: unknown, fn: string) => payload<Prefix>(v, CIDR, fn);
const addrArg = (v: unknown, fn: string) => (typeof v === "string" ? toAddr(v) : ipOf(v, fn));
const prefixArg = (v: unknown, fn: string) => (typeof v === "string" ? toPrefix(v) : cidrOf(v, fn));

export const NET_LIBRARY: CelFunc[] = [
  celFunc("ip", [STRING], DYN, (s) => ipValue(toAddr(s))),
  celFunc("isIP", [STRING], BOOL, (s) => typeof kubernetesAddr(s) !== "string"),
  celFunc("ip.isCanonical", [STRING], BOOL, (s) => {
    const addr = toAddr(s);
    return addrString(addr) === s;
  }),
  celMethod("family", DYN, [], INT, function () {
    return ipOf(this, "family").bytes.length === 4 ? 4n : 6n;
  }),
  celMethod("isUnspecified", DYN, [], BOOL, function () {
    return isUnspecified(ipOf(this, "isUnspecified"));
  }),
  celMethod("isLoopback", DYN, [], BOOL, function () {
    return isLoopback(ipOf(this, "isLoopback"));
  }),
  celMethod("isLinkLocalMulticast", DYN, [], BOOL, function () {
    return isLinkLocalMulticast(ipOf(this, "isLinkLocalMulticast"));
  }),
  celMethod("isLinkLocalUnicast", DYN, [], BOOL, function () {
    return isLinkLocalUnicast(ipOf(this, "isLinkLocalUnicast"));
  }),
  celMethod("isGlobalUnicast", DYN, [], BOOL, function () {
    return isGlobalUnicast(ipOf(this, "isGlobalUnicast"));
  }),
  celFunc("cidr", [STRING], DYN, (s) => cidrValue(toPrefix(s))),
  celFunc("isCIDR", [STRING], BOOL, (s) => typeof kubernetesPrefix(s) !== "string"),
  celMethod("containsIP", DYN, [DYN], BOOL, function (ip) {
    return contains(cidrOf(this, "containsIP"), addrArg(ip, "containsIP"));
  }),
  celMethod("containsCIDR", DYN, [DYN], BOOL, function (other) {
    const outer = cidrOf(this, "containsCIDR");
    const inner = prefixArg(other, "containsCIDR");
    return inner.bits >= outer.bits && contains(outer, inner.addr);
  }),
  celMethod("ip", DYN, [], DYN, function () {
    return ipValue(cidrOf(this, "ip").addr);
  }),
  celMethod("masked", DYN, [], DYN, function () {
    const p = cidrOf(this, "masked");
    return cidrValue({ addr: maskedAddr(p), bits: p.bits });
  }),
  celMethod("prefixLength", DYN, [], INT, function () {
    return BigInt(cidrOf(this, "prefixLength").bits);
  }),
];

/** `string(ip)` and `string(cidr)`. */
export function netString(value: unknown): string | undefined {
  try {
    return addrString(ipOf(value, "string"));
  } catch {
    try {
      return prefixString(cidrOf(value, "string"));
    } catch {
      return undefined;
    }
  }
}
