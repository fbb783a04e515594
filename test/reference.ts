import * as fs from "node:fs";
import * as path from "node:path";
import { defaultCrdDir } from "../simulator/schema/crds";

/**
 * The reference material some suites check against, kept out of the repository: the OpenShift seed
 * documents and the upstream CRDs. When one is absent the suites needing it are skipped, each with a line
 * saying what is missing and how to provide it; under CI (`CI=true`) both are required and the run stops
 * before any test (see setup.ts), so CI never skips them silently.
 */
export interface Reference {
  what: string;
  dir: string;
  provide: string;
  /** `what` and `provide` in a few words, for the line a skipped suite prints. */
  brief: string;
}

export const SEEDS: Reference = {
  what: "the seed documents (OpenShift docs whose YAML examples are the reference manifests)",
  dir: process.env.OPENSHIFT_SEEDS_DIR || path.resolve(__dirname, "../../shared/seeds"),
  provide: "set OPENSHIFT_SEEDS_DIR to their directory (files 000_* to 004_*)",
  brief: "no seed documents (set OPENSHIFT_SEEDS_DIR)",
};

export const CRDS: Reference = {
  what: "the upstream CRDs",
  dir: defaultCrdDir(),
  provide:
    "set OPENSHIFT_CRDS_DIR to a directory of them, e.g. exported from your cluster with `npm run crds:export -- --out DIR` (docs/crds.md)",
  brief: "no upstream CRDs (set OPENSHIFT_CRDS_DIR, e.g. to `npm run crds:export`'s output)",
};

/** openshift/api's definitions of the provider specs: beside the upstream CRDs, never exported from a cluster. */
export const PROVIDER_SPECS: Reference = {
  what: "openshift/api's provider-spec definitions",
  dir: path.join(CRDS.dir, "machine-provider-specs.openapi.json"),
  provide:
    "put machine-provider-specs.openapi.json (openshift/api's openapi/openapi.json, AWS and Azure provider specs) beside the CRDs",
  brief: "no provider-spec definitions (machine-provider-specs.openapi.json beside the CRDs)",
};

/** Pulumi's package metaschema, which a component provider's schema must satisfy. */
export const PULUMI_METASCHEMA: Reference = {
  what: "Pulumi's package metaschema",
  dir: path.join(
    process.env.PULUMI_METASCHEMA_DIR || path.resolve(__dirname, "../../shared/pulumi"),
    "package-metaschema.json",
  ),
  provide:
    "set PULUMI_METASCHEMA_DIR to a directory holding package-metaschema.json (pulumi/pulumi's pkg/codegen/schema/pulumi.json)",
  brief: "no Pulumi package metaschema (set PULUMI_METASCHEMA_DIR)",
};

export function isCI(): boolean {
  return ["true", "1"].includes((process.env.CI ?? "").toLowerCase());
}

/** Why the reference is unusable, or undefined when its directory exists. */
export function missing(reference: Reference): string | undefined {
  return fs.existsSync(reference.dir)
    ? undefined
    : `${reference.what} are missing (no ${reference.dir}): ${reference.provide}`;
}

/** Suites already named in this process's output, with what they lacked. */
const announced = new Set<string>();

/**
 * Skips the test, or the whole suite when called from a `before` hook, unless every reference is present.
 * Mocha's reporters show no reason for a skip, so the suite is named once with what is missing, briefly
 * (docs/crds.md says how to get them): `skipped "<suite>": ...` for a whole suite,
 * `skipped "<suite>" in part: ...` for its tests that need the reference.
 */
export function requireReference(context: Mocha.Context, ...references: Reference[]): void {
  const absent = references.filter((r) => missing(r) !== undefined);
  if (absent.length === 0) return;
  const runnable = context.test;
  const whole = (runnable as Mocha.Hook | undefined)?.type === "hook";
  const line = `    skipped "${runnable?.parent?.fullTitle()}"${whole ? "" : " in part"}: ${absent.map((r) => r.brief).join("; ")}`;
  if (!announced.has(line)) console.log(line);
  announced.add(line);
  context.skip();
}
