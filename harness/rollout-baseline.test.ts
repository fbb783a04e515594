import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { loadProject } from "./project";
import { render, writeRendering } from "./render";
import { baselineImpact, readRendering, rolloutReport } from "./rollout-baseline";

const EXAMPLE = path.resolve(__dirname, "..", "examples", "aws-infra-windows");

describe("render --baseline: ROLLOUT.md for a pull request", function () {
  this.timeout(30_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "rollout-baseline-"));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const renderTo = async (name: string, overrides: string[]) => {
    const rendering = await render(loadProject(EXAMPLE, "dev", overrides));
    assert.deepEqual(rendering.errors, []);
    writeRendering(rendering, path.join(dir, name));
    return rendering.manifests.map((m) => m.manifest);
  };

  it("a changed time server: the infra nodes drain and reboot one at a time, with the file and its rule", async () => {
    await renderTo("base", []);
    const head = await renderTo("head", ["timeServer=10.0.0.1", "infraReplicas=4"]);
    const report = rolloutReport(
      "aws-infra-windows",
      baselineImpact(readRendering(path.join(dir, "base")), head),
    );
    assert.equal(
      report,
      [
        "## Node rollout of aws-infra-windows",
        "",
        "| Pool | New render | Nodes | Each node | At a time | Waves | Estimate | Paused | Cause |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        "| infra | yes | 4 | drain and reboot | 1 | 4 | about 16 min | no | file /etc/chrony.conf of 99-infra-chrony |",
        "",
        "Changes and the MCO rule that decides:",
        "",
        "- infra: file /etc/chrony.conf of 99-infra-chrony: no policy for the file: reboot",
        "",
      ].join("\n"),
    );
  });

  it("the same program: no new render, and a pool without MachineSets says what it assumed", async () => {
    const base = readRendering(path.join(dir, "base"));
    const same = baselineImpact(base, base);
    assert.deepEqual(
      same.impacts.map((i) => [i.pool, i.newRender, i.waves]),
      [["infra", false, 0]],
    );
    const worker = baselineImpact(
      base,
      [
        ...base,
        {
          apiVersion: "machineconfiguration.openshift.io/v1",
          kind: "MachineConfig",
          metadata: { name: "99-worker-ssh", labels: { "machineconfiguration.openshift.io/role": "worker" } },
          spec: {
            config: {
              ignition: { version: "3.2.0" },
              passwd: { users: [{ name: "core", sshAuthorizedKeys: ["ssh-ed25519 AAAA k"] }] },
            },
          },
        },
      ],
      { infra: 3 },
    );
    assert.deepEqual(
      worker.impacts.map((i) => [i.pool, i.newRender, i.action, i.machineCount]),
      [
        ["infra", true, "none", 3],
        ["worker", true, "none", 3],
      ],
    );
    assert.deepEqual(worker.notes, [
      "pool worker: 3 nodes assumed (no MachineSet of the program names it; give --machines worker=N)",
    ]);
  });
});
