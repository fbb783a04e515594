/**
 * The name rules of Kubernetes' apimachinery validation (`IsDNS1123Label`, `IsDNS1123Subdomain`,
 * `IsQualifiedName`, `IsValidLabelValue`), as predicates: callers word their own errors.
 */

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** An RFC 1123 label of 1-63 characters: a namespace, a node role. */
export function isDnsLabel(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= 63 && DNS_LABEL.test(value);
}

/** An RFC 1123 subdomain of 1-253 characters: the name of most objects. */
export function isDnsSubdomain(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= 253 && DNS_SUBDOMAIN.test(value);
}

/** A label or annotation key: an optional DNS-subdomain prefix and `/`, then a name of 1-63 characters. */
export function isQualifiedName(value: unknown): value is string {
  if (typeof value !== "string") return false;
  const slash = value.indexOf("/");
  const name = slash < 0 ? value : value.slice(slash + 1);
  if (slash >= 0 && !isDnsSubdomain(value.slice(0, slash))) return false;
  return name.length <= 63 && NAME_PART.test(name);
}

/** A label value: empty, or up to 63 letters, digits, `-`, `_`, `.` starting and ending alphanumeric. */
export function isLabelValue(value: unknown): value is string {
  return typeof value === "string" && value.length <= 63 && LABEL_VALUE.test(value);
}

/** Levenshtein distance: how many single-letter edits turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length];
}

/** The known name closest to `name`, when it is close enough to be a typo. */
export function closest(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(name.length / 4)) ? best.name : undefined;
}
