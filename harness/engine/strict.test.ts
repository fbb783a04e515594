/**
 * The rules of a real `pulumi up` with pulumi-kubernetes 4.x that the engine holds programs to, each
 * checked against the upstream function that decides it (pulumi/pulumi-kubernetes provider/pkg, and
 * pulumi/pulumi pkg/resource/deploy). One stack per behaviour, all on one simulator.
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { Simulator } from "../../simulator/simulator";
import { simulatorForSuite } from "../../test/harness-simulator";
import { changes, kubectl } from "../../test/stack-life";
import { deploy, DeployOptions, destroy, preview } from "../deploy";
import { CSA_FIELD_MANAGER, fieldManager } from "../kube";
import { loadProject } from "../project";

const PROGRAM = path.join(__dirname, "..", "testdata", "strict-kube");

describe("the engine holds programs to pulumi-kubernetes' rules", function () {
  this.timeout(60_000);
  let sim: Simulator;
  let dir: string;
  const suite = simulatorForSuite("harness-strict-");
  before(() => ({ sim, dir } = suite));

  /** The stack `stack` of the program, with `config` (`key=value`) on top. */
  const stackOf = (stack: string, config: string[]): DeployOptions => ({
    project: loadProject(PROGRAM, "dev", [`name=${stack}`, ...config]),
    kubeconfigPath: sim.kubeconfigPath,
    statePath: path.join(dir, `${stack}.json`),
  });
  const live = (kind: string, name: string) =>
    sim.store.get({ apiVersion: "v1", kind, name, namespace: "default" });
  const managers = (kind: string, name: string) =>
    ((live(kind, name)?.metadata.managedFields ?? []) as Array<{ manager: string; operation: string }>)
      .map((e) => `${e.manager} ${e.operation}`)
      .sort();
  const urnOf = (name: string) =>
    `urn:pulumi:dev::harness-strict-kube::kubernetes:core/v1:ConfigMap::${name}`;

  it("fails to create an object that exists, with pulumi-kubernetes' advice, and adopts it through a provider with upsertExistingObjects (await.go, Creation)", async () => {
    await kubectl(sim.kubeconfigPath, [
      "create",
      "configmap",
      "taken",
      "-n",
      "default",
      "--from-literal=value=one",
    ]);
    const strict = await deploy(stackOf("taken", []));
    assert.equal(strict.ok, false);
    assert.match(strict.errors.join("\n"), /ConfigMap taken: .*configmaps "taken" already exists/);
    assert.match(strict.errors.join("\n"), /set upsertExistingObjects on the provider/);
    assert.deepEqual(
      strict.state.deployment.resources.filter((r) => r.type.endsWith(":ConfigMap")),
      [],
      "the failed create is not in the state",
    );
    assert.equal(live("ConfigMap", "taken")?.metadata.labels, undefined, "the object is untouched");

    const adopted = await deploy(stackOf("taken", ["upsertProvider=true"]));
    assert.deepEqual(adopted.errors, []);
    // The upsert applies without force: a field the hand-made object holds at another value conflicts
    // (patchForce), so the object is adopted as it is and the program's additions applied.
    assert.deepEqual(live("ConfigMap", "taken")?.metadata.labels, { tier: "a" });
    assert.ok(managers("ConfigMap", "taken").includes(`${fieldManager(urnOf("taken"))} Apply`));
    assert.deepEqual((await destroy(stackOf("taken", ["upsertProvider=true"]))).errors, []);
  });

  it("creates client-side as pulumi-kubernetes, moves those fields to the resource's manager on the first update, and replaces a ConfigMap whose data changes unless the provider makes it mutable (Creation, fixCSAFieldManagers, forceNewProperties)", async () => {
    const first = await deploy(stackOf("fresh", []));
    assert.deepEqual(first.errors, []);
    assert.deepEqual(managers("ConfigMap", "fresh"), [`${CSA_FIELD_MANAGER} Update`]);

    const relabelled = await deploy(stackOf("fresh", ["tier=b"]));
    assert.deepEqual(relabelled.errors, []);
    assert.deepEqual(changes(relabelled), ["update fresh"]);
    assert.deepEqual(managers("ConfigMap", "fresh"), [`${fieldManager(urnOf("fresh"))} Apply`]);

    const uid = live("ConfigMap", "fresh")?.metadata.uid;
    const planned = await preview(stackOf("fresh", ["tier=b", "value=two"]));
    assert.deepEqual(
      planned.plan.filter((s) => s.op !== "same").map((s) => [s.op, s.diffs]),
      [["replace", ["data.value"]]],
    );
    const replaced = await deploy(stackOf("fresh", ["tier=b", "value=two"]));
    assert.deepEqual(replaced.errors, []);
    assert.deepEqual(changes(replaced), ["replace fresh"]);
    assert.notEqual(live("ConfigMap", "fresh")?.metadata.uid, uid, "a new object");

    const mutable = await preview(
      stackOf("fresh", ["tier=b", "value=three", "kubernetes:enableConfigMapMutable=true"]),
    );
    assert.deepEqual(changes(mutable), ["update fresh"]);
    assert.deepEqual((await destroy(stackOf("fresh", []))).errors, []);
  });
});
