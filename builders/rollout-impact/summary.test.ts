import * as assert from "node:assert/strict";
import { machineConfig } from "../machineconfiguration";
import type { MachineSetChange } from "../machineset/replacement";
import {
  deadlineProblem,
  machinesPhrase,
  PoolSummary,
  poolEstimate,
  rolloutImpact,
  summaryLine,
  summaryMarkdown,
} from ".";

const chrony = (machineCount: number, path = "/etc/chrony.conf") =>
  rolloutImpact({
    pool: "infra",
    before: { machineConfigs: [] },
    after: {
      machineConfigs: [
        machineConfig({ name: "99-infra-x", role: "infra", files: [{ path, contents: { text: "x\n" } }] }),
      ],
    },
    machineCount,
  });
const sized = (
  machineSet: string,
  machines: number,
  from: string,
  to: string,
  replacement?: MachineSetChange["replacement"],
): MachineSetChange => ({
  machineSet,
  machines,
  size: { from: [from], to },
  fields: [],
  ...(replacement ? { replacement } : {}),
});
const labelled = (machineSet: string, machines: number, ...labels: string[]): MachineSetChange => ({
  machineSet,
  machines: 0,
  fields: [],
  machineLabels: { machines, labels },
});
const summary = (more: Partial<PoolSummary>): PoolSummary => ({
  pool: "infra",
  machineSets: [],
  nodeMetadata: [],
  ...more,
});
const SURGE = { surge: 1, unavailable: 0 };

// The machines part of a pool's line: what provider/waiting/replacement.ts then does to each MachineSet
// (machine-api never changes a machine it has made: MachineSet controller.go syncReplicas creates
// machines from the template and deletes others).
describe("pool summary: the machines of a pool's MachineSets", () => {
  it("sums the machines each MachineSet keeps on its old spec, naming each size once", () => {
    assert.equal(
      machinesPhrase([
        sized("infra-a", 1, "m6i.large", "m6i.2xlarge"),
        sized("infra-b", 2, "m6i.xlarge", "m6i.4xlarge"),
      ]),
      "3 machines keep m6i.large, m6i.xlarge; only new machines get m6i.2xlarge, m6i.4xlarge (machineReplacement replaces them)",
    );
    assert.equal(
      machinesPhrase([sized("infra-a", 1, "m6i.large", "m6i.2xlarge")]),
      "1 machine keeps m6i.large; only new machines get m6i.2xlarge (machineReplacement replaces them)",
    );
  });

  it("says the replaced and the kept apart, and each MachineSet's pace when they differ", () => {
    assert.equal(
      machinesPhrase([
        sized("infra-a", 2, "m6i.large", "m6i.2xlarge", SURGE),
        sized("infra-b", 1, "m6i.xlarge", "m6i.4xlarge"),
      ]),
      "1 machine keeps m6i.xlarge; only new machines get m6i.4xlarge (machineReplacement replaces them); " +
        "2 machines on m6i.large replaced by m6i.2xlarge (1 new first, an old one deleted (drained) as each new " +
        "one is Ready, none unavailable), 2 waves, about 12 min",
    );
    assert.equal(
      machinesPhrase([
        sized("infra-a", 2, "m6i.large", "m6i.2xlarge", SURGE),
        sized("infra-b", 2, "m6i.large", "m6i.2xlarge", { surge: 0, unavailable: 1 }),
      ]),
      "4 machines on m6i.large replaced by m6i.2xlarge (each of 2 MachineSets at its own pace), 2 waves, about 12 min",
    );
    assert.equal(
      machinesPhrase([
        sized("infra-a", 1, "m6i.large", "m6i.2xlarge", SURGE),
        sized("infra-b", 1, "m6i.large", "m6i.2xlarge", SURGE),
      ]),
      "2 machines on m6i.large replaced by m6i.2xlarge (1 new first, an old one deleted (drained) as each new one " +
        "is Ready, none unavailable in each of 2 MachineSets), 1 wave, about 6 min",
    );
  });

  it("names the machine labels only new machines get, each once and sorted", () => {
    assert.equal(
      machinesPhrase([
        labelled("infra-a", 2, "tier=gold", "zone=a"),
        labelled("infra-b", 1, "app=x", "tier=gold"),
      ]),
      "3 machines keep their machine labels; only new machines get app=x, tier=gold, zone=a",
    );
  });
});

describe("pool summary: one line, and an estimate, whatever is known", () => {
  it("a render the cluster did not tell: the machines and labels alone, and no estimate", () => {
    const unknown = summary({
      machineSets: [sized("infra-a", 2, "m6i.large", "m6i.2xlarge")],
      nodeMetadata: ["2 nodes get label a=b (no drain, no reboot)"],
    });
    assert.equal(
      summaryLine(unknown),
      "pool infra: 2 machines keep m6i.large; only new machines get m6i.2xlarge (machineReplacement replaces them); " +
        "2 nodes get label a=b (no drain, no reboot)",
    );
    assert.equal(poolEstimate(unknown), undefined);
    // A pool's pending render, which its settings release, beside a replacement.
    assert.match(
      summaryLine(
        summary({
          render: { ...chrony(3), pending: true },
          machineSets: [sized("infra-a", 3, "m6i.large", "m6i.2xlarge", SURGE)],
        }),
      ),
      /; pending render at the same time \(file \/etc\/chrony\.conf of 99-infra-x\): old nodes drain and reboot /,
    );
    assert.equal(deadlineProblem(unknown, 60), undefined);
    assert.equal(
      poolEstimate(summary({ render: chrony(0) })),
      undefined,
      "an empty pool's render moves no node",
    );
  });
});

describe("pool deadlines: a configured one against the pool's change", () => {
  it("an estimate as long as the deadline is no problem; one longer is", () => {
    const render = chrony(1, "/var/lib/kubelet/config.json");
    // The pull secret: 30 s per node, no drain.
    assert.equal(deadlineProblem(summary({ render }), 30), undefined);
    assert.match(
      deadlineProblem(summary({ render }), 29)!,
      /^waitTimeouts \(29s\) is shorter than this change's estimate/,
    );
  });

  it("says each reason, and the deadline as waitTimeouts writes it", () => {
    const slow = chrony(30);
    assert.match(
      deadlineProblem(summary({ render: slow }), 90)!,
      /^waitTimeouts \(1m30s\) is shorter than this change's estimate \(about 120 min\) and the MCO's drain timeout /,
    );
    assert.match(
      deadlineProblem(summary({ render: slow }), 3600)!,
      /^waitTimeouts \(1h\) is shorter than this change's estimate \(about 120 min\): /,
    );
    assert.match(deadlineProblem(summary({ render: slow }), 0)!, /^waitTimeouts \(0s\) is shorter than /);
  });

  it("an empty pool drains nothing: no drain timeout to wait out; a replacement counts without a render", () => {
    assert.equal(deadlineProblem(summary({ render: chrony(0) }), 60), undefined);
    const replaced = summary({ machineSets: [sized("infra-a", 3, "m6i.large", "m6i.2xlarge", SURGE)] });
    assert.match(
      deadlineProblem(replaced, 60)!,
      /^waitTimeouts \(1m\) is shorter than this change's estimate \(about 18 min\): /,
    );
  });
});

describe("pool summary: ROLLOUT.md", () => {
  it("a pool whose render is unknown, beside a replacement and a kept MachineSet; several label and taint phrases", () => {
    const markdown = summaryMarkdown([
      summary({
        machineSets: [
          sized("infra-a", 2, "m6i.large", "m6i.2xlarge", { surge: 1, unavailable: 1 }),
          sized("infra-b", 1, "m6i.large", "m6i.2xlarge"),
        ],
        nodeMetadata: [
          "2 nodes get label a=b (no drain, no reboot)",
          "2 nodes get taint c=d:NoSchedule (no drain, no reboot)",
        ],
      }),
    ]);
    // Kept machines alone: nothing to pace.
    const kept = summaryMarkdown([
      summary({ machineSets: [sized("infra-b", 1, "m6i.large", "m6i.2xlarge")] }),
    ]);
    assert.match(kept.split("\n")[2], /^\| infra \| - \| no \| none \| - \| 0 \| - \| 1 machine keeps /);
    assert.deepEqual(markdown.split("\n").slice(2), [
      "| infra | - | no | none | 2 per MachineSet | 1 | about 6 min | 1 machine keeps m6i.large; only new machines get " +
        "m6i.2xlarge (machineReplacement replaces them); 2 machines on m6i.large replaced by m6i.2xlarge (1 new " +
        "first, an old one deleted (drained) as each new one is Ready, at most 1 unavailable), 1 wave, about 6 min | " +
        "2 nodes get label a=b (no drain, no reboot); 2 nodes get taint c=d:NoSchedule (no drain, no reboot) | no | - |",
      "",
    ]);
  });

  it("a cell never breaks the table: a pipe is escaped, a line break made a space", () => {
    const odd = chrony(3, "/etc/a|b\nc");
    const [row, , , , detail] = summaryMarkdown([summary({ render: odd })])
      .split("\n")
      .slice(2);
    assert.match(row, /\| file \/etc\/a\\\|b c of 99-infra-x \|$/);
    assert.equal(detail, "- infra: file /etc/a\\|b c of 99-infra-x: no policy for the file: reboot");
  });
});
