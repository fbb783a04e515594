import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import * as api from "../index";
import { installPackage, PACKAGE_NAME } from "../harness/installed";
import { mocks, resetMocks, settle } from "./mocks";
const requireFromString = require("require-from-string") as (
  code: string,
  filename: string,
) => { handler(): pulumi.dynamic.ResourceProvider };

/**
 * The package's public API is written out by name. These lists pin it: an export added or dropped shows
 * here in review, as a deliberate change of this file, never as a side effect of a module's exports.
 */

const ROOT = path.resolve(__dirname, "..");

const NAMESPACES = ["builders", "waiters", "waiting"] as const;

const EXPORTS: Record<"(root)" | (typeof NAMESPACES)[number], string[]> = {
  "(root)": [
    "CanaryPool",
    "ClusterAutoscaler",
    "ClusterExtension",
    "ContainerRuntimeConfig",
    "INFRA_TAINTS",
    "InfraNodePool",
    "KubeletConfig",
    "MachineConfig",
    "MachineConfigPool",
    "NodeDisruptionPolicy",
    "NodePool",
    "OperatorSubscription",
    "RsaPrivateKey",
    "WindowsNodePool",
    "builders",
    "waiters",
    "waiting",
  ],
  builders: [
    "InputError",
    "InputErrors",
    "awsProviderSpec",
    "azureProviderSpec",
    "clusterAutoscaler",
    "containerRuntimeConfig",
    "decodeDataUrl",
    "encodeDataUrl",
    "imageRegistryPlacementPatch",
    "impactLine",
    "impactMarkdown",
    "infraTaints",
    "ingressControllerPlacementPatch",
    "kubeletConfig",
    "machineAutoscalersForPool",
    "machineConfig",
    "machineConfigPool",
    "machineHealthCheck",
    "machineSet",
    "machineSetsForPool",
    "machineSetsOf",
    "monitoringConfigMapPatch",
    "nodeDisruptionPolicyPatch",
    "nodeMetadataImpact",
    "nodeMetadataPhrase",
    "operatorGroup",
    "operatorNamespace",
    "placementFor",
    "platformModule",
    "poolConfigsFrom",
    "rolloutImpact",
    "spreadReplicas",
    "subscription",
    "windowsPoolSpec",
    "windowsRuntimeClass",
  ],
  waiters: [
    "ExtensionInstall",
    "ExtensionRemoval",
    "MachineAutoscalerReady",
    "MachineSetReady",
    "MachineSetRemoval",
    "NodeConfigRemoval",
    "NodeLabelsAndTaints",
    "OperatorInstall",
    "OperatorRemoval",
    "PoolRollout",
    "WindowsNodesReady",
    "contentHash",
    "defineRemoval",
    "defineWaiter",
    "labelMap",
    "objectName",
    "objectNames",
    "oneOf",
    "output",
    "taintList",
  ],
  waiting: [
    "createApiClient",
    "describeApiError",
    "isWaitError",
    "observeAutoscalers",
    "observeExtensionInstall",
    "observeMachineSets",
    "observeNodeMetadata",
    "observeOperatorInstall",
    "observePoolRollout",
    "observeWindowsNodes",
    "subscribeProgress",
    "uninstallExtension",
    "uninstallOperator",
    "waitForAutoscalersReady",
    "waitForExtensionInstall",
    "waitForMachineSetsDeleted",
    "waitForMachineSetsReady",
    "waitForNodeConfigRemoval",
    "waitForNodeMetadata",
    "waitForOperatorInstall",
    "waitForPoolRollout",
    "waitForWindowsNodes",
  ],
};

/**
 * The modules the dynamic providers of deployed stacks `require` by their path in the package, with the
 * members their serialized text reads (measured by serializing every waiter's provider, the rollout
 * baseline's and RsaPrivateKey's from the built package installed under node_modules). Those paths and
 * members must stay, whatever moves: a stack's state keeps the text it was deployed with.
 */
const SERIALIZED_REQUIRES: Record<string, string[]> = {
  "dist/provider/dynamic/common.js": ["UNKNOWN", "changedInputs", "checkName", "checkNames"],
  "dist/provider/dynamic/credentials.js": [
    "clusterServer",
    "currentCredentials",
    "explainRejectedCredentials",
    "rejectsCredentials",
  ],
  "dist/provider/waiting/waiters.js": [
    "MACHINE_API_NAMESPACE",
    "observeExtensionInstall",
    "observeMachineSets",
    "observeNodeMetadata",
    "observeOperatorInstall",
    "observePoolRollout",
    "observeWindowsNodes",
    "uninstallExtension",
    "uninstallOperator",
    "waitForExtensionInstall",
    "waitForMachineSetsDeleted",
    "waitForMachineSetsReady",
    "waitForNodeConfigRemoval",
    "waitForNodeMetadata",
    "waitForOperatorInstall",
    "waitForPoolRollout",
    "waitForWindowsNodes",
  ],
  "dist/provider/waiting/autoscaling.js": ["observeAutoscalers", "waitForAutoscalersReady"],
  // The object helpers moved to primitives/; providers serialized before then read them here.
  "dist/provider/waiting/kinds.js": ["annotationsOf", "conditionOf", "field", "labelsOf"],
  "dist/primitives/stable-json.js": ["stableJson"],
  "dist/builders/rollout-impact/index.js": ["impactLine", "impactSincePrevious"],
  // Each waiter's module, read by the provider its resources carry (see carriedProvider in schema.ts).
  "dist/provider/dynamic/pool-rollout.js": ["poolRolloutProvider", "nodeConfigRemovalProvider"],
  "dist/provider/dynamic/machineset.js": ["machineSetReadyProvider", "machineSetRemovalProvider"],
  "dist/provider/dynamic/operator.js": ["operatorInstallProvider", "operatorRemovalProvider"],
  "dist/provider/dynamic/extension.js": ["extensionInstallProvider", "extensionRemovalProvider"],
  "dist/provider/dynamic/windows-nodes-ready.js": ["windowsNodesReadyProvider"],
  "dist/provider/dynamic/node-metadata.js": ["nodeLabelsAndTaintsProvider"],
  "dist/provider/dynamic/machine-autoscaler.js": ["machineAutoscalerReadyProvider"],
  "dist/provider/dynamic/rollout-baseline.js": ["rolloutBaselineProvider"],
  "dist/provider/dynamic/pool-hold.js": ["poolHoldProvider"],
  "dist/provider/dynamic/canary-nodes.js": ["canaryNodesProvider"],
  "dist/provider/dynamic/patch-release.js": ["patchReleaseProvider"],
  // RsaPrivateKey lives with the Windows pool now; its providers deployed before read this module.
  "dist/provider/private-key/rsa-private-key.js": [
    "ALLOWED_RSA_BITS",
    "RsaPrivateKey",
    "publicKeyFingerprint",
    "rsaPrivateKeyProvider",
  ],
};

/** A namespace's runtime export names, sorted. */
function namesOf(namespace: object): string[] {
  return Object.keys(namespace).sort();
}

/** The backquoted identifiers of a piece of the docs. */
function identifiers(text: string): string[] {
  return [...text.matchAll(/`([A-Za-z_]\w*)`/g)].map((m) => m[1]);
}

/** The paragraph of `doc` that starts with `start`, up to the next blank line. */
function paragraph(doc: string, start: string): string {
  const at = doc.indexOf(start);
  assert.ok(at >= 0, `the doc has a paragraph starting ${start}`);
  const end = doc.indexOf("\n\n", at);
  return doc.slice(at, end < 0 ? undefined : end);
}

/** The library as an installed package in a temporary project, this repository's packages linked beside it. */
function installLibrary(): { project: string; root: string; dist: string; remove(): void } {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), "public-api-"));
  const root = installPackage(project, { linkDependencies: true });
  return {
    project,
    root,
    dist: path.join(root, "dist"),
    remove: () => fs.rmSync(project, { recursive: true, force: true }),
  };
}

describe("public API", () => {
  // The reference a user reads (README links it under "Components at a glance").
  const components = fs.readFileSync(path.join(ROOT, "docs", "components.md"), "utf8");
  const waiting = fs.readFileSync(path.join(ROOT, "docs", "waiting.md"), "utf8");

  it("exports exactly the pinned names at the root and in each namespace", () => {
    assert.deepEqual(namesOf(api), EXPORTS["(root)"]);
    for (const ns of NAMESPACES) assert.deepEqual(namesOf(api[ns]), EXPORTS[ns], ns);
  });

  it("exports no name twice across the root and its namespaces", () => {
    const all = Object.values(EXPORTS).flat();
    assert.deepEqual(
      all.filter((name, i) => all.indexOf(name) !== i),
      [],
    );
  });

  it("exports every component docs/components.md documents", () => {
    const sections = components.slice(0, components.indexOf("\n## Builders"));
    const documented = [...sections.matchAll(/^## (.+)$/gm)].flatMap((m) => identifiers(m[1]));
    assert.ok(documented.length >= 8, documented.join(", "));
    for (const name of documented)
      assert.equal(typeof (api as Record<string, unknown>)[name], "function", name);
  });

  it("lists every component of docs/components.md in the README's table at a glance, and only those", () => {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const table = paragraph(readme, "| Component | What it declares |");
    const glance = [...table.matchAll(/^\| (.+?) \|/gm)].flatMap((m) => identifiers(m[1]));
    const sections = components.slice(0, components.indexOf("\n## Builders"));
    const documented = [...sections.matchAll(/^## (.+)$/gm)].flatMap((m) => identifiers(m[1]));
    assert.deepEqual([...glance].sort(), [...documented].sort());
  });

  it("exports every builder, waiter and waiting function docs/components.md lists, and lists each one", () => {
    for (const ns of NAMESPACES) {
      const documented = identifiers(paragraph(components, `**\`${ns}\`**`)).filter((name) => name !== ns);
      assert.deepEqual([...new Set(documented)].sort(), EXPORTS[ns], ns);
    }
  });

  it("exports every waiter of docs/waiting.md's table under waiters", () => {
    const table = paragraph(waiting, "| Waiter | Done when |");
    const waiters = [...table.matchAll(/^\| `(\w+)`/gm)].map((m) => m[1]);
    assert.ok(waiters.length >= 7, waiters.join(", "));
    for (const name of waiters) assert.ok(EXPORTS.waiters.includes(name), name);
  });

  describe("module paths that serialized providers require stay reachable", () => {
    // dist/ mirrors the sources: the build compiles each module to the same path under dist/.
    const compilerOptions = (
      JSON.parse(fs.readFileSync(path.join(ROOT, "tsconfig.json"), "utf8")) as {
        compilerOptions: { rootDir: string; outDir: string };
      }
    ).compilerOptions;

    it("builds each source module to the same path under dist/", () => {
      assert.equal(compilerOptions.rootDir, ".");
      assert.equal(compilerOptions.outDir, "dist");
    });

    for (const [distPath, members] of Object.entries(SERIALIZED_REQUIRES)) {
      it(`${distPath} exports ${members.join(", ")}`, () => {
        const source = path.join(ROOT, distPath.replace(/^dist\//, "").replace(/\.js$/, ".ts"));
        const loaded = require(source) as Record<string, unknown>;
        for (const member of members) assert.notEqual(loaded[member], undefined, `${distPath}: ${member}`);
      });
    }
  });

  it("gives each waiter, installed, a provider to carry that requires its own module alone", async function () {
    this.timeout(60_000);
    // What every resource stores twice in state and the SDK analyses at each run: a few functions that
    // find the whole provider through its module, not the provider with everything it reaches.
    const installed = installLibrary();
    try {
      const library = require(installed.root) as typeof api;
      const { RolloutBaseline } = require(
        path.join(installed.dist, "provider/dynamic/rollout-baseline.js"),
      ) as typeof import("../provider/dynamic/rollout-baseline");
      await resetMocks();
      const kubeconfig = "apiVersion: v1\nkind: Config\n";
      const classes = Object.entries(library.waiters).filter(
        ([, v]) => typeof v === "function" && "provider" in v,
      );
      const waiters = classes as Array<[string, new (name: string, args: object) => pulumi.Resource]>;
      assert.ok(waiters.length >= 8, waiters.map(([n]) => n).join(", "));
      for (const [name, Waiter] of waiters) new Waiter(name, { kubeconfig, pool: "worker" });
      new RolloutBaseline("RolloutBaseline", { pool: "worker" });
      await settle();
      const carried = mocks.resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic:"));
      assert.equal(carried.length, waiters.length + 1);
      const module = (kind: string) =>
        Object.entries(SERIALIZED_REQUIRES).find(([, members]) =>
          members.includes(`${kind[0].toLowerCase()}${kind.slice(1)}Provider`),
        )?.[0];
      for (const r of carried) {
        const kind = r.type.slice("pulumi-nodejs:dynamic:".length);
        const text = String(r.inputs.__provider);
        const required = [...new Set([...text.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]))];
        assert.deepEqual(required, [`${PACKAGE_NAME}/${module(kind)}`], kind);
        assert.ok(text.length < 3000, `${kind} carries ${text.length} characters`);
        // Loaded as the dynamic-provider host loads it, from the program's directory: it finds the
        // installed provider and answers for it.
        const provider = requireFromString(text, path.join(installed.project, "index.js")).handler();
        const { failures } = await provider.check!({}, { pool: "worker" });
        assert.deepEqual(
          failures?.filter((f) => f.property === "kubeconfig").length,
          kind === "RolloutBaseline" ? 0 : 1,
          kind,
        );
      }
    } finally {
      installed.remove();
    }
  });

  it("serializes RsaPrivateKey's provider, installed, so that it requires node:crypto alone", async function () {
    this.timeout(60_000);
    // Installed, Pulumi serializes a module the provider reads as a `require` of its path: the key's
    // provider must read none.
    const installed = installLibrary();
    try {
      const { rsaPrivateKeyProvider } = require(
        path.join(installed.dist, "components/windows-node-pool/rsa-private-key.js"),
      ) as { rsaPrivateKeyProvider: object };
      const serialized = await pulumi.runtime.serializeFunction(() => rsaPrivateKeyProvider, {
        allowSecrets: true,
      });
      const required = [...serialized.text.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
      assert.deepEqual([...new Set(required)], ["node:crypto"]);
    } finally {
      installed.remove();
    }
  });
});
