import * as assert from "node:assert/strict";
import * as path from "node:path";
import { Simulator } from "../../simulator/simulator";
import { simulatorForSuite } from "../../test/harness-simulator";
import { changes, kubectl } from "../../test/stack-life";
import { deploy, DeployOptions, preview, refresh } from "../deploy";
import { loadProject } from "../project";

const PROGRAM = path.join(__dirname, "..", "testdata", "ignore-changes");

describe("refresh of a resource with ignoreChanges", function () {
  this.timeout(60_000);
  let sim: Simulator;
  let dir: string;
  const suite = simulatorForSuite("harness-refresh-");
  before(() => ({ sim, dir } = suite));

  it("keeps ignoreChanges in the checkpoint and shows no drift at those paths, as the engine's refresh", async () => {
    const options: DeployOptions = {
      project: loadProject(PROGRAM),
      kubeconfigPath: sim.kubeconfigPath,
      statePath: path.join(dir, "state.json"),
    };
    const up = await deploy(options);
    assert.deepEqual(up.errors, []);
    const configMap = up.state.deployment.resources.find((r) => r.urn.endsWith("::scaled"))!;
    assert.deepEqual(configMap.ignoreChanges, ["data.replicas"]);

    const patch = (data: object) =>
      kubectl(sim.kubeconfigPath, [
        "patch",
        "configmap",
        "scaled",
        "-n",
        "default",
        "--type=merge",
        `-p=${JSON.stringify({ data })}`,
      ]);
    await patch({ replicas: "3" });
    const ignored = await refresh(options);
    assert.deepEqual(ignored.errors, []);
    assert.deepEqual(changes(ignored), [], "another actor's field is no drift");
    assert.deepEqual(changes(await preview(options)), []);

    await patch({ size: "large" });
    const drifted = await refresh(options);
    assert.deepEqual(
      drifted.plan.filter((s) => s.op === "update").map((s) => [s.name, s.diffs]),
      [["scaled", ["data.size"]]],
    );
  });
});
