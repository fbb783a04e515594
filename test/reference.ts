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
}

export const SEEDS: Reference = {
  what: "the seed documents (OpenShift docs whose YAML examples are the reference manifests)",
  dir: process.env.OPENSHIFT_SEEDS_DIR || path.resolve(__dirname, "../../shared/seeds"),
  provide: "set OPENSHIFT_SEEDS_DIR to their directory (files 000_* to 004_*)",
};

export const CRDS: Reference = {
  what: "the upstream CRDs",
  dir: defaultCrdDir(),
  provide:
    'set OPENSHIFT_CRDS_DIR to a directory of them, e.g. exported from your cluster with `npm run crds:export -- --out DIR` (README, "CRDs")',
};

/** openshift/api's definitions of the provider specs: beside the upstream CRDs, never exported from a cluster. */
export const PROVIDER_SPECS: Reference = {
  what: "openshift/api's provider-spec definitions",
  dir: path.join(CRDS.dir, "machine-provider-specs.openapi.json"),
  provide:
    "put machine-provider-specs.openapi.json (openshift/api's openapi/openapi.json, AWS and Azure provider specs) beside the CRDs",
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

/**
 * Skips the test, or the whole suite when called from a `before` hook, unless every reference is present,
 * printing which test or suite is skipped and why (mocha's reporters show no reason for a skip).
 */
export function requireReference(context: Mocha.Context, ...references: Reference[]): void {
  const reasons = references.map(missing).filter((r): r is string => r !== undefined);
  if (reasons.length === 0) return;
  const runnable = context.test;
  const title =
    (runnable as Mocha.Hook | undefined)?.type === "hook"
      ? runnable?.parent?.fullTitle()
      : runnable?.fullTitle();
  console.log(`    skipped "${title}": ${reasons.join("; ")}`);
  context.skip();
}
