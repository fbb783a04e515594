import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "yaml";
import { loadProject } from "./project";
import { render, writeRendering } from "./render";
import { summaryLine } from "../builders/rollout-impact";
import { baselineImpact, readRendering, rolloutReport } from "./rollout-baseline";

const EXAMPLE = path.resolve(__dirname, "..", "examples", "aws-infra-windows");

describe("render --baseline: ROLLOUT.md for a pull request", function () {
  this.timeout(60_000);
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
        "| Pool | Nodes | New render | Each node | At a time | Waves | Estimate | Machines | Labels and taints | Paused | Cause |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        "| infra | 4 | yes | drain and reboot | 1 | 4 | about 16 min | none | none | no | file /etc/chrony.conf of 99-infra-chrony |",
        "",
        "Changes and the MCO rule that decides:",
        "",
        "- infra: file /etc/chrony.conf of 99-infra-chrony: no policy for the file: reboot",
        "",
      ].join("\n"),
    );
  });

  it("a new instance type replaced with machineReplacement, a new time server and a node label: one row with all", async () => {
    const head = await renderTo("replaced", [
      "timeServer=10.0.0.1",
      "infraInstanceType=m6i.4xlarge",
      "replaceMachines=true",
      'infraNodeLabels={"example.com/team":"logging"}',
    ]);
    const waiters = parse(fs.readFileSync(path.join(dir, "replaced", "_waiters.yaml"), "utf8"));
    const impact = baselineImpact(readRendering(path.join(dir, "base")), head, {}, waiters);
    const machines =
      "3 machines on m6i.2xlarge replaced by m6i.4xlarge (1 new first, an old one deleted (drained) as each " +
      "new one is Ready, none unavailable in each of 3 MachineSets), 1 wave, about 6 min";
    // The running machines get the label from the pool's NodeLabelsAndTaints waiter, the new ones at birth.
    const labels = "3 nodes get label example.com/team=logging (no drain, no reboot)";
    // The pool is done when its machines are: the new ones boot with the new render. Its pace and
    // waves are the replacement's (one machine per MachineSet, the three MachineSets at once), which
    // its estimate counts.
    assert.equal(
      rolloutReport("aws-infra-windows", impact).split("\n")[4],
      `| infra | 3 | yes | drain and reboot until replaced; new ones boot with it | 1 per MachineSet | 1 | about 6 min | ${machines} | ${labels} | no | file /etc/chrony.conf of 99-infra-chrony |`,
    );
    // What the preview says of the pool, in one line.
    assert.equal(
      summaryLine(impact.summaries[0]),
      `pool infra: ${machines}; new render at the same time (file /etc/chrony.conf of 99-infra-chrony): ` +
        "old nodes drain and reboot 1 at a time until they are replaced (up to 3), new ones boot with it; " +
        labels,
    );
    // Without machineReplacement the running machines keep their instance type, and the row says so.
    const kept = baselineImpact(readRendering(path.join(dir, "base")), head, {}, []);
    assert.equal(
      kept.summaries[0].machineSets
        .map((c) => [c.machineSet.slice(-10), c.machines, c.replacement])
        .join(" "),
      "us-east-2a,1, us-east-2b,1, us-east-2c,1,",
    );
    // Nor, without the waiter that writes them (wait: false), do the running nodes get the label.
    assert.deepEqual(kept.summaries[0].nodeMetadata, []);
    assert.match(
      summaryLine(kept.summaries[0]),
      /^pool infra: 3 machines keep m6i\.2xlarge; only new machines get m6i\.4xlarge \(machineReplacement replaces them\); new render; 3 nodes drain and reboot/,
    );
  });

  it("the same program: no new render, and a pool without MachineSets says what it assumed", async () => {
    const base = readRendering(path.join(dir, "base"));
    const same = baselineImpact(base, base);
    assert.deepEqual(
      same.summaries.map(({ render: i }) => [i!.pool, i!.newRender, i!.waves]),
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
      worker.summaries.map(({ render: i }) => [i!.pool, i!.newRender, i!.action, i!.machineCount]),
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
