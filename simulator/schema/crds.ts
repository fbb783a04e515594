import * as fs from "node:fs";
import * as path from "node:path";
import { parseAllDocuments } from "yaml";

/** A node of a CRD's `openAPIV3Schema` (Kubernetes' structural dialect of OpenAPI 3.0). */
export interface JSONSchemaProps {
  type?: string;
  format?: string;
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  pattern?: string;
  maxLength?: number;
  minLength?: number;
  maximum?: number;
  minimum?: number;
  exclusiveMaximum?: boolean;
  exclusiveMinimum?: boolean;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  maxProperties?: number;
  minProperties?: number;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-map-type"?: "atomic" | "granular";
  "x-kubernetes-validations"?: unknown[];
  [key: string]: unknown;
}

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: JSONSchemaProps;
  additionalPrinterColumns: PrinterColumn[];
  subresources: { status?: boolean; scale?: ScaleSubresource };
}

/** The parts of a CustomResourceDefinition the simulator serves. */
export interface CrdDefinition {
  /** `<plural>.<group>`, the CRD's metadata.name. */
  name: string;
  group: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  scope: "Namespaced" | "Cluster";
  versions: CrdVersion[];
  /** The file it was read from. */
  file: string;
  /** The CustomResourceDefinition as read, which the simulator serves under apiextensions.k8s.io/v1. */
  object: Record<string, unknown>;
}

/**
 * Where the CRDs are looked for: `OPENSHIFT_CRDS_DIR` when set, else `../shared/crds` beside the
 * repository (the upstream CRDs, test data kept out of the project). It may not exist: see `findCrdDir`.
 */
export function defaultCrdDir(): string {
  return process.env.OPENSHIFT_CRDS_DIR || path.resolve(__dirname, "..", "..", "..", "shared", "crds");
}

/**
 * The CRD directory to use when none is given: `OPENSHIFT_CRDS_DIR` when set (a missing one is then an
 * error when read), else `../shared/crds` when it exists; undefined on a plain clone, which has none.
 */
export function findCrdDir(): string | undefined {
  const dir = defaultCrdDir();
  return process.env.OPENSHIFT_CRDS_DIR || fs.existsSync(dir) ? dir : undefined;
}

/** How to turn validation on, for messages where none was found; `exportCommand` writes the CRDs. */
export function crdHint(exportCommand = "npm run crds:export --"): string {
  return `validate with --crds DIR or OPENSHIFT_CRDS_DIR, e.g. after \`${exportCommand} --out DIR\` against your cluster`;
}

/** A file that may hold CRDs, with its text. */
export interface CrdFile {
  file: string;
  text: string;
}

/** The `.yaml`/`.yml`/`.json` files of `dir`, sorted by name. */
export function readCrdFiles(dir: string): CrdFile[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort()
    .map((f) => ({ file: path.join(dir, f), text: fs.readFileSync(path.join(dir, f), "utf8") }));
}

/** Every CustomResourceDefinition in `files`. */
export function crdDefinitionsIn(files: readonly CrdFile[]): CrdDefinition[] {
  const result: CrdDefinition[] = [];
  for (const { file: full, text } of files) {
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) throw new Error(`${full}: ${doc.errors[0].message}`);
      const crd = doc.toJS() as Record<string, unknown> | null;
      if (crd?.kind !== "CustomResourceDefinition") continue;
      result.push(crdDefinition(crd, full));
    }
  }
  return result;
}

/** The parts of a CustomResourceDefinition object the simulator serves; `file` says where it came from. */
export function crdDefinition(crd: Record<string, unknown>, file: string): CrdDefinition {
  const meta = crd.metadata as { name: string };
  const spec = crd.spec as {
    group: string;
    scope: "Namespaced" | "Cluster";
    names: {
      kind: string;
      listKind?: string;
      plural: string;
      singular?: string;
      shortNames?: string[];
      categories?: string[];
    };
    versions: Array<{
      name: string;
      served: boolean;
      storage: boolean;
      schema?: { openAPIV3Schema?: JSONSchemaProps };
      additionalPrinterColumns?: PrinterColumn[];
      subresources?: { status?: object; scale?: ScaleSubresource };
    }>;
  };
  return {
    name: meta.name,
    group: spec.group,
    kind: spec.names.kind,
    listKind: spec.names.listKind ?? `${spec.names.kind}List`,
    plural: spec.names.plural,
    singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
    shortNames: spec.names.shortNames ?? [],
    categories: spec.names.categories ?? [],
    scope: spec.scope,
    versions: spec.versions.map((v) => ({
      name: v.name,
      served: v.served,
      storage: v.storage,
      schema: v.schema?.openAPIV3Schema,
      additionalPrinterColumns: v.additionalPrinterColumns ?? [],
      subresources: {
        status: v.subresources?.status !== undefined,
        scale: v.subresources?.scale,
      },
    })),
    file,
    object: crd,
  };
}
