import * as assert from "node:assert/strict";
import {
  containerRuntimeConfig,
  kubeletConfig,
  machineConfig,
  MachineConfigArgs,
} from "../machineconfiguration";
import {
  DEFAULT_DEADLINE_SECONDS,
  PoolConfigs,
  PoolImpact,
  PoolSummary,
  deadlineFor,
  deadlineProblem,
  deadlineSincePrevious,
  RolloutImpactInput,
  impactLine,
  impactMarkdown,
  isPoolLine,
  machinesPhrase,
  mergeClusterPolicies,
  poolConfigsFrom,
  poolEstimate,
  replacementEstimate,
  resolveMaxUnavailable,
  rolloutImpact,
  summaryLine,
  canaryPhrases,
  summaryMarkdown,
} from ".";
import { mergeMachineConfigs } from "../../simulator/controllers/machineconfig";
import { missingFromRender } from "../../provider/waiting/pool";

const ED25519_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEA+tJeMH79euQY0M9qNe7AHHTb+bh9E8m/O+GK2Qg3B a@example.com";
const SECOND_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFb1fT0iLYtY8HZ1o6cWbxZ4sWm3y6Y2x1dU0fPq1rNw b@example.com";

const BASE_ARGS: MachineConfigArgs = {
  name: "00-worker",
  role: "worker",
  files: [{ path: "/etc/motd", contents: { text: "hello\n" } }],
  systemd: { units: [{ name: "kubelet.service", enabled: true, contents: "[Unit]\n" }] },
};
const base = machineConfig({ ...BASE_ARGS, sshAuthorizedKeys: [ED25519_KEY] });
const pool = (...extra: MachineConfigArgs[]): PoolConfigs => ({
  machineConfigs: [base, ...extra.map((a) => machineConfig(a))],
});
const impact = (after: PoolConfigs, more: Partial<RolloutImpactInput> = {}, before: PoolConfigs = pool()) =>
  rolloutImpact({ pool: "infra", before, after, machineCount: 3, ...more });
const file = (path: string, text = "x\n") => ({
  name: "99-infra-x",
  role: "infra",
  files: [{ path, contents: { text } }],
});
const reboots = (cause: string) => ["reboot", [], true, cause];
/** [action, steps, drain, first cause] of a change. */
const summary = (i: ReturnType<typeof rolloutImpact>) => [
  i.action,
  i.steps,
  i.drain,
  i.causes[0] && `${i.causes[0].kind} ${i.causes[0].name}: ${i.causes[0].rule}`,
];

describe("a preview's lines about a pool", () => {
  it("are those impactLine and the components write, `pool <name>: `, of one pool when named", () => {
    const line = "pool infra: new render; 3 nodes drain and reboot, 1 at a time, 3 waves, about 12 min";
    assert.equal(isPoolLine(line), true);
    assert.equal(isPoolLine(line, "infra"), true);
    assert.equal(isPoolLine(line, "infr"), false);
    assert.equal(isPoolLine(line, "worker"), false);
    assert.equal(isPoolLine("MachineSet c-infra-us-east-2a: boot image ami-1 at creation"), false);
    assert.equal(isPoolLine("pool: infra"), false);
    assert.equal(isPoolLine("the pool infra: paused"), false);
  });
});

describe("rollout impact: the MCO's post-config-change rules", () => {
  it("SSH keys of core: no drain, no reboot (default sshkey policy None)", () => {
    const after: PoolConfigs = {
      machineConfigs: [machineConfig({ ...BASE_ARGS, sshAuthorizedKeys: [ED25519_KEY, SECOND_KEY] })],
    };
    assert.deepEqual(summary(impact(after)), ["none", [], false, "sshKeys core: policy sshkey"]);
  });

  it("the pull secret /var/lib/kubelet/config.json: none", () => {
    assert.deepEqual(summary(impact(pool(file("/var/lib/kubelet/config.json")))), [
      "none",
      [],
      false,
      "file /var/lib/kubelet/config.json: policy /var/lib/kubelet/config.json",
    ]);
  });

  it("registries.conf: the special rule, crio reload with a drain unless only digest-only mirrors are added", () => {
    assert.deepEqual(summary(impact(pool(file("/etc/containers/registries.conf")))), [
      "drain",
      ["reload crio.service"],
      true,
      "file /etc/containers/registries.conf: policy /etc/containers/registries.conf",
    ]);
  });

  it("policy.json and a file under registries.d: crio reload, no drain", () => {
    assert.deepEqual(summary(impact(pool(file("/etc/containers/policy.json")))).slice(0, 3), [
      "reload",
      ["reload crio.service"],
      false,
    ]);
    assert.deepEqual(summary(impact(pool(file("/etc/containers/registries.d/quay.yaml")))), [
      "reload",
      ["reload crio.service"],
      false,
      "file /etc/containers/registries.d/quay.yaml: policy /etc/containers/registries.d",
    ]);
  });

  it("the user CA bundle: restarts of coreos-update-ca-trust and crio", () => {
    const i = impact(pool(file("/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt")));
    assert.deepEqual(summary(i).slice(0, 3), [
      "restart",
      ["restart coreos-update-ca-trust.service", "restart crio.service"],
      false,
    ]);
  });

  it("a file under /etc without a policy: drain and reboot", () => {
    const i = impact(pool(file("/etc/chrony.conf")));
    assert.deepEqual(summary(i), reboots("file /etc/chrony.conf: no policy for the file: reboot"));
    assert.equal(i.causes[0].source, "99-infra-x");
  });

  it("a systemd unit: reboot", () => {
    const i = impact(
      pool({
        name: "99-infra-u",
        role: "infra",
        systemd: { units: [{ name: "hello.service", contents: "[Unit]\n" }] },
      }),
    );
    assert.deepEqual(summary(i), reboots("unit hello.service: no policy for the unit: reboot"));
  });

  const forced: Array<[string, Partial<MachineConfigArgs>]> = [
    ["kernel arguments", { kernelArguments: ["nosmt"] }],
    ["kernelType", { kernelType: "realtime" }],
    ["extensions", { extensions: ["usbguard"] }],
  ];
  for (const [what, args] of forced) {
    it(`${what}: always reboot, whatever the policies`, () => {
      const field = Object.keys(args)[0];
      const i = impact(pool({ name: "99-infra-k", role: "infra", ...args }), {
        nodeDisruptionPolicy: { files: [{ path: "/etc", actions: [{ type: "None" }] }] },
      });
      assert.deepEqual(summary(i), reboots(`field ${field}: ${field} changes always reboot`));
    });
  }

  it("a node disruption policy turns a file change into a service reload", () => {
    const nodeDisruptionPolicy = {
      files: [
        {
          path: "/etc/chrony.conf",
          actions: [{ type: "Reload" as const, reload: { serviceName: "chronyd.service" } }],
        },
      ],
    };
    const i = impact(pool(file("/etc/chrony.conf")), { nodeDisruptionPolicy });
    assert.deepEqual(summary(i), [
      "reload",
      ["reload chronyd.service"],
      false,
      "file /etc/chrony.conf: policy /etc/chrony.conf",
    ]);
    assert.match(
      impactLine(i),
      /^pool infra: new render; 3 nodes reload chronyd\.service, 1 at a time, 3 waves/,
    );
  });

  it("a policy's longest matching path wins, and a user policy overrides a default", () => {
    const nodeDisruptionPolicy = {
      files: [
        { path: "/etc/containers", actions: [{ type: "Drain" as const }] },
        { path: "/etc/containers/policy.json", actions: [{ type: "None" as const }] },
      ],
    };
    assert.equal(mergeClusterPolicies(nodeDisruptionPolicy).files.length, 14);
    assert.deepEqual(
      summary(impact(pool(file("/etc/containers/policy.json")), { nodeDisruptionPolicy })).slice(0, 3),
      ["none", [], false],
    );
    assert.deepEqual(
      summary(impact(pool(file("/etc/containers/storage.conf")), { nodeDisruptionPolicy })).slice(0, 3),
      ["drain", [], true],
    );
  });

  it("one reboot cause among reboot-less ones reboots and names the reboot cause first", () => {
    const i = impact(
      pool({
        ...file("/etc/containers/policy.json"),
        files: [...file("/etc/containers/policy.json").files, ...file("/etc/chrony.conf").files],
      }),
    );
    assert.equal(i.action, "reboot");
    assert.equal(i.causes[0].name, "/etc/chrony.conf");
    assert.equal(i.causes.length, 2);
  });

  it("a KubeletConfig change is the generated kubelet.conf: reboot", () => {
    const kc = (maxPods: number) =>
      kubeletConfig({ name: "infra-kubelet", pool: "infra", kubeletConfig: { maxPods } });
    const i = impact({ ...pool(), kubeletConfigs: [kc(300)] }, {}, { ...pool(), kubeletConfigs: [kc(250)] });
    assert.deepEqual(
      summary(i),
      reboots("file /etc/kubernetes/kubelet.conf: no policy for the file: reboot"),
    );
    assert.equal(i.causes[0].source, "99-infra-generated-kubelet");
  });

  it("a ContainerRuntimeConfig change is a crio drop-in of the generated config: reboot", () => {
    const cr = containerRuntimeConfig({
      name: "infra-crio",
      pool: "infra",
      containerRuntimeConfig: { pidsLimit: 4096 },
    });
    const i = impact({ ...pool(), containerRuntimeConfigs: [cr] });
    assert.equal(i.action, "reboot");
    assert.equal(i.causes[0].name, "/etc/crio/crio.conf.d/01-ctrcfg-pidsLimit");
    assert.equal(i.causes[0].source, "99-infra-generated-containerruntime");
  });

  it("a pool without nodes: a new render that no node drains for", () => {
    const i = impact(pool(file("/etc/chrony.conf")), { machineCount: 0 });
    assert.equal(i.waves, 0);
    assert.equal(
      impactLine(i),
      "pool infra: new render; no nodes in the pool: nodes that join boot with it (file /etc/chrony.conf of 99-infra-x)",
    );
  });

  it("no change of the merged config: no new render (a config renamed keeps its content)", () => {
    const i = impact(
      pool({ ...file("/etc/a"), name: "99-b" }),
      {},
      pool({ ...file("/etc/a"), name: "99-a" }),
    );
    assert.equal(i.newRender, false);
    assert.equal(i.waves, 0);
    assert.equal(impactLine(i), "pool infra: no new render; nodes unchanged");
  });

  it("a later MachineConfig overriding a file with the same content renders nothing new", () => {
    assert.equal(impact(pool({ ...file("/etc/motd", "hello\n"), name: "99-motd" })).newRender, false);
    assert.equal(impact(pool({ ...file("/etc/motd", "bye\n"), name: "99-motd" })).newRender, true);
  });
});

describe("rollout impact: waves and duration", () => {
  it("maxUnavailable: percentages round down against the node count, never below 1", () => {
    assert.deepEqual(
      [
        resolveMaxUnavailable(undefined, 3),
        resolveMaxUnavailable(2, 3),
        resolveMaxUnavailable("50%", 3),
        resolveMaxUnavailable("10%", 3),
        resolveMaxUnavailable("100%", 7),
      ],
      [1, 2, 1, 1, 7],
    );
  });

  it("waves = ceil(nodes / maxUnavailable); the estimate is waves times the per-node steps", () => {
    const i = impact(pool(file("/etc/chrony.conf")), { machineCount: 5, maxUnavailable: 2 });
    assert.deepEqual([i.atATime, i.waves, i.perNodeSeconds, i.durationSeconds], [2, 3, 240, 720]);
    const fast = impact(pool(file("/etc/chrony.conf")), {
      machineCount: 5,
      maxUnavailable: 2,
      timings: { rebootSeconds: 30 },
    });
    assert.equal(fast.durationSeconds, 3 * (30 + 60 + 30));
    const reload = impact(pool(file("/etc/containers/policy.json")), { machineCount: 3 });
    assert.deepEqual([reload.waves, reload.perNodeSeconds], [3, 35]);
  });

  it("the line and the Markdown table name the cause and the rule; a paused pool waits", () => {
    const i = impact(
      pool({
        name: "99-infra-chrony",
        role: "infra",
        files: [{ path: "/etc/chrony.conf", contents: { text: "pool x\n" } }],
      }),
      { paused: true },
    );
    assert.equal(
      impactLine(i),
      "pool infra: new render; 3 nodes drain and reboot, 1 at a time, 3 waves, about 12 min (file /etc/chrony.conf of 99-infra-chrony); the pool is paused: the rollout waits for unpausing",
    );
    assert.equal(
      impactMarkdown([i]),
      [
        "| Pool | Nodes | New render | Each node | At a time | Waves | Estimate | Machines | Labels and taints | Paused | Cause |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        "| infra | 3 | yes | drain and reboot | 1 | 3 | about 12 min | none | none | yes (waits for unpausing) | file /etc/chrony.conf of 99-infra-chrony |",
        "",
        "Changes and the MCO rule that decides:",
        "",
        "- infra: file /etc/chrony.conf of 99-infra-chrony: no policy for the file: reboot",
        "",
      ].join("\n"),
    );
  });
});

describe("rollout impact: the configs a pool renders", () => {
  const kubelet = (name: string, machineConfigPoolSelector: unknown) => ({
    kind: "KubeletConfig",
    metadata: { name },
    spec: { machineConfigPoolSelector, kubeletConfig: { maxPods: 250 } },
  });
  const infraPool = { kind: "MachineConfigPool", metadata: { name: "infra", labels: { tier: "infra" } } };

  it("selects KubeletConfigs by the pool's labels as the MCO does: set terms count, an empty selector selects no pool", () => {
    const objects = [
      kubelet("by-role", { matchLabels: { "pools.operator.machineconfiguration.openshift.io/infra": "" } }),
      kubelet("by-expression", { matchExpressions: [{ key: "tier", operator: "In", values: ["infra"] }] }),
      kubelet("other-tier", { matchExpressions: [{ key: "tier", operator: "NotIn", values: ["infra"] }] }),
      kubelet("empty", {}),
      kubelet("none", undefined),
    ];
    const selected = poolConfigsFrom("infra", objects, infraPool).kubeletConfigs?.map((k) => k.metadata.name);
    assert.deepEqual(selected, ["by-role", "by-expression"]);
  });
});

// One model of a render (primitives/render-order.ts), which the preview, the pool waiter and the
// simulator's render controller share: machine-config-operator pkg/controller/common/helpers.go
// MergeMachineConfigs (worker-role configs first, then the pool's own, each by name) over the configs
// pkg/controller/render/render_controller.go getMachineConfigsForPool selects.
describe("rollout impact: the MCO's merge order, shared with the waiter and the simulator", () => {
  const chrony = (name: string, role: string, server: string) =>
    machineConfig({
      name,
      role,
      files: [{ path: "/etc/chrony.conf", contents: { text: `pool ${server}\n` } }],
    });
  const objects = (worker: string, infra: string) =>
    [chrony("99-worker-chrony", "worker", worker), chrony("50-infra-chrony", "infra", infra)].map((m) => ({
      ...m,
      kind: "MachineConfig",
    }));
  const infraImpact = (before: ReturnType<typeof objects>, after: ReturnType<typeof objects>) =>
    rolloutImpact({
      pool: "infra",
      before: poolConfigsFrom("infra", before, undefined),
      after: poolConfigsFrom("infra", after, undefined),
      machineCount: 3,
    });

  it("a custom pool's own config wins over the worker config it inherits, in the preview, the waiter and the simulator", () => {
    const now = objects("a", "b");
    // The worker's file is overridden on infra nodes: changing it renders nothing new there.
    assert.equal(infraImpact(now, objects("c", "b")).newRender, false);
    const own = infraImpact(now, objects("a", "c"));
    assert.deepEqual([own.newRender, own.causes[0].source], [true, "50-infra-chrony"]);
    // The simulator's render holds the infra config's file, which is what the waiter expects of it.
    const merged = mergeMachineConfigs(now as never);
    const file = merged.config?.storage?.files?.find((f) => f.path === "/etc/chrony.conf");
    assert.equal(file?.contents?.source, now[1].spec.config.storage!.files![0].contents.source);
    const rendered = { metadata: { name: "rendered-infra-1" }, spec: merged } as never;
    assert.equal(missingFromRender(rendered, now as never), undefined);
  });

  it("a custom pool renders the worker pool's generated kubelet config under its own", () => {
    const workerKubelet = (maxPods: number) => ({
      kind: "KubeletConfig",
      metadata: { name: "worker-kubelet" },
      spec: {
        machineConfigPoolSelector: {
          matchLabels: { "pools.operator.machineconfiguration.openshift.io/worker": "" },
        },
        kubeletConfig: { maxPods },
      },
    });
    const infraKubelet = kubeletConfig({
      name: "infra-kubelet",
      pool: "infra",
      kubeletConfig: { maxPods: 100 },
    });
    const infra = (...more: object[]) => poolConfigsFrom("infra", more as never, undefined);
    const change = (before: PoolConfigs, after: PoolConfigs) =>
      rolloutImpact({ pool: "infra", before, after, machineCount: 3 });
    // 99-worker-generated-kubelet (role worker) is selected by the infra pool, so its change reaches it ...
    const inherited = change(infra(workerKubelet(250)), infra(workerKubelet(500)));
    assert.deepEqual(
      [inherited.newRender, inherited.causes[0].source],
      [true, "99-worker-generated-kubelet"],
    );
    // ... unless the pool's own 99-infra-generated-kubelet, merged after it, writes the same file.
    const own = { ...infraKubelet, kind: "KubeletConfig" };
    assert.equal(change(infra(workerKubelet(250), own), infra(workerKubelet(500), own)).newRender, false);
  });
});

describe("pool summary: one line per pool of what up does to its nodes", () => {
  const chronyChange = (machineCount: number, more: Partial<RolloutImpactInput> = {}) =>
    rolloutImpact({
      pool: "infra",
      before: pool(),
      after: pool(file("/etc/chrony.conf")),
      machineCount,
      ...more,
    });
  const unchanged = rolloutImpact({ pool: "infra", before: pool(), after: pool(), machineCount: 3 });
  const set = (name: string, machines: number, replacement?: { surge: number; unavailable: number }) => ({
    machineSet: name,
    machines,
    size: { from: ["m6i.xlarge"], to: "m6i.2xlarge" },
    fields: [],
    ...(replacement ? { replacement } : {}),
  });
  const summary = (more: Partial<PoolSummary>): PoolSummary => ({
    pool: "infra",
    machineSets: [],
    nodeMetadata: [],
    ...more,
  });

  it("nothing changes: no new render, nodes unchanged; a new pool boots with its first render", () => {
    assert.equal(summaryLine(summary({ render: unchanged })), "pool infra: no new render; nodes unchanged");
    assert.equal(
      summaryLine(summary({ newPool: true })),
      "pool infra: not in the cluster yet: its nodes boot with its first render",
    );
    assert.equal(poolEstimate(summary({ render: unchanged })), undefined);
  });

  it("labels and taints alone: no new render, and never 'nodes unchanged' beside them", () => {
    const line = summaryLine(
      summary({
        render: unchanged,
        nodeMetadata: ["3 nodes get taint a=b:NoSchedule (no drain, no reboot)"],
      }),
    );
    assert.equal(line, "pool infra: no new render; 3 nodes get taint a=b:NoSchedule (no drain, no reboot)");
  });

  it("machines kept on their old spec are said with the new render, which reboots the nodes they run", () => {
    assert.equal(
      summaryLine(summary({ render: chronyChange(3), machineSets: [set("infra-a", 2), set("infra-b", 1)] })),
      "pool infra: 3 machines keep m6i.xlarge; only new machines get m6i.2xlarge (machineReplacement replaces them); " +
        "new render; 3 nodes drain and reboot, 1 at a time, 3 waves, about 12 min (file /etc/chrony.conf of 99-infra-x)",
    );
  });

  it("machines replaced: the waves of the slowest MachineSet, each a new machine's boot and an old one's drain", () => {
    const surge = { surge: 1, unavailable: 0 };
    assert.deepEqual(replacementEstimate([set("infra-a", 3, surge), set("infra-b", 1, surge)]), {
      machines: 4,
      waves: 3,
      durationSeconds: 3 * (300 + 60),
    });
    // Two at a time (a surge and an unavailable), and learned or given timings.
    assert.deepEqual(
      replacementEstimate([set("infra-a", 3, { surge: 1, unavailable: 1 })], {
        machineSeconds: 200,
        drainSeconds: 40,
      }),
      { machines: 3, waves: 2, durationSeconds: 480 },
    );
    // Kept machines are no replacement.
    assert.equal(replacementEstimate([set("infra-a", 3)]), undefined);
    // An autoscaled pool deletes first.
    assert.equal(
      machinesPhrase([set("infra-a", 2, { surge: 0, unavailable: 1 })]),
      "2 machines on m6i.xlarge replaced by m6i.2xlarge (1 at a time deleted (drained) first, each replaced " +
        "from the template), 2 waves, about 12 min",
    );
  });

  it("machines that keep their machine labels: said once for the pool, beside what replaces the others", () => {
    const labels = (machines: number, ...pairs: string[]) => ({ machines, labels: pairs });
    const relabelled = (name: string, machines: number, kept: ReturnType<typeof labels>) => ({
      machineSet: name,
      machines,
      fields: [],
      machineLabels: kept,
    });
    // Labels alone: no machine is replaced for them, whatever the policy; nothing to estimate.
    const alone = [
      relabelled("infra-a", 0, labels(2, "tier=gold")),
      relabelled("infra-b", 0, labels(1, "tier=gold")),
    ];
    assert.equal(
      machinesPhrase(alone),
      "3 machines keep their machine labels; only new machines get tier=gold",
    );
    assert.equal(replacementEstimate(alone), undefined);
    assert.equal(
      summaryLine(summary({ render: unchanged, machineSets: alone })),
      "pool infra: 3 machines keep their machine labels; only new machines get tier=gold; no new render",
    );
    // Beside a replacement of the machines on the old spec, which come back with the labels.
    const replaced = {
      ...set("infra-a", 2, { surge: 1, unavailable: 0 }),
      machineLabels: labels(1, "tier=gold"),
    };
    assert.equal(
      machinesPhrase([replaced]),
      "2 machines on m6i.xlarge replaced by m6i.2xlarge (1 new first, an old one deleted (drained) as each new " +
        "one is Ready, none unavailable), 2 waves, about 12 min; 1 machine keeps its machine labels; only new " +
        "machines get tier=gold",
    );
  });

  it("machines replaced with a new render: the pool is done with the replacement, old nodes reboot until replaced", () => {
    const s = summary({
      render: chronyChange(3),
      machineSets: [set("infra-a", 3, { surge: 1, unavailable: 0 })],
    });
    assert.equal(
      summaryLine(s),
      "pool infra: 3 machines on m6i.xlarge replaced by m6i.2xlarge (1 new first, an old one deleted (drained) " +
        "as each new one is Ready, none unavailable), 3 waves, about 18 min; new render at the same time (file " +
        "/etc/chrony.conf of 99-infra-x): old nodes drain and reboot 1 at a time until they are replaced " +
        "(up to 3), new ones boot with it",
    );
    assert.equal(poolEstimate(s), 3 * 360);
    // A paused pool holds the render whatever the machines do; an empty pool has no old nodes.
    const paused = summaryLine({ ...s, render: chronyChange(3, { paused: true }) });
    assert.match(
      paused,
      /; new render; 3 nodes drain and reboot, .*; the pool is paused: the rollout waits for unpausing$/,
    );
    assert.match(summaryLine({ ...s, render: chronyChange(0) }), /; new render; no nodes in the pool/);
  });

  it("a canary and its parent: the order at the end of each line with a rollout, and what the canary's nodes do joining it and on destroy", () => {
    const order = (more: Partial<PoolSummary>) => summaryLine(summary({ render: chronyChange(1), ...more }));
    assert.match(
      order({ pool: "canary", then: ["worker"] }),
      /^pool canary: new render; 1 node drain and reboot, 1 at a time, 1 wave, .*; then worker$/,
    );
    assert.match(order({ pool: "worker", after: ["canary"] }), /; after canary has rolled out$/);
    assert.equal(
      summaryLine(summary({ render: unchanged, then: ["worker"] })),
      "pool infra: no new render; nodes unchanged",
    );
    const move = (join: PoolImpact, leave = unchanged) => ({ join, back: leave, leave });
    const canary = { parent: "worker", joining: ["w3"], returning: [] };
    assert.deepEqual(canaryPhrases(canary, move(unchanged)), [
      "node w3 joins from worker: the same configuration as worker (no drain, no reboot)",
      "destroy returns its nodes to worker: the same configuration as worker (no drain, no reboot)",
    ]);
    assert.deepEqual(
      canaryPhrases(
        { ...canary, joining: [], returning: ["w1", "w2"] },
        move(chronyChange(2), chronyChange(2)),
      ),
      [
        "nodes w1, w2 return to worker: drain and reboot",
        "destroy returns its nodes to worker: drain and reboot",
      ],
    );
    assert.deepEqual(
      canaryPhrases({ ...canary, joining: [] }, move(unchanged)),
      [],
      "said once, when it changes",
    );
    assert.deepEqual(canaryPhrases(canary, undefined).slice(0, 1), [
      "node w3 joins from worker: rollout unknown: the cluster has no pool worker",
    ]);
  });

  it("one Markdown row per pool: machines, labels and taints, and the pool's estimate", () => {
    const rows = summaryMarkdown([
      summary({ render: chronyChange(3), machineSets: [set("infra-a", 3, { surge: 1, unavailable: 0 })] }),
      summary({
        pool: "gpu",
        render: { ...unchanged, pool: "gpu" },
        nodeMetadata: ["2 nodes get label a=b"],
      }),
    ]).split("\n");
    assert.equal(
      rows[2],
      "| infra | 3 | yes | drain and reboot until replaced; new ones boot with it | 1 per MachineSet | 3 | about 18 min | " +
        "3 machines on m6i.xlarge replaced by m6i.2xlarge (1 new first, an old one deleted (drained) as each new " +
        "one is Ready, none unavailable), 3 waves, about 18 min | none | no | file /etc/chrony.conf of 99-infra-x |",
    );
    assert.equal(rows[3], "| gpu | 3 | no | none | 1 | 0 | - | none | 2 nodes get label a=b | no | - |");
    // The waves and pace are those of the estimate: a replacement's, with or without a render beside it.
    const [, , sizeOnly, faster] = summaryMarkdown([
      summary({
        pool: "highmem",
        render: { ...unchanged, pool: "highmem" },
        machineSets: [set("highmem-a", 2, { surge: 1, unavailable: 0 })],
      }),
      summary({
        render: chronyChange(3),
        machineSets: [
          set("infra-a", 3, { surge: 2, unavailable: 1 }),
          set("infra-b", 2, { surge: 1, unavailable: 0 }),
        ],
      }),
    ]).split("\n");
    assert.match(
      sizeOnly,
      /^\| highmem \| 3 \| no \| none \| 1 per MachineSet \| 2 \| about 12 min \| 2 machines on /,
    );
    assert.match(
      faster,
      /^\| infra \| 3 \| yes \| drain and reboot until replaced; new ones boot with it \| 1 or 3 per MachineSet \| 2 \| about 12 min \|/,
    );
    // The render alone, as before.
    assert.match(
      impactMarkdown([chronyChange(3)]).split("\n")[2],
      /^\| infra \| 3 \| yes \| drain and reboot \| 1 \| 3 \| about 12 min \| none \| none \|/,
    );
  });
});

describe("pool deadlines: derived from the estimate, and a configured one checked against it", () => {
  const render = rolloutImpact({
    pool: "infra",
    before: pool(),
    after: pool(file("/etc/chrony.conf")),
    machineCount: 30,
  });
  const summary = (more: Partial<PoolSummary> = {}): PoolSummary => ({
    pool: "infra",
    render,
    machineSets: [],
    nodeMetadata: [],
    ...more,
  });

  it("twice the estimate, never less than the waiters' 30 minutes", () => {
    assert.equal(deadlineFor(undefined), DEFAULT_DEADLINE_SECONDS);
    assert.equal(deadlineFor(600), 1800);
    // 30 nodes, one at a time, 240 s each: 2 h; twice that.
    assert.equal(deadlineFor(render.durationSeconds), 4 * 3600);
  });

  it("warns of a waitTimeouts shorter than the estimate or, for a render that drains, than the MCO's drain timeout", () => {
    assert.equal(deadlineProblem(summary(), undefined), undefined);
    assert.equal(
      deadlineProblem(summary(), 5400),
      "waitTimeouts (1h30m) is shorter than this change's estimate (about 120 min): up can fail while the " +
        "rollout goes on; give more, or leave it out (the default is twice the estimate, 30m at least)",
    );
    const small = rolloutImpact({
      pool: "infra",
      before: pool(),
      after: pool(file("/etc/chrony.conf")),
      machineCount: 1,
    });
    assert.match(
      deadlineProblem(summary({ render: small }), 1800)!,
      /^waitTimeouts \(30m\) is shorter than the MCO's drain timeout \(1h, after which it reports a drain a PodDisruptionBudget holds\): /,
    );
    assert.equal(deadlineProblem(summary({ render: small }), 3600), undefined);
    // A paused pool drains nothing yet; a pull secret change drains nothing; no render, nothing to wait for.
    assert.equal(deadlineProblem(summary({ render: { ...small, paused: true } }), 60), undefined);
    const pullSecret = rolloutImpact({
      pool: "infra",
      before: pool(),
      after: pool(file("/var/lib/kubelet/config.json")),
      machineCount: 1,
    });
    assert.equal(deadlineProblem(summary({ render: pullSecret }), 60), undefined);
    assert.match(
      deadlineProblem(summary({ render: pullSecret }), 20)!,
      /^waitTimeouts \(20s\) is shorter than this change's estimate \(about 30 s\): /,
    );
  });

  it("a waiter without one waits twice what its change takes by the previous deployment's record", () => {
    const mc = (text: string) => ({
      kind: "MachineConfig",
      metadata: { name: "99-infra-chrony", labels: { "machineconfiguration.openshift.io/role": "infra" } },
      spec: { config: { storage: { files: [{ path: "/etc/chrony.conf", contents: { source: text } }] } } },
    });
    const previous = { pool: "infra", objects: [mc("data:,a")], machineCount: 30 };
    // The render: 30 nodes x 240 s.
    assert.equal(deadlineSincePrevious(previous, { pool: "infra", objects: [mc("data:,b")] }, "?"), 4 * 3600);
    // Nothing renders anew: the waiters' default.
    assert.equal(deadlineSincePrevious(previous, { pool: "infra", objects: [mc("data:,a")] }, "?"), 1800);
    // A pool's own waiter, which replaces its machines: every machine of its MachineSets counted, 10
    // waves of 6 min.
    const pooled = { pool: "infra", settings: {}, machineCount: 30 };
    const plan = {
      machineSets: ["infra-a", "infra-b"],
      machineReplacement: { maxSurge: 1, maxUnavailable: 0, replicas: { "infra-a": 10, "infra-b": 5 } },
    };
    assert.equal(deadlineSincePrevious(pooled, { pool: "infra", settings: {}, ...plan }, "?"), 2 * 10 * 360);
    // Autoscaled sets have no declared replicas: the pool's machines spread over them.
    const autoscaled = { ...plan, machineReplacement: { maxSurge: 0, maxUnavailable: 1 } };
    assert.equal(
      deadlineSincePrevious(pooled, { pool: "infra", settings: {}, ...autoscaled }, "?"),
      2 * 15 * 360,
    );
  });
});
