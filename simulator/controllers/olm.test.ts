import * as assert from "node:assert/strict";
import { isQualifiedName } from "../../primitives/names";
import { KubeObject } from "../store/types";
import { K, Sim, WMCO_NAMESPACE, condition, startSim, subscribeWmco } from "./testing";
import { keyOf } from "./util";

const SUB = "windows-machine-config-operator";
const HEAD = "windows-machine-config-operator.v10.17.0";
const OLDER = "windows-machine-config-operator.v10.16.1";

interface SubStatus {
  state?: string;
  currentCSV?: string;
  installedCSV?: string;
  installPlanRef?: { name: string; kind: string };
  installPlanGeneration?: number;
}

const subStatus = (sim: Sim) => (sim.get(K.subscription, SUB, WMCO_NAMESPACE)?.status ?? {}) as SubStatus;
const csvPhase = (sim: Sim, name: string) =>
  (sim.get(K.csv, name, WMCO_NAMESPACE)?.status as { phase?: string } | undefined)?.phase;
const installPlans = (sim: Sim) =>
  sim.store.list(K.installPlan.apiVersion, K.installPlan.kind, { namespace: WMCO_NAMESPACE });
const ipSpec = (ip: KubeObject) =>
  ip.spec as {
    approval: string;
    approved: boolean;
    clusterServiceVersionNames: string[];
    generation: number;
  };

/** Installed as the DOMAIN waiter defines it: installedCSV set and that CSV Succeeded. */
function installed(sim: Sim, csv: string): boolean {
  return subStatus(sim).installedCSV === csv && csvPhase(sim, csv) === "Succeeded";
}

function approve(sim: Sim, ip: KubeObject): void {
  sim.store.mutate(
    keyOf(K.installPlan, ip.metadata.name, WMCO_NAMESPACE),
    (o) => ((o.spec as { approved: boolean }).approved = true),
  );
}

describe("OLM", () => {
  let sim: Sim;
  beforeEach(() => (sim = startSim()));
  afterEach(() => sim.stop());

  it("installs the channel head with Automatic approval: InstallPlan, CSV phases, Subscription status", async () => {
    // The phases of a healthy install only: OLM's install timeout, which a loaded machine could reach at
    // this speed, is held off.
    sim.stop();
    sim = startSim("aws", undefined, { installTimeout: 1e12 });
    const phases: string[] = [];
    const unwatch = sim.watch(({ object }) => {
      const phase = (object.status as { phase?: string } | undefined)?.phase;
      if (object.kind === "ClusterServiceVersion" && phase && phases[phases.length - 1] !== phase)
        phases.push(phase);
    });
    subscribeWmco(sim);
    await sim.until("installed", () => installed(sim, HEAD));
    unwatch();
    assert.deepEqual(phases, ["Pending", "InstallReady", "Installing", "Succeeded"]);
    const [ip] = installPlans(sim);
    assert.match(ip.metadata.name, /^install-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(ipSpec(ip), {
      approval: "Automatic",
      approved: true,
      clusterServiceVersionNames: [HEAD],
      generation: 1,
    });
    assert.equal(ip.metadata.ownerReferences?.[0].kind, "Subscription");
    assert.equal((ip.status as { phase: string }).phase, "Complete");
    const sub = sim.get(K.subscription, SUB, WMCO_NAMESPACE);
    const s = subStatus(sim);
    assert.equal(s.state, "AtLatestKnown");
    assert.equal(s.currentCSV, HEAD);
    assert.equal(s.installPlanRef?.name, ip.metadata.name);
    assert.equal(s.installPlanGeneration, 1);
    assert.equal(condition(sub, "CatalogSourcesUnhealthy")?.status, "False");
    assert.equal(condition(sub, "CatalogSourcesUnhealthy")?.reason, "AllCatalogSourcesHealthy");
    assert.equal(condition(sub, "ResolutionFailed"), undefined);
    assert.equal(condition(sub, "InstallPlanPending"), undefined);
    const csv = sim.get(K.csv, HEAD, WMCO_NAMESPACE)!;
    assert.equal((csv.status as { reason: string }).reason, "InstallSucceeded");
    assert.equal((csv.spec as { version: string }).version, "10.17.0");
  });

  it("labels the InstallPlan and CSV with OLM's component label, its name cut to the 63 characters a label allows", async () => {
    subscribeWmco(sim);
    await sim.until("installed", () => installed(sim, HEAD));
    // `<package>.<namespace>` is 73 characters for WMCO in its namespace.
    const key = "operators.coreos.com/windows-machine-config-operator.openshift-windows-machine-confi";
    assert.ok(isQualifiedName(key));
    for (const object of [installPlans(sim)[0], sim.get(K.csv, HEAD, WMCO_NAMESPACE)!])
      assert.equal(
        object.metadata.labels?.[key],
        "",
        `${object.kind} ${JSON.stringify(object.metadata.labels)}`,
      );
  });

  it("waits for approval with Manual: the pinned startingCSV first, then the upgrade as a second InstallPlan", async () => {
    subscribeWmco(sim, { approval: "Manual", startingCSV: OLDER });
    const first = await sim.until("InstallPlan awaiting approval", () => installPlans(sim)[0]);
    assert.deepEqual(ipSpec(first), {
      approval: "Manual",
      approved: false,
      clusterServiceVersionNames: [OLDER],
      generation: 1,
    });
    const pending = await sim.until("InstallPlanPending", () => {
      const sub = sim.get(K.subscription, SUB, WMCO_NAMESPACE);
      return condition(sub, "InstallPlanPending")?.reason === "RequiresApproval" && sub;
    });
    assert.equal((pending.status as SubStatus).state, "UpgradePending");
    assert.equal((pending.status as SubStatus).currentCSV, OLDER);
    assert.equal(sim.get(K.csv, OLDER, WMCO_NAMESPACE), undefined, "nothing installs before approval");

    approve(sim, first);
    await sim.until("starting CSV installed", () => installed(sim, OLDER));
    const upgrade = await sim.until("upgrade InstallPlan", () =>
      installPlans(sim).find((ip) => ipSpec(ip).clusterServiceVersionNames[0] === HEAD),
    );
    assert.deepEqual(ipSpec(upgrade), {
      approval: "Manual",
      approved: false,
      clusterServiceVersionNames: [HEAD],
      generation: 2,
    });
    await sim.until("upgrade pending on the subscription", () => {
      const s = subStatus(sim);
      return (
        s.state === "UpgradePending" &&
        s.currentCSV === HEAD &&
        s.installedCSV === OLDER &&
        s.installPlanRef?.name === upgrade.metadata.name
      );
    });
    approve(sim, upgrade);
    await sim.until(
      "upgraded, old CSV replaced",
      () => installed(sim, HEAD) && !sim.get(K.csv, OLDER, WMCO_NAMESPACE),
    );
  });

  it("upgrades from a pinned startingCSV to the head by itself with Automatic approval", async () => {
    const created: string[] = [];
    const unwatch = sim.watch(({ type, object }) => {
      if (type === "ADDED" && object.kind === "ClusterServiceVersion") created.push(object.metadata.name);
    });
    subscribeWmco(sim, { startingCSV: OLDER });
    await sim.until("head installed", () => installed(sim, HEAD) && !sim.get(K.csv, OLDER, WMCO_NAMESPACE));
    unwatch();
    assert.deepEqual(created, [OLDER, HEAD]);
  });

  it("installs nothing without an OperatorGroup, says why, and proceeds once one exists", async () => {
    subscribeWmco(sim, { operatorGroup: false });
    const sub = await sim.until("ResolutionFailed", () => {
      const o = sim.get(K.subscription, SUB, WMCO_NAMESPACE);
      return condition(o, "ResolutionFailed")?.status === "True" && o;
    });
    assert.equal(condition(sub, "ResolutionFailed")?.reason, "ErrorPreventedResolution");
    assert.equal(
      condition(sub, "ResolutionFailed")?.message,
      "expected 1 OperatorGroup in the namespace, found 0",
    );
    assert.equal(installPlans(sim).length, 0);
    assert.equal(sim.store.list(K.csv.apiVersion, K.csv.kind, { namespace: WMCO_NAMESPACE }).length, 0);

    sim.store.create({
      apiVersion: "operators.coreos.com/v1",
      kind: "OperatorGroup",
      metadata: { name: "wmco", namespace: WMCO_NAMESPACE },
      spec: { targetNamespaces: [WMCO_NAMESPACE] },
    });
    await sim.until("installed", () => installed(sim, HEAD));
    assert.equal(condition(sim.get(K.subscription, SUB, WMCO_NAMESPACE), "ResolutionFailed"), undefined);
    assert.deepEqual(
      (sim.get(K.operatorGroup, "wmco", WMCO_NAMESPACE)?.status as { namespaces: string[] }).namespaces,
      [WMCO_NAMESPACE],
    );
  });

  for (const [what, options, message] of [
    [
      "an unknown package",
      { pkg: "no-such-operator" },
      "no operators found in package no-such-operator in the catalog referenced by subscription windows-machine-config-operator",
    ],
    [
      "an unknown channel",
      { channel: "fast" },
      "no operators found in channel fast of package windows-machine-config-operator in the catalog referenced by subscription windows-machine-config-operator",
    ],
  ] as const) {
    it(`fails resolution on ${what}`, async () => {
      subscribeWmco(sim, options);
      const sub = await sim.until("ResolutionFailed", () => {
        const o = sim.get(K.subscription, SUB, WMCO_NAMESPACE);
        return condition(o, "ResolutionFailed") && o;
      });
      assert.equal(condition(sub, "ResolutionFailed")?.reason, "ConstraintsNotSatisfiable");
      assert.equal(condition(sub, "ResolutionFailed")?.message, `constraints not satisfiable: ${message}`);
      assert.equal(installPlans(sim).length, 0);
    });
  }

  it("fails a CSV whose OperatorGroup targets all namespaces when the operator supports only its own", async () => {
    sim.store.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: WMCO_NAMESPACE } });
    sim.store.create({
      apiVersion: "operators.coreos.com/v1",
      kind: "OperatorGroup",
      metadata: { name: "global", namespace: WMCO_NAMESPACE },
      spec: {},
    });
    sim.store.create({
      apiVersion: "operators.coreos.com/v1alpha1",
      kind: "Subscription",
      metadata: { name: SUB, namespace: WMCO_NAMESPACE },
      spec: {
        channel: "stable",
        name: SUB,
        source: "redhat-operators",
        sourceNamespace: "openshift-marketplace",
      },
    });
    const csv = await sim.until(
      "Failed CSV",
      () => csvPhase(sim, HEAD) === "Failed" && sim.get(K.csv, HEAD, WMCO_NAMESPACE),
    );
    assert.equal((csv.status as { reason: string }).reason, "UnsupportedOperatorGroup");
    assert.equal(
      (csv.status as { message: string }).message,
      "AllNamespaces InstallModeType not supported, cannot configure to watch all namespaces",
    );
  });

  it("reports a missing CatalogSource as CatalogSourcesUnhealthy", async () => {
    sim.store.delete(keyOf(K.catalogSource, "redhat-operators", "openshift-marketplace"));
    subscribeWmco(sim);
    const sub = await sim.until("unhealthy", () => {
      const o = sim.get(K.subscription, SUB, WMCO_NAMESPACE);
      return (
        condition(o, "CatalogSourcesUnhealthy")?.status === "True" && condition(o, "ResolutionFailed") && o
      );
    });
    // UpdateHealth: with no source in scope at all, NoCatalogSourcesFound replaces the "missing" message.
    assert.equal(condition(sub, "CatalogSourcesUnhealthy")?.reason, "NoCatalogSourcesFound");
    assert.equal(
      condition(sub, "CatalogSourcesUnhealthy")?.message,
      "dependency resolution requires at least one catalogsource",
    );
  });

  it("raises CatalogSourcesUnhealthy for any unhealthy source in scope, naming the Subscription's own only when it is at fault", async () => {
    // catalog/subscription/state.go catalogHealthState.UpdateHealth.
    sim.store.create({
      apiVersion: K.catalogSource.apiVersion,
      kind: K.catalogSource.kind,
      metadata: { name: "mirror-operators", namespace: "openshift-marketplace" },
      spec: { sourceType: "grpc", image: "mirror.example.com/index:v4.17" },
      status: { connectionState: { lastObservedState: "TRANSIENT_FAILURE" } },
    });
    subscribeWmco(sim);
    await sim.until("installed", () => installed(sim, HEAD));
    const sub = sim.get(K.subscription, SUB, WMCO_NAMESPACE);
    const unhealthy = condition(sub, "CatalogSourcesUnhealthy");
    assert.equal(unhealthy?.status, "True");
    assert.equal(unhealthy?.reason, "UnhealthyCatalogSourceFound");
    assert.doesNotMatch(unhealthy?.message ?? "", /targeted/);
    const health = (
      sub?.status as { catalogHealth: Array<{ catalogSourceRef: { name: string }; healthy: boolean }> }
    ).catalogHealth;
    assert.deepEqual(health.map((h) => [h.catalogSourceRef.name, h.healthy]).sort(), [
      ["mirror-operators", false],
      ["redhat-operators", true],
    ]);
  });

  it("leaves the CSV installed when the Subscription is deleted", async () => {
    subscribeWmco(sim);
    await sim.until("installed", () => installed(sim, HEAD));
    sim.store.delete(keyOf(K.subscription, SUB, WMCO_NAMESPACE));
    await sim.until("InstallPlan collected with its Subscription", () => installPlans(sim).length === 0);
    assert.equal(csvPhase(sim, HEAD), "Succeeded");
  });
});
