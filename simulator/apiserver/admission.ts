/**
 * Admission of writes, as the real server's decoder, create strategies and validation chain do it:
 * body and URL agree, metadata is well typed and well formed, built-in defaults (Secret, Namespace),
 * and for CRD-backed kinds pruning, defaulting and schema validation with unknown fields reported per
 * `fieldValidation`.
 */
import { randomBytes } from "node:crypto";
import { isDnsLabel, isDnsSubdomain, isLabelValue, isQualifiedName } from "../../primitives/names";
import { CrdSchemas, FieldError, fieldError, formatInvalidMessage } from "../schema";
import { definitionRuleErrors } from "../schema/cel";
import { isCrd } from "./apiextensions";
import { KubeObject } from "../store";
import { MemoryStore } from "../store/memory-store";
import { ApiError, errors, qualifiedResource } from "./status";
import { isObject } from "../../primitives/objects";
import { apiVersion, Json, Target } from "./target";
import { Request } from "./transport";

/** Fills apiVersion/kind and checks that body and URL agree, as the real decoder does. */
export function normalize(target: Target, object: Json, creating: boolean): KubeObject {
  const expectedApiVersion = apiVersion(target);
  const { kind } = target.resource;
  if (object.apiVersion !== undefined && object.apiVersion !== expectedApiVersion) {
    throw errors.badRequest(
      `the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${expectedApiVersion})`,
    );
  }
  if (object.kind !== undefined && object.kind !== kind) {
    throw errors.badRequest(
      `the kind in the data (${String(object.kind)}) does not match the expected kind (${kind})`,
    );
  }
  object.apiVersion = expectedApiVersion;
  object.kind = kind;
  checkMetadataTypes(object);
  const meta = object.metadata as Json;
  if (target.resource.namespaced) {
    if (meta.namespace !== undefined && meta.namespace !== "" && meta.namespace !== target.namespace) {
      throw errors.badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
    meta.namespace = target.namespace;
  } else {
    delete meta.namespace;
  }
  if (creating && !meta.name && typeof meta.generateName === "string" && meta.generateName) {
    meta.name = meta.generateName + randomBytes(4).toString("hex").slice(0, 5);
  }
  if (!creating && target.name !== undefined && meta.name !== undefined && meta.name !== target.name) {
    throw errors.badRequest(
      `the name of the object (${String(meta.name)}) does not match the name on the URL (${target.name})`,
    );
  }
  if (!creating && target.name !== undefined) meta.name = target.name;
  return object as KubeObject;
}

/**
 * Decoding into ObjectMeta fails for wrongly typed fields: the real server answers 400 before any
 * validation, and so must we to keep malformed metadata out of the store.
 */
function checkMetadataTypes(object: Json): void {
  const meta = object.metadata;
  if (meta === undefined || meta === null) {
    object.metadata = {};
    return;
  }
  if (!isObject(meta))
    throw errors.badRequest("json: cannot unmarshal into Go struct field .metadata of type v1.ObjectMeta");
  const bad = (field: string, type: string) =>
    errors.badRequest(
      `json: cannot unmarshal into Go struct field ObjectMeta.metadata.${field} of type ${type}`,
    );
  for (const field of ["name", "generateName", "namespace", "resourceVersion", "uid"]) {
    if (meta[field] !== undefined && meta[field] !== null && typeof meta[field] !== "string")
      throw bad(field, "string");
  }
  for (const field of ["labels", "annotations"]) {
    const map = meta[field];
    if (map === undefined || map === null) continue;
    if (!isObject(map) || !Object.values(map).every((v) => typeof v === "string"))
      throw bad(field, "map[string]string");
  }
  const finalizers = meta.finalizers;
  if (finalizers !== undefined && finalizers !== null) {
    if (!Array.isArray(finalizers) || !finalizers.every((f) => typeof f === "string"))
      throw bad("finalizers", "[]string");
  }
  const refs = meta.ownerReferences;
  if (refs !== undefined && refs !== null) {
    const valid =
      Array.isArray(refs) &&
      refs.every(
        (r) =>
          isObject(r) &&
          ["apiVersion", "kind", "name", "uid"].every((k) => r[k] === undefined || typeof r[k] === "string"),
      );
    if (!valid) throw bad("ownerReferences", "[]v1.OwnerReference");
  }
  for (const field of ["labels", "annotations", "finalizers", "ownerReferences", "managedFields"]) {
    if (meta[field] === null) delete meta[field];
  }
}

/** Name, label and annotation checks every kind gets (`ValidateObjectMeta`). */
function metadataErrors(target: Target, object: KubeObject): FieldError[] {
  const result: FieldError[] = [];
  const meta = object.metadata;
  const name = meta.name;
  const valid = target.resource.kind === "Namespace" ? isDnsLabel : isDnsSubdomain;
  if (!name) {
    result.push(fieldError("required", "metadata.name", undefined, "name or generateName is required"));
  } else if (!valid(name)) {
    const what = target.resource.kind === "Namespace" ? "RFC 1123 label" : "RFC 1123 subdomain";
    result.push(
      fieldError(
        "invalid",
        "metadata.name",
        name,
        `a lowercase ${what} must consist of lower case alphanumeric characters, '-'${what.endsWith("subdomain") ? " or '.'" : ""}, and must start and end with an alphanumeric character`,
      ),
    );
  }
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    if (!isQualifiedName(key)) {
      result.push(
        fieldError(
          "invalid",
          "metadata.labels",
          key,
          "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        ),
      );
    }
    if (!isLabelValue(value)) {
      result.push(
        fieldError(
          "invalid",
          "metadata.labels",
          value,
          "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        ),
      );
    }
  }
  for (const key of Object.keys(meta.annotations ?? {})) {
    if (!isQualifiedName(key.toLowerCase())) {
      result.push(
        fieldError(
          "invalid",
          "metadata.annotations",
          key,
          "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        ),
      );
    }
  }
  return result;
}

/**
 * Reports pruned (unknown) fields per `fieldValidation` (Strict answers 400, Warn adds a Warning header,
 * Ignore is silent) and the ratcheted errors of validation rules, which are always warnings.
 */
function reportUnknown(request: Request, pruned: string[], ratcheted: string[] = []): void {
  const mode = request.query.get("fieldValidation") ?? "Warn";
  if (!["Strict", "Warn", "Ignore"].includes(mode)) {
    throw errors.badRequest(`fieldValidation must be one of Ignore, Warn, Strict, got "${mode}"`);
  }
  const unknown = pruned.map((p) => `unknown field "${p}"`);
  if (unknown.length > 0 && mode === "Strict")
    throw errors.badRequest(`strict decoding error: ${unknown.join(", ")}`);
  const warnings = [...(mode === "Warn" ? unknown : []), ...ratcheted];
  if (warnings.length > 0)
    request.headers.Warning = warnings.map((u) => `299 - ${asciiQuoted(u)}`).join(", ");
}

/** Drops fields the CRD schema does not know, before an applied configuration is merged. */
export function pruneUnknown(
  schemas: CrdSchemas | undefined,
  request: Request,
  target: Target,
  object: KubeObject,
): KubeObject {
  const crds = target.resource.schemas ?? schemas;
  if (!target.resource.validated || !crds) return object;
  const { object: pruned, pruned: paths } = crds.prune(object);
  reportUnknown(request, paths);
  return pruned;
}

/**
 * Admission of a write: metadata checks, then for CRD-backed kinds pruning, defaulting, schema
 * validation and validation rules (transition rules and ratcheting against `existing` on an update),
 * with unknown fields handled per `fieldValidation`.
 */
export function admit(
  schemas: CrdSchemas | undefined,
  request: Request,
  target: Target,
  object: KubeObject,
  existing?: KubeObject,
): KubeObject {
  const { resource } = target;
  if (resource.kind === "Secret" && resource.group === "") defaultSecret(object);
  let result = object;
  const fieldErrors = metadataErrors(target, object);
  if (isCrd(target)) fieldErrors.push(...definitionRuleErrors(object));
  const crds = resource.schemas ?? schemas;
  if (resource.validated && crds) {
    const validation = crds.validate(object, existing, {
      subresource: target.subresource === "status" ? "status" : undefined,
    });
    result = validation.object as KubeObject;
    fieldErrors.push(...validation.errors);
    if (fieldErrors.length === 0) reportUnknown(request, validation.pruned, validation.warnings);
  }
  if (fieldErrors.length > 0) invalid(resource.kind, resource.group, object.metadata.name ?? "", fieldErrors);
  return result;
}

/** 422 Invalid listing `fieldErrors`. */
export function invalid(kind: string, group: string, name: string, fieldErrors: FieldError[]): never {
  throw errors.invalid(kind, group, name, formatInvalidMessage(kind, group, name, fieldErrors), fieldErrors);
}

/** What create strategies do before admission: status is not writable, namespaces start Active. */
export function prepareCreate(target: Target, object: KubeObject): KubeObject {
  if (target.resource.status && target.resource.kind !== "Node") delete object.status;
  if (target.resource.kind === "Namespace") {
    object.spec = { ...(isObject(object.spec) ? object.spec : {}), finalizers: ["kubernetes"] };
    object.status = { phase: "Active" };
    const name = object.metadata.name;
    if (name) object.metadata.labels = { ...object.metadata.labels, "kubernetes.io/metadata.name": name };
  }
  return object;
}

/** Namespaced objects are created only in a namespace that exists and is not terminating. */
export function checkNamespace(store: MemoryStore, target: Target, name: string): void {
  if (!target.resource.namespaced) return;
  const ns = target.namespace ?? "";
  const namespace = store.get({ apiVersion: "v1", kind: "Namespace", name: ns });
  if (!namespace) throw errors.notFound("namespaces", "", ns);
  if (namespace.metadata.deletionTimestamp !== undefined) {
    const { plural, group } = target.resource;
    throw new ApiError(
      403,
      "Forbidden",
      `${qualifiedResource(plural, group)} "${name}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
      { name, group, kind: plural },
    );
  }
}

/** Secret defaulting and conversion: type Opaque, `stringData` folded into base64 `data`. */
function defaultSecret(secret: KubeObject): void {
  if (secret.type === undefined || secret.type === "") secret.type = "Opaque";
  const stringData = secret.stringData;
  if (isObject(stringData)) {
    const data = isObject(secret.data) ? secret.data : {};
    for (const [key, value] of Object.entries(stringData))
      data[key] = Buffer.from(String(value)).toString("base64");
    secret.data = data;
  }
  delete secret.stringData;
}

/** A quoted header value: HTTP headers carry Latin-1 only, so anything beyond ASCII is escaped. */
function asciiQuoted(text: string): string {
  return JSON.stringify(text).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
