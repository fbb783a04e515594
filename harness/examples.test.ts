import * as assert from "node:assert/strict";
import * as path from "node:path";
import { Simulator } from "../simulator/simulator";
import { simulatorForSuite } from "../test/harness-simulator";
import { CheckpointResource } from "./engine/checkpoint";
import { deploy, DeployOptions, DeployResult, destroy, preview, refresh } from "./deploy";
import { fieldManager, kubeType } from "./kube";
import { loadProject } from "./project";
import { reveal } from "./secrets";

const EXAMPLES = path.resolve(__dirname, "..", "examples");

/** The steps that change something, as `pulumi preview --diff` lists them. */
const changes = (result: DeployResult) =>
  result.plan.filter((s) => s.op !== "same" && s.op !== "read").map((s) => `${s.op} ${s.name}`);

/** The Kubernetes objects the stack manages (not the ones it only reads). */
const managed = (resources: CheckpointResource[]) =>
  resources.filter((r) => kubeType(r.type) && !(r as { external?: boolean }).external);

/** What of `resource` the cluster still has: the object, or for a patch the fields its manager applied. */
function leftover(sim: Simulator, resource: CheckpointResource): string | undefined {
  const type = kubeType(resource.type)!;
  const { name, namespace } = (reveal(resource.inputs) as { metadata: { name: string; namespace?: string } })
    .metadata;
  const live = sim.store.get({ apiVersion: type.apiVersion, kind: type.kind, name, namespace });
  if (!type.patch) return live ? `${type.kind} ${name}` : undefined;
  const managers = (live?.metadata.managedFields ?? []) as Array<{ manager?: string }>;
  return managers.some((m) => m.manager === fieldManager(resource.urn))
    ? `fields of ${type.kind} ${name}`
    : undefined;
}

/**
 * An example's whole life under the engine, on one simulator of its platform: preview, up, a refresh
 * without drift, a preview that plans nothing, and a destroy that leaves nothing of the stack.
 */
function lifecycle(example: string, platform: "aws" | "azure"): void {
  describe(`examples/${example} through the engine`, function () {
    this.timeout(240_000);
    let sim: Simulator;
    let dir: string;
    const suite = simulatorForSuite(`harness-${example}-`, { speed: 500, platform });
    before(() => ({ sim, dir } = suite));

    it("previews, deploys, refreshes without drift, then previews no change and destroys leaving nothing", async () => {
      const options = (): DeployOptions => ({
        project: loadProject(path.join(EXAMPLES, example)),
        kubeconfigPath: sim.kubeconfigPath,
        statePath: path.join(dir, "state.json"),
      });
      const planned = await preview(options());
      assert.deepEqual(planned.errors, []);

      const up = await deploy(options());
      assert.deepEqual(up.errors, []);
      assert.deepEqual(changes(up).sort(), changes(planned).sort(), "up did what the preview planned");
      const objects = managed(up.state.deployment.resources);
      assert.deepEqual(
        objects.filter((r) => leftover(sim, r) === undefined).map((r) => r.urn),
        [],
        "every object the stack manages is in the cluster",
      );

      const refreshed = await refresh(options());
      assert.deepEqual(refreshed.errors, []);
      assert.deepEqual(changes(refreshed), []);
      // After the inputs were read back (a Secret's stringData as data), the program still plans nothing.
      const again = await preview(options());
      assert.deepEqual(again.errors, []);
      assert.deepEqual(changes(again), []);

      const down = await destroy(options());
      assert.deepEqual(down.errors, []);
      assert.deepEqual(objects.map((r) => leftover(sim, r)).filter(Boolean), []);
      const windowsMachines = sim.store
        .list("machine.openshift.io/v1beta1", "Machine", { namespace: "openshift-machine-api" })
        .filter((m) => m.metadata.labels?.["machine.openshift.io/os-id"] === "Windows");
      assert.deepEqual(windowsMachines, []);
      assert.deepEqual(
        down.state.deployment.resources.filter((r) => r.custom && !r.type.startsWith("pulumi:providers:")),
        [],
      );
    });
  });
}

lifecycle("aws-infra-windows", "aws");
lifecycle("azure-infra-windows", "azure");
