/**
 * Custom resource schemas as a Kubernetes API server applies them: structural pruning of unknown fields,
 * defaulting, and OpenAPI validation with the server's error wording. Used by the simulator's API server
 * and by fidelity tests that check rendered manifests against the upstream CRDs.
 *
 * ```ts
 * const schemas = CrdSchemas.load(dir);
 * const { errors, pruned } = schemas.validate(machineSet);
 * // errors: [{ field: "spec.replicas", message: 'Invalid value: "string": ...', reason: "FieldValueTypeInvalid" }]
 * // pruned: ["spec.template.spec.bogus"]
 * ```
 */
import type { ValidateFunction } from "ajv";
import type Ajv from "ajv";
import { createHash } from "node:crypto";
import {
  crdDefinitionsIn,
  CrdDefinition,
  CrdVersion,
  defaultCrdDir,
  JSONSchemaProps,
  readCrdFiles,
} from "./crds";
import { applyDefaults, pruneNulls, pruneValue } from "./prune";
import { createAjv, FieldError, fieldError, structuralErrors, schemaErrors, toJsonSchema } from "./validate";
import { hasRules, RUNTIME_BUDGET, validateCel } from "./cel";
import { unchangedAt } from "./ratchet";

export * from "./crds";
export { OBJECT_META_FIELDS, pruneObjectMeta } from "./prune";
export { fieldError, formatValue } from "./validate";
export type { FieldError, FieldErrorType } from "./validate";

/** What the server would do with an object. */
export interface ValidationResult {
  /** Schema violations of the pruned and defaulted object; non-empty means 422 Invalid. */
  errors: FieldError[];
  /** Paths of the fields the server would drop, e.g. `spec.template.spec.bogus`. */
  pruned: string[];
  /** What the server would answer in Warning headers: rule errors that ratcheting let through. */
  warnings: string[];
  /** The object as the server would store it: pruned and defaulted. */
  object: Record<string, unknown>;
  /** False when no CRD covers the object's apiVersion and kind (nothing was checked). */
  known: boolean;
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf("/");
  return slash < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/**
 * The server's one-line wording for a 422: `MachineSet.machine.openshift.io "x" is invalid: <errors>`;
 * several errors are bracketed and comma-separated, as Go's aggregate errors print.
 */
export function formatInvalidMessage(
  kind: string,
  group: string,
  name: string,
  errors: FieldError[],
): string {
  const qualified = group ? `${kind}.${group}` : kind;
  const parts = errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message));
  const body = parts.length === 1 ? parts[0] : `[${parts.join(", ")}]`;
  return `${qualified} "${name}" is invalid: ${body}`;
}

/**
 * Errors that keep the server from evaluating validation rules: a rule could not rely on the types,
 * lengths, sizes and required fields the schema promises (customresource strategy, hasBlockingErr).
 */
const BLOCKING = new Set([
  "FieldValueNotSupported",
  "FieldValueRequired",
  "FieldValueTooLong",
  "FieldValueTooMany",
  "FieldValueTypeInvalid",
]);

/** What `CrdSchemas.load` read, by the hash of the files' names and texts. */
const loadedSchemas = new Map<string, CrdSchemas>();

/** The CRDs of a directory, with compiled validators built on first use. */
export class CrdSchemas {
  private readonly byKind = new Map<string, CrdDefinition>();
  private readonly compiled = new Map<string, ValidateFunction>();
  private ajv: Ajv | undefined;

  constructor(readonly definitions: readonly CrdDefinition[]) {
    for (const crd of definitions) this.byKind.set(`${crd.group}/${crd.kind}`, crd);
  }

  /**
   * Reads the CRDs of `dir` (default: `defaultCrdDir()`), once per process for the same files: each
   * simulator a test starts would parse some 2 MB of YAML and compile its validators again otherwise.
   * What a load returns is shared, so nothing changes it (a CRD created at run time gets its own).
   */
  static load(dir: string = defaultCrdDir()): CrdSchemas {
    const files = readCrdFiles(dir);
    const hash = createHash("sha256");
    for (const { file, text } of files) hash.update(`${file}\0${text}\0`);
    const key = hash.digest("hex");
    let schemas = loadedSchemas.get(key);
    if (!schemas) {
      schemas = new CrdSchemas(crdDefinitionsIn(files));
      loadedSchemas.set(key, schemas);
    }
    return schemas;
  }

  /** The CRD defining a group and kind. */
  definition(group: string, kind: string): CrdDefinition | undefined {
    return this.byKind.get(`${group}/${kind}`);
  }

  /** The served CRD version for an apiVersion and kind. */
  version(apiVersion: string, kind: string): { crd: CrdDefinition; version: CrdVersion } | undefined {
    const { group, version } = splitApiVersion(apiVersion);
    const crd = this.definition(group, kind);
    const v = crd?.versions.find((x) => x.name === version && x.served);
    return crd && v ? { crd, version: v } : undefined;
  }

  /** The openAPIV3Schema for an apiVersion and kind, if a CRD defines one. */
  schemaFor(apiVersion: string, kind: string): JSONSchemaProps | undefined {
    return this.version(apiVersion, kind)?.version.schema;
  }

  /**
   * Returns a pruned copy of the object and the paths that were pruned. Objects no CRD covers come
   * back unchanged (beyond the copy).
   */
  prune<T extends object>(object: T): { object: T; pruned: string[] } {
    const copy = structuredClone(object);
    const record = copy as Record<string, unknown>;
    const schema = this.schemaFor(String(record.apiVersion), String(record.kind));
    const pruned: string[] = [];
    if (schema) {
      pruneNulls(copy, schema);
      pruneValue(copy, schema, "", pruned, true);
    }
    return { object: copy, pruned };
  }

  /**
   * Does what the server does on a write: prunes, defaults, then validates, on an update against the
   * `old` object (transition rules, ratcheting). A write to the status subresource is validated against
   * the status schema alone, as the server builds its status validator (customresource_handler.go,
   * statusValidator), and its errors are worded relative to `status`; validation rules see the whole
   * object either way. Never modifies its argument.
   */
  validate(object: object, old?: object, options: { subresource?: "status" } = {}): ValidationResult {
    const record = object as Record<string, unknown>;
    const apiVersion = String(record.apiVersion);
    const kind = String(record.kind);
    const schema = this.schemaFor(apiVersion, kind);
    if (!schema)
      return { errors: [], pruned: [], warnings: [], object: structuredClone(record), known: false };
    const { object: pruned, pruned: paths } = this.prune(record);
    applyDefaults(pruned, schema);
    const ratchetedErrors: FieldError[] = [];
    const status = options.subresource === "status";
    const at = status ? "/status" : "";
    const ratcheted = (pointer: string) =>
      old !== undefined && unchangedAt(schema, pruned, old, at + pointer);
    const statusSchema = schema.properties?.status;
    const errors =
      status && statusSchema
        ? [
            ...schemaErrors(
              this.validator(`${apiVersion}/${kind}/status`, statusSchema),
              (pruned as Record<string, unknown>).status ?? null,
              ratcheted,
              ratchetedErrors,
              "status",
            ),
            ...structuralErrors((pruned as Record<string, unknown>).status, statusSchema, "status"),
          ]
        : [
            ...schemaErrors(
              this.validator(`${apiVersion}/${kind}`, schema, true),
              pruned,
              ratcheted,
              ratchetedErrors,
            ),
            ...structuralErrors(pruned, schema),
          ];
    const warnings = ratchetedErrors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message));
    if (hasRules(schema)) {
      if (errors.some((e) => BLOCKING.has(e.reason))) {
        errors.push(
          fieldError(
            "invalid",
            "<nil>",
            null,
            "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
          ),
        );
      } else {
        const cel = validateCel(schema, pruned, old, RUNTIME_BUDGET);
        errors.push(...cel.errors);
        warnings.push(...cel.warnings);
      }
    }
    return { errors, pruned: paths, warnings, object: pruned, known: true };
  }

  /**
   * What the server would object to in a manifest, one line each: no CRD serving it, a field it would
   * prune, a schema violation. A patch is a partial object, so only pruning counts for it: required
   * fields belong to the object it patches.
   */
  problems(manifest: object, options: { patch?: boolean } = {}): string[] {
    const result = this.validate(manifest);
    const m = manifest as { apiVersion?: unknown; kind?: unknown };
    if (!result.known) return [`no CRD serves ${String(m.kind)} (${String(m.apiVersion)})`];
    return [
      ...result.pruned.map((p) => `${p}: unknown field, the server would prune it`),
      ...(options.patch ? [] : result.errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message))),
    ];
  }

  /** The compiled validator of a schema, by `key`; at a resource's `root`, metadata is left to ObjectMeta's checks. */
  private validator(key: string, schema: JSONSchemaProps, root = false): ValidateFunction {
    let validate = this.compiled.get(key);
    if (!validate) {
      this.ajv ??= createAjv();
      const compiled = root ? { ...schema, properties: { ...schema.properties } } : schema;
      if (root) delete compiled.properties!.metadata;
      validate = this.ajv.compile(toJsonSchema(compiled));
      this.compiled.set(key, validate);
    }
    return validate;
  }
}
