/**
 * Refreshes test/openshift-api-suites/: openshift/api's CRD validation test suites
 * (`<group>/<version>/tests/<crd>/*.yaml`) for the CRDs the simulator serves, from an openshift/api
 * checkout, so that CI (which cannot reach GitHub) runs them. Each served CRD (a file of the CRD
 * directory) is matched by content with the `zz_generated.crd-manifests` variant it was copied from;
 * `variants.json` records that variant and the feature gates its feature set enables on its first
 * cluster profile, which is what openshift/api's runner selects tests by (tests/crd_filter.go,
 * perTestRuntimeInfo and featureGatesForClusterProfileFeatureSetVersion).
 *
 *   npx ts-node --transpile-only scripts/openshift-api-suites.ts --git-dir ~/src/api/.git \
 *     --commit 2a3d73913b5a7caec4c57d5c3d04f51106ec4da3 [--crds ../shared/crds]
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { defaultCrdDir, readCrdFiles } from "../simulator/schema";

export const SUITES_DIR = path.resolve(__dirname, "../test/openshift-api-suites");

/** A served CRD's upstream variant and the gates openshift/api's runner selects its tests by. */
export interface Variant {
  /** The variant's path in openshift/api. */
  file: string;
  /** Its `release.openshift.io/feature-set` annotation ("" when ungated). */
  featureSet: string;
  /** The cluster profile whose feature gates apply (the first of the CRD's, sorted). */
  clusterProfile: string;
  /** The key of its feature gates in `Variants.featureGates`: `<cluster profile> <feature set>`. */
  gates: string;
  /** The test suite files, relative to the suites directory. */
  suites: string[];
}

/** The feature gates a cluster profile's feature set enables and disables. */
export interface FeatureGates {
  enabled: string[];
  disabled: string[];
}

/** variants.json. */
export interface Variants {
  commit: string;
  crds: Record<string, Variant>;
  featureGates: Record<string, FeatureGates>;
}

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at < 0 ? undefined : args[at + 1];
}

function refresh(gitDir: string, commit: string, crdDir: string): void {
  const git = (...args: string[]) =>
    execFileSync("git", ["--git-dir", gitDir, ...args], { encoding: "utf8", maxBuffer: 1 << 28 });
  const tree = git("ls-tree", "-r", commit)
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [meta, file] = line.split("\t");
      return { blob: meta.split(" ")[2], file };
    });
  const blobOf = (text: string) =>
    execFileSync("git", ["hash-object", "--stdin"], { input: text, encoding: "utf8" }).trim();
  const show = (file: string) => git("show", `${commit}:${file}`);
  const gates = tree
    .filter((e) => e.file.startsWith("payload-manifests/featuregates/"))
    .sort((a, b) => (a.file < b.file ? -1 : 1))
    .map(
      (e) =>
        parse(show(e.file)) as {
          metadata: { annotations: Record<string, string> };
          status: {
            featureGates: Array<{ enabled: Array<{ name: string }>; disabled: Array<{ name: string }> }>;
          };
        },
    );
  fs.rmSync(SUITES_DIR, { recursive: true, force: true });
  const variants: Variants = { commit, crds: {}, featureGates: {} };
  for (const { file, text } of readCrdFiles(crdDir)) {
    const blob = blobOf(text);
    const upstream = tree.find((e) => e.blob === blob && e.file.includes("/zz_generated.crd-manifests/"));
    if (!upstream) continue;
    const crd = parse(text) as { metadata: { name: string; annotations?: Record<string, string> } };
    const annotations = crd.metadata.annotations ?? {};
    const featureSet = annotations["release.openshift.io/feature-set"] ?? "";
    const profiles = Object.keys(annotations)
      .filter((k) => k.startsWith("include.release.openshift.io/") && annotations[k] === "true")
      .sort();
    const clusterProfile = profiles[0] ?? "";
    const gate = gates.find(
      (g) =>
        clusterProfile in g.metadata.annotations &&
        g.metadata.annotations["release.openshift.io/feature-set"] === (featureSet || "Default"),
    );
    const status = gate?.status.featureGates[0];
    const gatesKey = `${clusterProfile} ${featureSet || "Default"}`;
    variants.featureGates[gatesKey] = {
      enabled: (status?.enabled ?? []).map((g) => g.name).sort(),
      disabled: (status?.disabled ?? []).map((g) => g.name).sort(),
    };
    const testsDir = `${upstream.file.slice(0, upstream.file.indexOf("/zz_generated.crd-manifests/"))}/tests/${crd.metadata.name}/`;
    const suites = tree
      .filter((e) => e.file.startsWith(testsDir) && e.file.endsWith(".yaml"))
      .map((e) => e.file);
    for (const suite of suites) {
      fs.mkdirSync(path.join(SUITES_DIR, path.dirname(suite)), { recursive: true });
      fs.writeFileSync(path.join(SUITES_DIR, suite), show(suite));
    }
    variants.crds[crd.metadata.name] = {
      file: upstream.file,
      featureSet,
      clusterProfile,
      gates: gatesKey,
      suites,
    };
    console.log(`${path.basename(file)}: ${upstream.file}, ${suites.length} suite files`);
  }
  fs.writeFileSync(path.join(SUITES_DIR, "variants.json"), JSON.stringify(variants, null, 2) + "\n");
  fs.writeFileSync(
    path.join(SUITES_DIR, "NOTICE"),
    [
      "The YAML test suites under this directory are openshift/api's CRD validation tests",
      "(https://github.com/openshift/api, `<group>/<version>/tests/<crd>/`), copied unchanged at commit",
      `${commit}.`,
      "Copyright Red Hat, Inc. and the openshift/api contributors; licensed under the Apache License,",
      "Version 2.0 (https://www.apache.org/licenses/LICENSE-2.0).",
      "variants.json is derived from the same commit (CRD manifests and payload-manifests/featuregates)",
      "by scripts/openshift-api-suites.ts, which refreshes this directory.",
      "",
    ].join("\n"),
  );
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const gitDir = option(args, "--git-dir");
  const commit = option(args, "--commit");
  if (!gitDir || !commit) {
    console.error("usage: openshift-api-suites.ts --git-dir DIR --commit SHA [--crds DIR]");
    process.exit(2);
  }
  refresh(gitDir, commit, option(args, "--crds") ?? defaultCrdDir());
}
