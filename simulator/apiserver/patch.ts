/**
 * Patch formats of the Kubernetes API: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and strategic
 * merge patch for built-in kinds. JSON patch is implemented here rather than with fast-json-patch: the
 * package is unmaintained since 2022, mutates its input, and its error texts differ from the server's;
 * the RFC is small and the server's own semantics (errors on missing paths, `-` to append) are easy to
 * follow exactly.
 */

/** A patch that cannot be applied; the server answers with `code` (400, 422 or 415). */
export class PatchError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

type Json = unknown;
type JsonObject = Record<string, unknown>;

/** Sets an own property even for keys like `__proto__`, which plain assignment would treat specially. */
export function setOwn(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** RFC 7386: objects merge recursively, `null` deletes, everything else (lists included) replaces. */
export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return structuredClone(patch);
  const result: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setOwn(result, key, mergePatch(result[key], value));
  }
  return result;
}

interface Operation {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new PatchError(422, `json patch: invalid path "${pointer}"`);
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function arrayIndex(token: string, length: number, allowEnd: boolean, path: string): number {
  if (allowEnd && token === "-") return length;
  if (!/^(0|[1-9]\d*)$/.test(token))
    throw new PatchError(422, `json patch: invalid array index "${token}" in "${path}"`);
  const index = Number(token);
  if (index > length || (!allowEnd && index === length)) {
    throw new PatchError(422, `json patch: array index ${index} out of bounds in "${path}"`);
  }
  return index;
}

function parentOf(document: Json, tokens: string[], path: string): Json {
  let cursor = document;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(cursor)) cursor = cursor[arrayIndex(token, cursor.length, false, path)];
    else if (isObject(cursor) && Object.hasOwn(cursor, token)) cursor = cursor[token];
    else throw new PatchError(422, `json patch: doc is missing path: "${path}": missing value`);
  }
  return cursor;
}

function getAt(document: Json, path: string): Json {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return document;
  const parent = parentOf(document, tokens, path);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) return parent[arrayIndex(last, parent.length, false, path)];
  if (isObject(parent) && Object.hasOwn(parent, last)) return parent[last];
  throw new PatchError(422, `json patch: doc is missing path: "${path}": missing value`);
}

function removeAt(document: Json, path: string): Json {
  const tokens = parsePointer(path);
  if (tokens.length === 0) throw new PatchError(422, "json patch: cannot remove the whole document");
  const parent = parentOf(document, tokens, path);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) return parent.splice(arrayIndex(last, parent.length, false, path), 1)[0];
  if (isObject(parent) && Object.hasOwn(parent, last)) {
    const value = parent[last];
    delete parent[last];
    return value;
  }
  throw new PatchError(422, `json patch: unable to remove nonexistent key: ${last}: missing value`);
}

function addAt(document: Json, path: string, value: Json, replace: boolean): Json {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const parent = parentOf(document, tokens, path);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    const index = arrayIndex(last, parent.length, !replace, path);
    parent.splice(index, replace ? 1 : 0, value);
  } else if (isObject(parent)) {
    if (replace && !Object.hasOwn(parent, last)) {
      throw new PatchError(
        422,
        `json patch: replace operation does not apply: doc is missing key: ${path}: missing value`,
      );
    }
    setOwn(parent, last, value);
  } else {
    throw new PatchError(422, `json patch: doc is missing path: "${path}": missing value`);
  }
  return document;
}

/** RFC 6902 with the API server's semantics. Never mutates `target`. */
export function jsonPatch(target: Json, operations: Json): Json {
  if (!Array.isArray(operations))
    throw new PatchError(400, "json patch: the patch is not a JSON array of operations");
  let document = structuredClone(target);
  for (const raw of operations) {
    if (!isObject(raw) || typeof raw.op !== "string" || typeof raw.path !== "string") {
      throw new PatchError(422, `json patch: invalid operation ${JSON.stringify(raw)}`);
    }
    const op = raw as unknown as Operation;
    switch (op.op) {
      case "add":
        if (!("value" in op)) throw new PatchError(422, "json patch: add operation has no value");
        document = addAt(document, op.path, structuredClone(op.value), false);
        break;
      case "replace":
        if (!("value" in op)) throw new PatchError(422, "json patch: replace operation has no value");
        document = addAt(document, op.path, structuredClone(op.value), true);
        break;
      case "remove":
        removeAt(document, op.path);
        break;
      case "move": {
        if (typeof op.from !== "string") throw new PatchError(422, "json patch: move operation has no from");
        if (op.path.startsWith(op.from + "/"))
          throw new PatchError(422, "json patch: cannot move a value into itself");
        const value = removeAt(document, op.from);
        document = addAt(document, op.path, value, false);
        break;
      }
      case "copy": {
        if (typeof op.from !== "string") throw new PatchError(422, "json patch: copy operation has no from");
        document = addAt(document, op.path, structuredClone(getAt(document, op.from)), false);
        break;
      }
      case "test": {
        const actual = getAt(document, op.path);
        if (JSON.stringify(sortKeys(actual)) !== JSON.stringify(sortKeys(op.value))) {
          throw new PatchError(422, `json patch: testing value ${op.path} failed: test failed`);
        }
        break;
      }
      default:
        throw new PatchError(422, `json patch: unexpected kind of operation: ${op.op}`);
    }
  }
  return document;
}

function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys(value[k])]),
  );
}

/**
 * Patch strategies of the built-in kinds' Go types (`patchStrategy`/`patchMergeKey` tags). Paths are
 * dotted field names from the object root; lists not named here are replaced whole, as their Go types
 * declare no strategy (Node `spec.taints` and RuntimeClass `scheduling.tolerations` among them).
 */
const MERGE_KEYS: Record<string, string | null> = {
  "metadata.ownerReferences": "uid",
  "metadata.finalizers": null,
  "spec.podCIDRs": null,
  "status.conditions": "type",
  "status.addresses": "type",
  "status.volumesAttached": "name",
  "spec.template.spec.containers": "name",
  "spec.template.spec.initContainers": "name",
  "spec.template.spec.volumes": "name",
  "spec.containers": "name",
  "spec.initContainers": "name",
  "spec.volumes": "name",
};

function mergeKeyFor(path: string): string | null | undefined {
  if (Object.hasOwn(MERGE_KEYS, path)) return MERGE_KEYS[path];
  // Containers' own merge lists: env and volumeMounts by name, ports by containerPort.
  if (/(^|\.)(containers|initContainers)\.(env)$/.test(path)) return "name";
  if (/(^|\.)(containers|initContainers)\.volumeMounts$/.test(path)) return "mountPath";
  if (/(^|\.)(containers|initContainers)\.ports$/.test(path)) return "containerPort";
  return undefined;
}

/**
 * Strategic merge patch (for built-in kinds only): like a merge patch, but lists with a merge key merge
 * element by element, primitive lists with a merge strategy union, and the directives `$patch`
 * (`replace`, `delete`, `merge`), `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>` and
 * `$retainKeys` are honoured.
 */
export function strategicMergePatch(target: Json, patch: Json, path = ""): Json {
  if (!isObject(patch)) return structuredClone(patch);
  if (patch.$patch === "replace") {
    const rest = { ...patch };
    delete rest.$patch;
    return stripDirectives(rest);
  }
  if (patch.$patch === "delete") return undefined;
  const result: JsonObject = isObject(target) ? { ...target } : {};
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set(patch.$retainKeys as string[]);
    for (const key of Object.keys(result)) if (!keep.has(key)) delete result[key];
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key === "$patch" || key === "$retainKeys" || key.startsWith("$setElementOrder/")) continue;
    if (key.startsWith("$deleteFromPrimitiveList/")) {
      const field = key.slice("$deleteFromPrimitiveList/".length);
      const drop = new Set((Array.isArray(value) ? value : []).map((v) => JSON.stringify(v)));
      if (Array.isArray(result[field])) {
        result[field] = (result[field] as unknown[]).filter((v) => !drop.has(JSON.stringify(v)));
      }
      continue;
    }
    const childPath = path ? `${path}.${key}` : key;
    if (value === null) {
      delete result[key];
    } else if (Array.isArray(value)) {
      setOwn(result, key, mergeList(result[key], value, childPath));
    } else if (isObject(value)) {
      const merged = strategicMergePatch(result[key], value, childPath);
      if (merged === undefined) delete result[key];
      else setOwn(result, key, merged);
    } else {
      setOwn(result, key, value);
    }
  }
  return result;
}

function mergeList(current: Json, patch: unknown[], path: string): Json {
  const key = mergeKeyFor(path);
  const replaceDirective = patch.find(
    (p) => isObject(p) && p.$patch === "replace" && Object.keys(p).length === 1,
  );
  if (replaceDirective) return stripDirectives(patch.filter((p) => p !== replaceDirective));
  if (key === undefined || !Array.isArray(current)) return stripDirectives(patch);
  if (key === null) {
    const seen = new Set(current.map((v) => JSON.stringify(v)));
    return [...current, ...patch.filter((v) => !seen.has(JSON.stringify(v)))];
  }
  const result = [...current];
  for (const item of patch) {
    if (!isObject(item)) throw new PatchError(422, `strategic merge patch: ${path} items must be objects`);
    const index = result.findIndex((c) => isObject(c) && c[key] === item[key]);
    if (item.$patch === "delete") {
      if (index >= 0) result.splice(index, 1);
    } else if (index >= 0) {
      result[index] = strategicMergePatch(result[index], item, path);
    } else {
      result.push(strategicMergePatch(undefined, item, path));
    }
  }
  return result;
}

function stripDirectives(value: Json): Json {
  if (Array.isArray(value)) return value.map(stripDirectives);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) if (!k.startsWith("$")) out[k] = stripDirectives(v);
  return out;
}
import { isObject } from "../../primitives/objects";
