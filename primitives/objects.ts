/**
 * Kubernetes objects as plain JSON: their metadata, conditions and nested fields, read without a chain
 * of casts. Shared by the waiting core, which reads them from the API, and the simulator, which stores
 * them.
 */

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  [key: string]: unknown;
}

/** An object as an API answers it; `apiVersion` and `kind` are absent from the items of a typed list. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  [key: string]: unknown;
}

export type Json = Record<string, unknown>;

/** Reads a nested field without a chain of casts. */
export function field<T = unknown>(object: unknown, ...path: Array<string | number>): T | undefined {
  let cur: unknown = object;
  for (const p of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur as T | undefined;
}

/** A JSON object: not null, not an array. */
export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` if it is a JSON object, else an empty one. */
export function obj(value: unknown): Json {
  return isObject(value) ? value : {};
}

/** Structural equality of JSON values, ignoring key order and undefined members. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ao = a as Json;
  const bo = b as Json;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => Object.hasOwn(bo, k) && jsonEqual(ao[k], bo[k]));
}

/**
 * Orders objects by name as Go compares strings (byte by byte, which for the ASCII of Kubernetes names
 * is JavaScript's `<`), the order controllers list and report them in.
 */
export function byName(a: { metadata: { name: string } }, b: { metadata: { name: string } }): number {
  return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
}

export function labelsOf(object: KubeObject | undefined): Record<string, string> {
  return object?.metadata.labels ?? {};
}

export function annotationsOf(object: KubeObject | undefined): Record<string, string> {
  return object?.metadata.annotations ?? {};
}

/** The condition of `type` in a conditions list. */
export function getCondition<C extends Condition = Condition>(
  conditions: unknown,
  type: string,
): C | undefined {
  return Array.isArray(conditions) ? (conditions as C[]).find((c) => c.type === type) : undefined;
}

/** The condition of `type` in `status.conditions`. */
export function conditionOf(object: unknown, type: string): Condition | undefined {
  return getCondition(field(object, "status", "conditions"), type);
}
