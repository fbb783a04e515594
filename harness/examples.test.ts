import * as assert from "node:assert/strict";
import * as path from "node:path";
import { Simulator } from "../simulator/simulator";
import { simulatorForSuite } from "../test/harness-simulator";
import { destroyLeavesNothing, previewThenUp, refreshFindsDrift, revise } from "../test/stack-life";
import { DeployOptions } from "./deploy";
import { installedProgram } from "./installed";
import { loadProject } from "./project";

const EXAMPLES = path.resolve(__dirname, "..", "examples");

interface Life {
  platform: "aws" | "azure";
  /** The second revision's config and exactly what its preview plans. */
  revision: { config: string[]; changes: string[] };
  /** A change made by hand with kubectl after it, and what the refresh then finds (name to paths). */
  drift: { kubectl: string[]; drifted: Record<string, string[]> };
}

/**
 * An example's whole life under the engine, on one simulator of its platform, the library installed
 * beside it as in a user's project: preview, up, a second revision, a refresh without drift, drift made
 * by hand, and a destroy that leaves nothing of the stack.
 */
function lifecycle(example: string, life: Life): void {
  describe(`examples/${example} through the engine`, function () {
    this.timeout(240_000);
    let sim: Simulator;
    let dir: string;
    const suite = simulatorForSuite(`harness-${example}-`, { speed: 500, platform: life.platform });
    before(() => ({ sim, dir } = suite));

    it("previews, deploys, plans and deploys exactly its second revision, refreshes, finds drift made by hand, and destroys leaving nothing", async () => {
      const program = installedProgram(path.join(EXAMPLES, example));
      const options = (config: string[] = []): DeployOptions => ({
        project: loadProject(program, "dev", config),
        kubeconfigPath: sim.kubeconfigPath,
        statePath: path.join(dir, "state.json"),
      });
      await previewThenUp(sim, options());

      const second = options(life.revision.config);
      await revise(second, life.revision.changes);
      await refreshFindsDrift(sim, second, life.drift.kubectl, life.drift.drifted);

      await destroyLeavesNothing(sim, second);
      const windowsMachines = sim.store
        .list("machine.openshift.io/v1beta1", "Machine", { namespace: "openshift-machine-api" })
        .filter((m) => m.metadata.labels?.["machine.openshift.io/os-id"] === "Windows");
      assert.deepEqual(windowsMachines, []);
    });
  });
}

lifecycle("aws-infra-windows", {
  platform: "aws",
  // A new time server: the MachineConfig and the rollout that awaits it; nothing else.
  revision: {
    config: ["timeServer=time.aws.com"],
    changes: ["update 99-infra-chrony", "update 99-infra-chrony-rollout"],
  },
  drift: {
    kubectl: [
      "patch",
      "configmap",
      "cluster-monitoring-config",
      "-n",
      "openshift-monitoring",
      "--type=merge",
      '-p={"data":{"config.yaml":"{}\\n"}}',
    ],
    drifted: { "infra-monitoring": ["data.config.yaml"] },
  },
});

lifecycle("azure-infra-windows", {
  platform: "azure",
  // One more Windows machine: its MachineSet and the waiter for its nodes; the pools' rollouts stay.
  revision: { config: ["windowsReplicas=3"], changes: ["update windows-1", "update windows-nodes-ready"] },
  drift: {
    kubectl: [
      "patch",
      "configs.imageregistry.operator.openshift.io",
      "cluster",
      "--type=merge",
      '-p={"spec":{"nodeSelector":{"node-role.kubernetes.io/infra":"moved"}}}',
    ],
    drifted: { "infra-registry": ["spec.nodeSelector.node-role.kubernetes.io/infra"] },
  },
});
