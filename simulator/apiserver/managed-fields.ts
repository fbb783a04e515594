/**
 * Field ownership for server-side apply, after the model of sigs.k8s.io/structured-merge-diff: each
 * manager owns a set of field paths (`f:spec`, `f:replicas`, list elements `k:{"name":"x"}` or set values
 * `v:"a"`), recorded in `metadata.managedFields` as FieldsV1. Apply merges the applied configuration,
 * removes what the manager applied before but no longer does (unless someone else owns it) and reports
 * conflicts with other managers; other writes take over the fields they change.
 */
import { jsonEqual } from "../../primitives/objects";
import { isObject } from "../../primitives/objects";
import { JSONSchemaProps } from "../schema";
import { setOwn } from "./patch";
import { kubeTimestamp } from "../store/memory-store";
import { KubeObject } from "../store";

type JsonObject = Record<string, unknown>;
type Path = string[];

/** How a list at some path merges. */
export type ListType = { type: "atomic" } | { type: "set" } | { type: "map"; keys: string[] };

/** Resolves the list type at a path of field names (list elements are skipped in the path). */
export type ListTypes = (fieldPath: string[]) => ListType;

/** List types from a CRD schema: `x-kubernetes-list-type`, atomic by default as for custom resources. */
export function schemaListTypes(schema: JSONSchemaProps | undefined): ListTypes {
  return (fieldPath) => {
    let node = schema;
    for (const name of fieldPath) {
      if (!node) break;
      while (node?.items) node = node.items;
      node =
        node?.properties?.[name] ??
        (isObject(node?.additionalProperties) ? (node?.additionalProperties as JSONSchemaProps) : undefined);
    }
    const type = node?.["x-kubernetes-list-type"];
    if (type === "set") return { type: "set" };
    if (type === "map" && node?.["x-kubernetes-list-map-keys"]?.length)
      return { type: "map", keys: node["x-kubernetes-list-map-keys"] };
    return { type: "atomic" };
  };
}

/** List types of built-in kinds (their Go patch strategies), atomic otherwise. */
export function builtinListTypes(fieldPath: string[]): ListType {
  const path = fieldPath.join(".");
  const keys: Record<string, string | null> = {
    "metadata.ownerReferences": "uid",
    "metadata.finalizers": null,
    "status.conditions": "type",
    "status.addresses": "type",
    "spec.podCIDRs": null,
  };
  if (Object.hasOwn(keys, path)) {
    const key = keys[path];
    return key === null ? { type: "set" } : { type: "map", keys: [key] };
  }
  if (/(^|\.)(containers|initContainers|volumes|env)$/.test(path)) return { type: "map", keys: ["name"] };
  return { type: "atomic" };
}

const METADATA_TRACKED = new Set(["labels", "annotations", "finalizers", "ownerReferences"]);

/** Which top-level fields a write through the main resource or the status subresource may own. */
export type Scope = "main" | "status" | "all";

function topLevelTracked(key: string, scope: Scope): boolean {
  if (key === "apiVersion" || key === "kind") return false;
  if (scope === "status") return key === "status" || key === "metadata";
  if (scope === "main") return key !== "status";
  return true;
}

function elementToken(item: unknown, keys: string[]): string {
  const identity: JsonObject = {};
  for (const k of keys) if (isObject(item) && item[k] !== undefined) identity[k] = item[k];
  return `k:${JSON.stringify(identity)}`;
}

const SEP = "\u0001";

/** The set of field paths a value sets. Exposed for tests. */
export function fieldSet(object: JsonObject, types: ListTypes, scope: Scope): Set<string> {
  const out = new Set<string>();
  const walk = (value: unknown, path: Path, names: string[]): void => {
    if (isObject(value)) {
      const entries = Object.entries(value);
      if (entries.length === 0 && path.length > 0) out.add(path.join(SEP));
      for (const [k, v] of entries) walk(v, [...path, `f:${k}`], [...names, k]);
      return;
    }
    if (Array.isArray(value)) {
      const type = types(names);
      if (type.type === "atomic") {
        out.add(path.join(SEP));
      } else if (type.type === "set") {
        for (const item of value) out.add([...path, `v:${JSON.stringify(item)}`].join(SEP));
      } else {
        for (const item of value) {
          const elementPath = [...path, elementToken(item, type.keys)];
          out.add(elementPath.join(SEP));
          walk(item, elementPath, names);
        }
      }
      return;
    }
    out.add(path.join(SEP));
  };
  for (const [key, value] of Object.entries(object)) {
    if (!topLevelTracked(key, scope)) continue;
    if (key === "metadata") {
      if (scope === "status" || !isObject(value)) continue;
      for (const [mk, mv] of Object.entries(value)) {
        if (METADATA_TRACKED.has(mk)) walk(mv, ["f:metadata", `f:${mk}`], ["metadata", mk]);
      }
      continue;
    }
    walk(value, [`f:${key}`], [key]);
  }
  return out;
}

/** Finds the node a path names; `undefined` when absent. */
function nodeAt(root: unknown, path: Path): { found: boolean; value?: unknown } {
  let cursor: unknown = root;
  for (const token of path) {
    const kind = token.slice(0, 2);
    const rest = token.slice(2);
    if (kind === "f:") {
      if (!isObject(cursor) || !Object.hasOwn(cursor, rest)) return { found: false };
      cursor = cursor[rest];
    } else if (kind === "k:") {
      if (!Array.isArray(cursor)) return { found: false };
      const identity = JSON.parse(rest) as JsonObject;
      const item = cursor.find(
        (c) => isObject(c) && Object.entries(identity).every(([k, v]) => jsonEqual(c[k], v)),
      );
      if (item === undefined) return { found: false };
      cursor = item;
    } else if (kind === "v:") {
      if (!Array.isArray(cursor)) return { found: false };
      const wanted = JSON.parse(rest) as unknown;
      if (!cursor.some((c) => jsonEqual(c, wanted))) return { found: false };
      cursor = wanted;
    } else {
      return { found: false };
    }
  }
  return { found: true, value: cursor };
}

function removeNode(root: unknown, path: Path): void {
  if (path.length === 0) return;
  const parent = nodeAt(root, path.slice(0, -1));
  if (!parent.found) return;
  const token = path[path.length - 1];
  const rest = token.slice(2);
  const container = parent.value;
  if (token.startsWith("f:") && isObject(container)) {
    delete container[rest];
  } else if (token.startsWith("k:") && Array.isArray(container)) {
    const identity = JSON.parse(rest) as JsonObject;
    const index = container.findIndex(
      (c) => isObject(c) && Object.entries(identity).every(([k, v]) => jsonEqual(c[k], v)),
    );
    if (index >= 0) container.splice(index, 1);
  } else if (token.startsWith("v:") && Array.isArray(container)) {
    const wanted = JSON.parse(rest) as unknown;
    const index = container.findIndex((c) => jsonEqual(c, wanted));
    if (index >= 0) container.splice(index, 1);
  }
}

/**
 * After an apply drops fields, the maps and lists that held only them go too, as structured-merge-diff's
 * Updater.prune removes the named fields above the last applied set (EnsureNamedFieldsAreMembers) that no
 * manager still holds anything under: releasing `nodePlacement.nodeSelector.matchLabels.a` leaves no
 * `nodePlacement: {nodeSelector: {matchLabels: {}}}`. A map that still holds anything stays; so does
 * `metadata`, and a map someone applied empty on purpose.
 */
function removeEmptiedParents(root: unknown, dropped: string[], held: (path: string) => boolean): void {
  const parents = new Set<string>();
  for (const path of dropped) {
    const tokens = path.split(SEP);
    for (let depth = tokens.length - 1; depth >= 1; depth--) {
      const parent = tokens.slice(0, depth);
      if (parent[parent.length - 1].startsWith("f:") && parent.join(SEP) !== "f:metadata")
        parents.add(parent.join(SEP));
    }
  }
  const deepestFirst = [...parents].sort((a, b) => b.split(SEP).length - a.split(SEP).length);
  for (const path of deepestFirst) {
    const tokens = path.split(SEP);
    const node = nodeAt(root, tokens);
    const empty =
      (isObject(node.value) && Object.keys(node.value).length === 0) ||
      (Array.isArray(node.value) && node.value.length === 0);
    if (node.found && empty && !held(path)) removeNode(root, tokens);
  }
}

/** Merges an applied configuration into the live object, honouring list types. */
export function mergeApplied(
  live: unknown,
  applied: unknown,
  types: ListTypes,
  names: string[] = [],
): unknown {
  if (isObject(applied)) {
    const result: JsonObject = isObject(live) ? { ...live } : {};
    for (const [k, v] of Object.entries(applied))
      setOwn(result, k, mergeApplied(result[k], v, types, [...names, k]));
    return result;
  }
  if (Array.isArray(applied)) {
    const type = types(names);
    if (type.type === "atomic" || !Array.isArray(live)) return structuredClone(applied);
    if (type.type === "set") {
      return [...live, ...applied.filter((a) => !live.some((l) => jsonEqual(l, a)))];
    }
    const result = [...live];
    for (const item of applied) {
      const token = elementToken(item, type.keys);
      const identity = JSON.parse(token.slice(2)) as JsonObject;
      const index = result.findIndex(
        (c) => isObject(c) && Object.entries(identity).every(([k, v]) => jsonEqual(c[k], v)),
      );
      if (index >= 0) result[index] = mergeApplied(result[index], item, types, names);
      else result.push(structuredClone(item));
    }
    return result;
  }
  return structuredClone(applied);
}

export interface ManagedFieldsEntry {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  time?: string;
  fieldsType: "FieldsV1";
  fieldsV1: JsonObject;
  subresource?: string;
}

interface Ownership {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  subresource?: string;
  time?: string;
  fields: Set<string>;
}

function toFieldsV1(fields: Set<string>): JsonObject {
  const root: JsonObject = {};
  for (const path of [...fields].sort()) {
    let cursor = root;
    const tokens = path.split(SEP);
    tokens.forEach((token, i) => {
      cursor[token] ??= {};
      cursor = cursor[token] as JsonObject;
      if (i === tokens.length - 1 && token.startsWith("k:")) cursor["."] = {};
    });
  }
  return root;
}

function fromFieldsV1(node: unknown, prefix: Path = [], out = new Set<string>()): Set<string> {
  if (!isObject(node)) return out;
  const keys = Object.keys(node);
  if (keys.length === 0 && prefix.length > 0) out.add(prefix.join(SEP));
  for (const key of keys) {
    if (key === ".") out.add(prefix.join(SEP));
    else fromFieldsV1(node[key], [...prefix, key], out);
  }
  return out;
}

function readOwnership(object: KubeObject | undefined): Ownership[] {
  const entries = (object?.metadata.managedFields ?? []) as ManagedFieldsEntry[];
  if (!Array.isArray(entries)) return [];
  return entries
    .filter((e) => isObject(e) && typeof e.manager === "string")
    .map((e) => ({
      manager: e.manager,
      operation: e.operation === "Apply" ? "Apply" : "Update",
      apiVersion: e.apiVersion,
      subresource: e.subresource,
      time: e.time,
      fields: fromFieldsV1(e.fieldsV1),
    }));
}

function writeOwnership(object: KubeObject, owners: Ownership[]): void {
  const entries: ManagedFieldsEntry[] = owners
    .filter((o) => o.fields.size > 0)
    .map((o) => {
      const entry: ManagedFieldsEntry = {
        manager: o.manager,
        operation: o.operation,
        apiVersion: o.apiVersion,
        time: o.time,
        fieldsType: "FieldsV1",
        fieldsV1: toFieldsV1(o.fields),
      };
      if (o.subresource) entry.subresource = o.subresource;
      return entry;
    });
  if (entries.length > 0) object.metadata.managedFields = entries;
  else delete object.metadata.managedFields;
}

/** `.spec.replicas` / `.spec.taints[key="a"]`, as conflict messages print paths. */
export function describePath(path: string): string {
  return path
    .split(SEP)
    .map((token) => {
      const rest = token.slice(2);
      if (token.startsWith("f:")) return `.${rest}`;
      if (token.startsWith("v:")) return `[${rest}]`;
      const identity = JSON.parse(rest) as JsonObject;
      return `[${Object.entries(identity)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(",")}]`;
    })
    .join("");
}

export interface Conflict {
  /** The conflicting manager as kube-apiserver prints it (`"m" using v1 at <time>` for an Update). */
  manager: string;
  field: string;
}

/** As kube-apiserver's printManager: subresource, and for updates the apiVersion and time. */
function printManager(owner: Ownership): string {
  let printed = JSON.stringify(owner.manager);
  if (owner.subresource) printed += ` with subresource ${JSON.stringify(owner.subresource)}`;
  if (owner.operation === "Update")
    printed += ` using ${owner.apiVersion}${owner.time ? ` at ${owner.time}` : ""}`;
  return printed;
}

export class ApplyConflictError extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super(ApplyConflictError.message(conflicts));
  }

  /** kube-apiserver's wording: one conflict inline, several grouped by manager (sorted). */
  private static message(conflicts: Conflict[]): string {
    if (conflicts.length === 1)
      return `Apply failed with 1 conflict: conflict with ${conflicts[0].manager}: ${conflicts[0].field}`;
    const byManager = new Map<string, string[]>();
    for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.field]);
    const lines = [...byManager.keys()]
      .sort()
      .flatMap((m) => [`conflicts with ${m}:`, ...byManager.get(m)!.map((f) => `- ${f}`)]);
    return `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
  }
}

export interface ApplyOptions {
  manager: string;
  force: boolean;
  types: ListTypes;
  scope: Scope;
  subresource?: string;
  now: Date;
}

/** The manager kube-apiserver records for what an object held before its first apply. */
export const BEFORE_FIRST_APPLY = "before-first-apply";

/**
 * An object that no manager owns yet (written before managedFields were tracked) as the first apply
 * sees it: every field it holds owned by "before-first-apply" through an update from the empty object,
 * so that applying another value conflicts and releasing a field gives the earlier one back to nobody
 * (apimachinery, pkg/util/managedfields/internal/skipnonapplied.go, skipNonAppliedManager.Apply).
 */
function firstApplied(live: KubeObject, options: ApplyOptions): KubeObject {
  if (readOwnership(live).length > 0) return live;
  const seeded = structuredClone(live);
  delete seeded.metadata.managedFields;
  trackUpdate(undefined, seeded, { ...options, manager: BEFORE_FIRST_APPLY, subresource: undefined });
  return seeded;
}

/**
 * Server-side apply of `applied` onto `live` (undefined for a create). Returns the new object with
 * updated managedFields; throws ApplyConflictError unless `force`.
 */
export function serverSideApply(
  live: KubeObject | undefined,
  applied: KubeObject,
  options: ApplyOptions,
): KubeObject {
  const { manager, types, scope } = options;
  const owners = readOwnership(live && firstApplied(live, options));
  const appliedFields = fieldSet(applied, types, scope);
  const isMine = (o: Ownership) =>
    o.manager === manager && o.operation === "Apply" && o.subresource === options.subresource;
  if (live) {
    const conflicts: Conflict[] = [];
    for (const owner of owners) {
      if (isMine(owner)) continue;
      for (const path of appliedFields) {
        if (!owner.fields.has(path)) continue;
        const tokens = path.split(SEP);
        const current = nodeAt(live, tokens);
        const wanted = nodeAt(applied, tokens);
        const leaf = !tokens[tokens.length - 1].startsWith("k:");
        if (current.found && leaf && !jsonEqual(current.value, wanted.value)) {
          conflicts.push({ manager: printManager(owner), field: describePath(path) });
        }
      }
    }
    if (conflicts.length > 0 && !options.force) throw new ApplyConflictError(conflicts);
    if (options.force) {
      for (const owner of owners) {
        if (isMine(owner)) continue;
        for (const path of appliedFields) {
          const tokens = path.split(SEP);
          if (
            owner.fields.has(path) &&
            !jsonEqual(nodeAt(live, tokens).value, nodeAt(applied, tokens).value)
          ) {
            owner.fields.delete(path);
          }
        }
      }
    }
  }
  const result = mergeApplied(structuredClone(live ?? {}), applied, types) as KubeObject;
  const mine = owners.find(isMine);
  const others = owners.filter((o) => !isMine(o));
  const ownedByOthers = (path: string) =>
    others.some((o) => [...o.fields].some((f) => f === path || f.startsWith(path + SEP)));
  // Shallowest first: a list-map element goes whole (structured-merge-diff typed RemoveItems drops the
  // element its path names), before its key fields would go and leave it unfindable, and empty.
  const dropped = [...(mine?.fields ?? [])]
    .filter((path) => !appliedFields.has(path) && !ownedByOthers(path))
    .sort((a, b) => a.split(SEP).length - b.split(SEP).length);
  for (const path of dropped) removeNode(result, path.split(SEP));
  removeEmptiedParents(result, dropped, (path) => appliedFields.has(path) || ownedByOthers(path));
  const updated: Ownership = {
    manager,
    operation: "Apply",
    apiVersion: applied.apiVersion,
    subresource: options.subresource,
    time: kubeTimestamp(options.now),
    fields: appliedFields,
  };
  writeOwnership(result, mine ? owners.map((o) => (o === mine ? updated : o)) : [...owners, updated]);
  return result;
}

/**
 * Ownership after a non-apply write (create, update, patch): the writer takes over every field whose
 * value it changed; other managers keep the rest.
 */
export function trackUpdate(
  old: KubeObject | undefined,
  next: KubeObject,
  options: { manager: string; types: ListTypes; scope: Scope; subresource?: string; now: Date },
): void {
  const owners = readOwnership(old);
  const nextFields = fieldSet(next, options.types, options.scope);
  const oldFields = old ? fieldSet(old, options.types, options.scope) : new Set<string>();
  const changed = new Set<string>();
  for (const path of nextFields) {
    const tokens = path.split(SEP);
    const before = old ? nodeAt(old, tokens) : { found: false };
    if (!before.found || !jsonEqual(before.value, nodeAt(next, tokens).value)) changed.add(path);
  }
  const removed = [...oldFields].filter((p) => !nextFields.has(p));
  if (changed.size === 0 && removed.length === 0 && old) {
    writeOwnership(next, owners);
    return;
  }
  for (const owner of owners) {
    for (const path of [...changed, ...removed]) owner.fields.delete(path);
  }
  let mine = owners.find(
    (o) => o.manager === options.manager && o.operation === "Update" && o.subresource === options.subresource,
  );
  if (!mine) {
    mine = {
      manager: options.manager,
      operation: "Update",
      apiVersion: next.apiVersion,
      subresource: options.subresource,
      fields: new Set(),
    };
    owners.push(mine);
  }
  for (const path of changed) mine.fields.add(path);
  mine.time = kubeTimestamp(options.now);
  mine.apiVersion = next.apiVersion;
  writeOwnership(next, owners);
}
