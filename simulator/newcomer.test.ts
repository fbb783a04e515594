/**
 * The simulator as a newcomer meets it: a plain clone has no CRD files, yet `kubectl get` shows the
 * columns OpenShift shows, and the catalog can be browsed and subscribed to. That the columns are the
 * upstream CRDs' own is checked against the CRD files in simulator/schema's tests.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { kubectl, KubectlResult, kubectlMinorVersion } from "./apiserver/kubectl";
import { CATALOGS } from "./cluster/catalog";
import { Simulator, startSimulator } from "./simulator";

const MARKETPLACE = "openshift-marketplace";

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed: ${result.stderr}`);
  return result.stdout;
}

/** The header and rows of kubectl's table output, split on runs of two or more spaces. */
function table(output: string): { header: string[]; rows: string[][] } {
  const [header, ...rows] = output
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s{2,}/));
  return { header, rows };
}

describe("The simulator without CRD files, through kubectl", function () {
  this.timeout(60_000);
  let sim: Simulator;
  const run = (...args: string[]) => kubectl(sim.kubeconfigPath, args);

  before(async function () {
    if (kubectlMinorVersion() === undefined) {
      console.log("    kubectl is not installed: skipped");
      this.skip();
    }
    sim = await startSimulator({ platform: "aws", speed: 1000, crdDir: false });
  });

  after(() => sim?.stop());

  it("shows the MachineConfigPool columns of the upstream CRD", async () => {
    const { header, rows } = table(ok(await run("get", "mcp")));
    assert.deepEqual(header, [
      "NAME",
      "CONFIG",
      "UPDATED",
      "UPDATING",
      "DEGRADED",
      "MACHINECOUNT",
      "READYMACHINECOUNT",
      "UPDATEDMACHINECOUNT",
      "DEGRADEDMACHINECOUNT",
      "AGE",
    ]);
    const worker = rows.find((r) => r[0] === "worker")!;
    assert.match(worker[1], /^rendered-worker-[0-9a-f]+$/);
    assert.deepEqual(worker.slice(2, 9), ["True", "False", "False", "3", "3", "3", "0"]);
  });

  it("shows the MachineSet and Machine columns of the upstream CRDs", async () => {
    const sets = table(ok(await run("get", "machinesets", "-n", "openshift-machine-api")));
    assert.deepEqual(sets.header, ["NAME", "DESIRED", "CURRENT", "READY", "AVAILABLE", "AGE"]);
    assert.ok(sets.rows.length > 0);
    for (const row of sets.rows) assert.equal(row.length, 6, row.join("|"));
    const machines = table(ok(await run("get", "machines", "-n", "openshift-machine-api")));
    assert.deepEqual(machines.header, ["NAME", "PHASE", "TYPE", "REGION", "ZONE", "AGE"]);
    const worker = machines.rows.find((r) => r[0].includes("-worker-"))!;
    assert.equal(worker[1], "Running");
    assert.match(worker[3], /^us-east-2$/);
    assert.match(worker[4], /^us-east-2[a-z]$/);
    const wide = table(ok(await run("get", "machines", "-n", "openshift-machine-api", "-o", "wide")));
    assert.deepEqual(wide.header.slice(6), ["NODE", "PROVIDERID", "STATE"]);
  });

  it("lists the catalog's packages as the package server does, in every namespace", async () => {
    const { header, rows } = table(ok(await run("get", "packagemanifests", "-n", MARKETPLACE)));
    assert.deepEqual(header, ["NAME", "CATALOG", "AGE"]);
    const names = Object.keys(CATALOGS["redhat-operators"].packages).sort();
    assert.deepEqual(
      rows.map((r) => r[0]),
      names,
    );
    assert.ok(rows.every((r) => r[1] === "Red Hat Operators"));
    // RegistryProvider.List adds the global catalog namespace's packages to any namespace's.
    const elsewhere = table(ok(await run("get", "packagemanifests", "-n", "default")));
    assert.deepEqual(
      elsewhere.rows.map((r) => r[0]),
      names,
    );
    const channels = ok(
      await run(
        "get",
        "packagemanifest",
        "cluster-logging",
        "-n",
        MARKETPLACE,
        "-o",
        "jsonpath={.status.defaultChannel} {range .status.channels[*]}{.name}={.currentCSV} {end}",
      ),
    );
    assert.equal(
      channels.trim(),
      "stable-6.1 stable-6.0=cluster-logging.v6.0.2 stable-6.1=cluster-logging.v6.1.1",
    );
    const missing = await run("get", "packagemanifest", "no-such-operator", "-n", MARKETPLACE);
    assert.notEqual(missing.code, 0);
    assert.match(
      missing.stderr,
      /packagemanifests.packages.operators.coreos.com "no-such-operator" not found/,
    );
  });

  it("refuses writes to PackageManifests, which the package server only reads", async () => {
    const result = await run("delete", "packagemanifest", "cluster-logging", "-n", MARKETPLACE);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /MethodNotAllowed|does not allow this method/);
  });

  it("installs an operator found there: local-storage-operator from its default channel", async () => {
    const ns = ok(
      await run(
        "get",
        "packagemanifest",
        "local-storage-operator",
        "-n",
        MARKETPLACE,
        "-o",
        "jsonpath={.status.channels[0].currentCSVDesc.annotations.operatorframework\\.io/suggested-namespace}",
      ),
    ).trim();
    assert.equal(ns, "openshift-local-storage");
    const manifests = [
      { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } },
      {
        apiVersion: "operators.coreos.com/v1",
        kind: "OperatorGroup",
        metadata: { name: "local-storage", namespace: ns },
        spec: { targetNamespaces: [ns] },
      },
      {
        apiVersion: "operators.coreos.com/v1alpha1",
        kind: "Subscription",
        metadata: { name: "local-storage-operator", namespace: ns },
        spec: {
          name: "local-storage-operator",
          channel: "stable",
          source: "redhat-operators",
          sourceNamespace: MARKETPLACE,
        },
      },
    ];
    ok(
      await kubectl(
        sim.kubeconfigPath,
        ["apply", "-f", "-"],
        JSON.stringify({ kind: "List", apiVersion: "v1", items: manifests }),
      ),
    );
    const head = "local-storage-operator.v4.17.0-202411190033";
    ok(
      await run("wait", `csv/${head}`, "-n", ns, "--for=jsonpath={.status.phase}=Succeeded", "--timeout=30s"),
    );
    const subs = table(ok(await run("get", "subscriptions", "-n", ns)));
    assert.deepEqual(subs.header, ["NAME", "PACKAGE", "SOURCE", "CHANNEL"]);
    assert.deepEqual(subs.rows, [
      ["local-storage-operator", "local-storage-operator", "redhat-operators", "stable"],
    ]);
    const csvs = table(ok(await run("get", "csv", "-n", ns)));
    assert.deepEqual(csvs.header, ["NAME", "DISPLAY", "VERSION", "RELEASE", "REPLACES", "PHASE"]);
    assert.deepEqual(csvs.rows, [
      [
        head,
        "Local Storage",
        "4.17.0-202411190033",
        "local-storage-operator.v4.17.0-202410241236",
        "Succeeded",
      ],
    ]);
  });

  it("documents every fault it can inject, and only those, in docs/simulator.md", () => {
    const doc = fs.readFileSync(path.join(__dirname, "..", "docs", "simulator.md"), "utf8");
    // Option rows (`--speed`) do not match: only the fault tables' names.
    const documented = [...doc.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
    assert.deepEqual(documented.sort(), [...sim.faults.names()].sort());
  });
});
