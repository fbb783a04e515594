import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import * as ts from "typescript";
import * as api from "../index";

/**
 * The package's public API is written out by name. These lists pin it: an export added or dropped shows
 * here in review, as a deliberate change of this file, never as a side effect of a module's exports.
 */

const ROOT = path.resolve(__dirname, "..");

const NAMESPACES = ["builders", "waiters", "waiting"] as const;

const EXPORTS: Record<"(root)" | (typeof NAMESPACES)[number], string[]> = {
  "(root)": [
    "ClusterAutoscaler",
    "ContainerRuntimeConfig",
    "InfraNodePool",
    "KubeletConfig",
    "MachineConfig",
    "MachineConfigPool",
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
    "MachineAutoscalerReady",
    "MachineSetReady",
    "MachineSetRemoval",
    "NodeConfigRemoval",
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
  ],
  waiting: [
    "createApiClient",
    "describeApiError",
    "isWaitError",
    "observeAutoscalers",
    "observeMachineSets",
    "observeOperatorInstall",
    "observePoolRollout",
    "observeWindowsNodes",
    "subscribeProgress",
    "uninstallOperator",
    "waitForAutoscalersReady",
    "waitForMachineSetsDeleted",
    "waitForMachineSetsReady",
    "waitForNodeConfigRemoval",
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
    "observeMachineSets",
    "observeOperatorInstall",
    "observePoolRollout",
    "observeWindowsNodes",
    "uninstallOperator",
    "waitForMachineSetsDeleted",
    "waitForMachineSetsReady",
    "waitForNodeConfigRemoval",
    "waitForOperatorInstall",
    "waitForPoolRollout",
    "waitForWindowsNodes",
  ],
  "dist/provider/waiting/autoscaling.js": ["observeAutoscalers", "waitForAutoscalersReady"],
  // The object helpers moved to primitives/; providers serialized before then read them here.
  "dist/provider/waiting/kinds.js": ["annotationsOf", "conditionOf", "field", "labelsOf"],
  "dist/primitives/stable-json.js": ["stableJson"],
  "dist/builders/rollout-impact/index.js": ["impactLine", "impactSincePrevious"],
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

/** The backquoted identifiers of a piece of the README. */
function identifiers(text: string): string[] {
  return [...text.matchAll(/`([A-Za-z_]\w*)`/g)].map((m) => m[1]);
}

/** The README's paragraph that starts with `start`, up to the next blank line. */
function paragraph(readme: string, start: string): string {
  const at = readme.indexOf(start);
  assert.ok(at >= 0, `README has a paragraph starting ${start}`);
  const end = readme.indexOf("\n\n", at);
  return readme.slice(at, end < 0 ? undefined : end);
}

describe("public API", () => {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");

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

  it("exports every component the README documents", () => {
    const components = readme.slice(readme.indexOf("\n## Components"), readme.indexOf("\n### Builders"));
    const documented = [...components.matchAll(/^### (.+)$/gm)].flatMap((m) => identifiers(m[1]));
    assert.ok(documented.length >= 8, documented.join(", "));
    for (const name of documented)
      assert.equal(typeof (api as Record<string, unknown>)[name], "function", name);
  });

  it("exports every builder, waiter and waiting function the README lists, and lists each one", () => {
    for (const ns of NAMESPACES) {
      const documented = identifiers(paragraph(readme, `**\`${ns}\`**`)).filter((name) => name !== ns);
      assert.deepEqual([...new Set(documented)].sort(), EXPORTS[ns], ns);
    }
  });

  it("exports every waiter of the README's table under waiters", () => {
    const table = readme.slice(readme.indexOf("| Waiter | Done when |"));
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

  it("serializes RsaPrivateKey's provider, installed, so that it requires node:crypto alone", async () => {
    // Compiled as the build compiles it and laid out as an installed package, where Pulumi serializes a
    // module the provider reads as a `require` of its path: the key's provider must read none.
    const module = "components/windows-node-pool/rsa-private-key";
    const { outputText } = ts.transpileModule(fs.readFileSync(path.join(ROOT, `${module}.ts`), "utf8"), {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    });
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "public-api-"));
    try {
      const modules = path.join(tmp, "node_modules");
      const file = path.join(modules, "@openshift-topology", "pulumi", "dist", `${module}.js`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, outputText);
      fs.symlinkSync(path.join(ROOT, "node_modules", "@pulumi"), path.join(modules, "@pulumi"));
      const { rsaPrivateKeyProvider } = require(file) as { rsaPrivateKeyProvider: object };
      const serialized = await pulumi.runtime.serializeFunction(() => rsaPrivateKeyProvider, {
        allowSecrets: true,
      });
      const required = [...serialized.text.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
      assert.deepEqual([...new Set(required)], ["node:crypto"]);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
