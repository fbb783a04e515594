import * as assert from "node:assert/strict";
import * as path from "node:path";
import { Simulator } from "../../simulator/simulator";
import { simulatorForSuite } from "../../test/harness-simulator";
import {
  destroyLeavesNothing,
  kubectl,
  previewThenUp,
  refreshFindsDrift,
  revise,
} from "../../test/stack-life";
import { DeployOptions } from "../deploy";
import { loadProject } from "../project";

const PROGRAM = path.join(__dirname, "..", "testdata", "ignore-changes");

describe("refresh of a resource with ignoreChanges", function () {
  this.timeout(60_000);
  let sim: Simulator;
  let dir: string;
  const suite = simulatorForSuite("harness-refresh-");
  before(() => ({ sim, dir } = suite));

  it("keeps ignoreChanges in the checkpoint and shows no drift at those paths, as the engine's refresh, through the program's whole life", async () => {
    const options = (config: string[] = []): DeployOptions => ({
      project: loadProject(PROGRAM, "dev", config),
      kubeconfigPath: sim.kubeconfigPath,
      statePath: path.join(dir, "state.json"),
    });
    const up = await previewThenUp(sim, options(), ["create scaled"]);
    const configMap = up.state.deployment.resources.find((r) => r.urn.endsWith("::scaled"))!;
    assert.deepEqual(configMap.ignoreChanges, ["data.replicas"]);

    const patch = (data: object) => [
      "patch",
      "configmap",
      "scaled",
      "-n",
      "default",
      "--type=merge",
      `-p=${JSON.stringify({ data })}`,
    ];
    // Another actor's field: no drift in the refreshes below, and the revision's up leaves it alone.
    await kubectl(sim.kubeconfigPath, patch({ replicas: "3" }));
    const second = options(["size=medium"]);
    await revise(second, ["update scaled"]);
    await refreshFindsDrift(sim, second, patch({ size: "large" }), { scaled: ["data.size"] });
    const live = await kubectl(sim.kubeconfigPath, [
      "get",
      "configmap",
      "scaled",
      "-n",
      "default",
      "-o",
      "jsonpath={.data.replicas}",
    ]);
    assert.equal(live, "3");
    await destroyLeavesNothing(sim, second);
  });
});
