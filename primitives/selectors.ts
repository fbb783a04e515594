/**
 * Label selectors (`metav1.LabelSelector`) with Kubernetes' semantics (apimachinery
 * `LabelSelectorAsSelector`): every matchLabels pair and every matchExpressions requirement must hold;
 * an empty selector selects everything, a missing (null) one nothing. A requirement Kubernetes would
 * refuse (In or NotIn without values, Exists or DoesNotExist with values, an unknown operator) makes the
 * selector select nothing, as the controllers do when the conversion fails.
 */
import { isLabelValue, isQualifiedName } from "./names";

export type LabelSelectorOperator = "In" | "NotIn" | "Exists" | "DoesNotExist";

export interface LabelSelectorRequirement {
  key: string;
  operator: LabelSelectorOperator;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export type Labels = Record<string, string>;

/**
 * No requirement at all. Several controllers (the MCO for pool node selectors and for KubeletConfig and
 * ContainerRuntimeConfig pool selectors, OLM) refuse to let an empty selector match everything: they
 * check this first.
 */
export function selectorIsEmpty(selector: LabelSelector | undefined | null): boolean {
  return (
    !selector ||
    (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0)
  );
}

function requirementIsValid(requirement: LabelSelectorRequirement): boolean {
  const count = (requirement.values ?? []).length;
  switch (requirement.operator) {
    case "In":
    case "NotIn":
      return count > 0;
    case "Exists":
    case "DoesNotExist":
      return count === 0;
    default:
      return false;
  }
}

/** One requirement against a label set; `requirementIsValid` has been checked. */
function requirementMatches(requirement: LabelSelectorRequirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case "In":
      return has && values.includes(labels[requirement.key]);
    case "NotIn":
      return !has || !values.includes(labels[requirement.key]);
    case "Exists":
      return has;
    case "DoesNotExist":
      return !has;
  }
}

/** Whether `labels` satisfy every requirement of `selector` (the requirements all hold for `{}`). */
export function selectorMatches(
  selector: LabelSelector | undefined | null,
  labels: Labels | undefined,
): boolean {
  if (!selector) return false;
  const set = labels ?? {};
  const expressions = selector.matchExpressions ?? [];
  if (!expressions.every(requirementIsValid)) return false;
  return (
    Object.entries(selector.matchLabels ?? {}).every(([k, v]) => Object.hasOwn(set, k) && set[k] === v) &&
    expressions.every((e) => requirementMatches(e, set))
  );
}

/** The selector as `metav1.LabelSelectorAsSelector(...).String()` prints it, for messages. */
export function selectorString(selector: LabelSelector | undefined | null): string {
  if (!selector) return "";
  const parts: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) parts.push([k, `${k}=${v}`]);
  for (const e of selector.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(",");
    const text = {
      In: `${e.key} in (${values})`,
      NotIn: `${e.key} notin (${values})`,
      Exists: e.key,
      DoesNotExist: `!${e.key}`,
    }[e.operator];
    parts.push([e.key, text]);
  }
  return parts
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, t]) => t)
    .join(",");
}

/**
 * The selector as a `labelSelector` query parameter, set-based terms included (`a in (x,y)`, `a notin
 * (x)`, `a`, `!a`: apimachinery labels.Parse reads what `LabelSelectorAsSelector(...).String()`
 * prints), so that the API server returns only the objects it selects. Undefined for a selector with
 * no requirement, which callers must not send as "everything" (the MCO's pools manage no node then),
 * and for one `LabelSelectorAsSelector` refuses (an invalid requirement, key or value: `NewRequirement`
 * validates them), which selects nothing.
 */
export function labelSelectorQuery(selector: LabelSelector | undefined | null): string | undefined {
  if (!selector || selectorIsEmpty(selector)) return undefined;
  const expressions = selector.matchExpressions ?? [];
  const keys = [...Object.keys(selector.matchLabels ?? {}), ...expressions.map((e) => e.key)];
  const values = [
    ...Object.values(selector.matchLabels ?? {}),
    ...expressions.flatMap((e) => e.values ?? []),
  ];
  const valid =
    expressions.every(requirementIsValid) && keys.every(isQualifiedName) && values.every(isLabelValue);
  return valid ? selectorString(selector) : undefined;
}
