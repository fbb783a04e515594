import { isLabelValue, isQualifiedName } from "../../primitives/names";
import { LabelSelectorRequirement, selectorMatches } from "../../primitives/selectors";
import { KubeObject } from "../store";

/** A parse failure; the server answers 400 BadRequest with this message. */
export class SelectorError extends Error {}

export type Selector = (labels: Record<string, string> | undefined) => boolean;

function checkKey(key: string, selector: string): string {
  if (!isQualifiedName(key))
    throw new SelectorError(`unable to parse requirement: invalid label key "${key}" in "${selector}"`);
  return key;
}

function checkValue(value: string, selector: string): string {
  if (!isLabelValue(value)) {
    throw new SelectorError(`unable to parse requirement: invalid label value: "${value}" in "${selector}"`);
  }
  return value;
}

/** Splits on commas that are not inside a `(...)` value set. */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of selector) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      terms.push(current);
      current = "";
    } else {
      current += ch;
    }
  }
  terms.push(current);
  return terms.map((t) => t.trim());
}

/** Parses a label selector with equality (`a=b`, `a==b`, `a!=b`) and set-based terms (`a in (x,y)`, `a notin (x)`, `a`, `!a`). */
export function parseLabelSelector(selector: string): Selector {
  const requirements: LabelSelectorRequirement[] = [];
  if (selector.trim() !== "") {
    for (const term of splitTerms(selector)) {
      let m: RegExpExecArray | null;
      if (term === "") throw new SelectorError(`found '', expected: identifier in "${selector}"`);
      if ((m = /^(\S+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(term))) {
        const values = m[3].split(",").map((v) => checkValue(v.trim(), selector));
        requirements.push({
          key: checkKey(m[1], selector),
          operator: m[2] === "in" ? "In" : "NotIn",
          values,
        });
      } else if ((m = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term))) {
        requirements.push({
          key: checkKey(m[1], selector),
          operator: m[2] === "!=" ? "NotIn" : "In",
          values: [checkValue(m[3], selector)],
        });
      } else if ((m = /^!\s*(\S+)$/.exec(term))) {
        requirements.push({ key: checkKey(m[1], selector), operator: "DoesNotExist" });
      } else if (/^\S+$/.test(term)) {
        requirements.push({ key: checkKey(term, selector), operator: "Exists" });
      } else {
        throw new SelectorError(`unable to parse requirement: "${term}" in "${selector}"`);
      }
    }
  }
  // Equality terms are one-value set terms, as apimachinery's labels.Requirement treats them.
  return (labels) => selectorMatches({ matchExpressions: requirements }, labels);
}

/** Field selectors every kind supports; kinds add their own (see `FIELD_SELECTORS`). */
const COMMON_FIELDS = ["metadata.name", "metadata.namespace"];

/** Extra selectable fields of built-in kinds, as their registries declare them. */
export const FIELD_SELECTORS: Record<string, string[]> = {
  Pod: [
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
  ],
  Event: [
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
  ],
  Secret: ["type"],
  Namespace: ["status.phase"],
  Node: ["spec.unschedulable"],
};

function fieldValue(object: KubeObject, path: string): string {
  if (path === "metadata.namespace") return object.metadata.namespace ?? "";
  if (path === "source") {
    const source = (object as { source?: { component?: unknown } }).source;
    return typeof source?.component === "string" ? source.component : "";
  }
  let cursor: unknown = object;
  for (const key of path.split(".")) {
    cursor =
      cursor !== null && typeof cursor === "object" ? (cursor as Record<string, unknown>)[key] : undefined;
  }
  if (cursor === undefined || cursor === null) return path === "spec.unschedulable" ? "false" : "";
  return typeof cursor === "object" ? JSON.stringify(cursor) : String(cursor);
}

/** Parses a field selector (`=`, `==`, `!=` terms) over the fields `kind` supports. */
export function parseFieldSelector(selector: string, kind = ""): (object: KubeObject) => boolean {
  const supported = [...COMMON_FIELDS, ...(FIELD_SELECTORS[kind] ?? [])];
  const terms: Array<{ field: string; negate: boolean; value: string }> = [];
  if (selector.trim() !== "") {
    for (const term of selector.split(",")) {
      const m = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(term);
      if (!m) throw new SelectorError(`invalid selector: '${selector}'; can't understand '${term}'`);
      if (!supported.includes(m[1])) throw new SelectorError(`field label not supported: ${m[1]}`);
      terms.push({ field: m[1], negate: m[2] === "!=", value: m[3] });
    }
  }
  return (object) => terms.every((t) => (fieldValue(object, t.field) === t.value) !== t.negate);
}
