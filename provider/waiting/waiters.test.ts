import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { isWaitError } from "./converge";
import { KINDS, KubeObject, ResourceKind } from "./kinds";
import { PERSISTENCE_MS } from "./persistence";
import { ProgressEvent } from "./progress";
import { apiError } from "./retry";
import { DELETE_MACHINE_ANNOTATION } from "../../primitives/openshift";
import {
  clientOf,
  observeOperatorInstall,
  observePoolRollout,
  uninstallOperator,
  waitForNodeConfigRemoval,
  waitForOperatorInstall,
  observeMachineSets,
  waitForMachineSetsDeleted,
  waitForMachineSetsReady,
  waitForPoolRollout,
  observeWindowsNodes,
  waitForWindowsNodes,
} from "./waiters";
import { MACHINE_CONFIG_NODES_BY_NAME_UP_TO } from "./machineconfignode";
import { MachineReplacement } from "./replacement";
import { FakeClock, fakeClock } from "../../test/fake-clock";
import { memoryClient } from "../../test/memory-client";

/**
 * Plays the cluster's part in a wait: each step runs once the wait reports a message matching its
 * pattern (after the evaluation that reported it). Once the last step ran and the cluster settled,
 * the deadline passes, so that a wait that does not end when it should fails its test at once with
 * the deadline's message instead of hanging.
 */
function script(clock: FakeClock, timeoutMs: number, steps: Array<[RegExp, () => void]>) {
  const messages: string[] = [];
  const onProgress = (e: ProgressEvent) => {
    messages.push(e.message);
    const next = steps[0];
    if (!next || !next[0].test(e.message)) return;
    steps.shift();
    setImmediate(async () => {
      next[1]();
      if (steps.length > 0) return;
      for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
      clock.advance(timeoutMs);
    });
  };
  return { messages, onProgress, progressIntervalMs: 0, clock, timeoutMs };
}

/** Asserts that a wait failed (neither timed out nor cancelled), naming its waiter, with this message. */
async function failsWith(wait: Promise<unknown>, waiter: string, message: string): Promise<void> {
  await assert.rejects(wait, (e: unknown) => {
    assert.ok(isWaitError(e));
    assert.deepEqual([e.kind, e.waiter, e.message], ["failed", waiter, message]);
    return true;
  });
}

/**
 * The removal of node configuration follows the MCO's render controller
 * (openshift/machine-config-operator pkg/controller/render, syncMachineConfigPool: a pool's render is
 * made of the MachineConfigs that select it, so a deleted one leaves with the next render) and Pulumi's
 * delete order (a guard is deleted after what it guards, so an object still there and not being
 * deleted was kept on purpose, or made anew by someone else).
 */
describe("waitForNodeConfigRemoval: when there is nothing to roll out", () => {
  const options = { pool: "infra", kind: "KubeletConfig" as const, name: "max-pods", timeoutMs: 60_000 };

  it("is done at once when the object still exists and is not being deleted", async () => {
    const client = memoryClient();
    client.put(KINDS.kubeletConfig, {
      metadata: { name: "max-pods", uid: "u-1", creationTimestamp: "2026-01-01T00:00:00Z" },
    });
    const outcome = await waitForNodeConfigRemoval({ ...options, client, clock: fakeClock() });
    assert.equal(
      outcome.message,
      "removal of KubeletConfig max-pods from pool infra: KubeletConfig max-pods (uid u-1, created 2026-01-01T00:00:00Z) exists and is not being deleted: it was kept, or created anew by someone else; nothing of the stack's to roll out",
    );
    assert.equal(outcome.result, undefined);
    assert.equal(client.requests, 1);
  });

  it("is done when the pool is gone, its stack being destroyed", async () => {
    const client = memoryClient();
    const outcome = await waitForNodeConfigRemoval({ ...options, client, clock: fakeClock() });
    assert.equal(
      outcome.message,
      "removal of KubeletConfig max-pods from pool infra: the pool is gone, nothing to roll out",
    );
  });

  it("waits while the object is being deleted and the pool still renders what it generated", async () => {
    const client = memoryClient();
    client.put(KINDS.kubeletConfig, {
      metadata: { name: "max-pods", deletionTimestamp: "2026-01-01T00:00:00Z" },
    });
    client.put(KINDS.pool, {
      metadata: { name: "infra", generation: 1 },
      spec: {
        configuration: {
          name: "rendered-infra-1",
          source: [{ kind: "MachineConfig", name: "99-infra-generated-kubelet" }],
        },
      },
      status: { observedGeneration: 1, configuration: { name: "rendered-infra-1" } },
    });
    const clock = fakeClock();
    const messages: string[] = [];
    const wait = waitForNodeConfigRemoval({
      ...options,
      client,
      clock,
      progressIntervalMs: 0,
      onProgress: (e) => messages.push(e.message),
    });
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    client.remove(KINDS.pool, { metadata: { name: "infra" } });
    const outcome = await wait;
    assert.ok(messages.length > 1, "done before the pool left");
    assert.match(messages[0], /99-infra-generated-kubelet/, messages[0]);
    assert.match(outcome.message, /the pool is gone/);
  });
});

describe("cluster access", () => {
  it("asks for a kubeconfig or a client instead of reaching an ambient cluster", () => {
    assert.throws(() => clientOf({}), /a kubeconfig \(or a client\) is required to reach the cluster/);
    const client = memoryClient();
    assert.equal(clientOf({ client, kubeconfig: "ignored" }), client);
    const kubeconfig = readFileSync(path.join(__dirname, "../../test/fixtures/kubeconfig.yaml"), "utf8");
    assert.equal(clientOf({ kubeconfig }).requests, 0);
  });
});

/**
 * What the pool wait asks for: its nodes with the pool's whole nodeSelector (metav1.LabelSelectorAsSelector,
 * printed as apimachinery labels.Parse reads it), nothing for a selector the MCO matches no node with
 * (GetPoolsForNode: an empty selector selects none), and each node's MachineConfigNode by name (named as
 * its node: upgrade_monitor.go GenerateAndApplyMachineConfigNodes), one first, so that a cluster that
 * does not serve them (404) is asked once.
 */
describe("the pool wait's sources", () => {
  const rendered = (nodeSelector: unknown, degraded: number) => ({
    metadata: { name: "infra", generation: 1 },
    spec: {
      nodeSelector,
      configuration: { name: "rendered-infra-2", source: [{ kind: "MachineConfig", name: "99-infra-x" }] },
    },
    status: {
      observedGeneration: 1,
      configuration: { name: "rendered-infra-1" },
      machineCount: 2,
      updatedMachineCount: 0,
      degradedMachineCount: degraded,
    },
  });
  const node = (name: string, labels: Record<string, string>) => ({ metadata: { name, labels } });

  /**
   * Observes the pool once, recording each list as `plural: selectors`; 404 for MachineConfigNodes when
   * `unserved`. The pool has infra-a, infra-b and `more` nodes.
   */
  async function lists(pool: unknown, unserved = false, more: string[] = []): Promise<string[]> {
    const client = memoryClient();
    client.put(KINDS.pool, pool as KubeObject);
    client.put(KINDS.machineConfig, { metadata: { name: "99-infra-x", generation: 1 } });
    for (const name of ["infra-a", "infra-b", ...more])
      client.put(KINDS.node, node(name, { "node-role.kubernetes.io/infra": "" }));
    const seen: string[] = [];
    const list = client.list.bind(client);
    client.list = async (resource, selectors, signal) => {
      seen.push(
        `${resource.plural}: ${[selectors.labelSelector, selectors.fieldSelector].filter(Boolean).join(" ")}`,
      );
      if (unserved && resource === KINDS.machineConfigNode)
        throw apiError("the server could not find the requested resource", { status: 404 });
      return list(resource, selectors, signal);
    };
    await observePoolRollout({ client, pool: "infra", machineConfigs: ["99-infra-x"], timeoutMs: 60_000 });
    return seen.filter((l) => !l.startsWith("machineconfigpools"));
  }

  it("lists the nodes with the whole selector, and each node's MachineConfigNode by name, one first", async () => {
    const selector = {
      matchExpressions: [
        { key: "node-role.kubernetes.io/infra", operator: "Exists" },
        { key: "node-role.kubernetes.io/master", operator: "DoesNotExist" },
      ],
    };
    assert.deepEqual(await lists(rendered(selector, 1)), [
      "nodes: node-role.kubernetes.io/infra,!node-role.kubernetes.io/master",
      "machineconfignodes: metadata.name=infra-a",
      "machineconfignodes: metadata.name=infra-b",
    ]);
  });

  it("lists the nodes as soon as the pool reports degraded ones, before its render names the target", async () => {
    const selector = { matchLabels: { "node-role.kubernetes.io/infra": "" } };
    const pending = rendered(selector, 1);
    pending.spec.configuration.source = [];
    assert.deepEqual(await lists(pending), ["nodes: node-role.kubernetes.io/infra="]);
    assert.deepEqual(await lists(rendered(selector, 0)), [
      "nodes: node-role.kubernetes.io/infra=",
      "machineconfignodes: metadata.name=infra-a",
      "machineconfignodes: metadata.name=infra-b",
    ]);
    const healthyPending = rendered(selector, 0);
    healthyPending.spec.configuration.source = [];
    assert.deepEqual(await lists(healthyPending), []);
  });

  it("asks a cluster that does not serve MachineConfigNodes once", async () => {
    const selector = { matchLabels: { "node-role.kubernetes.io/infra": "" } };
    assert.deepEqual(await lists(rendered(selector, 1), true), [
      "nodes: node-role.kubernetes.io/infra=",
      "machineconfignodes: metadata.name=infra-a",
    ]);
  });

  it("lists and watches all MachineConfigNodes once for a pool of more nodes than are read by name, and asks a cluster that does not serve them once", async () => {
    const selector = { matchLabels: { "node-role.kubernetes.io/infra": "" } };
    const upTo = MACHINE_CONFIG_NODES_BY_NAME_UP_TO;
    const atCutoff = Array.from({ length: upTo - 2 }, (_, i) => `infra-${i}`);
    const byName = await lists(rendered(selector, 1), false, atCutoff);
    assert.equal(byName.filter((l) => l.startsWith("machineconfignodes: metadata.name=")).length, upTo);
    const over = [...atCutoff, "infra-z"];
    for (const unserved of [false, true])
      assert.deepEqual(await lists(rendered(selector, 1), unserved, over), [
        "nodes: node-role.kubernetes.io/infra=",
        "machineconfignodes: ",
      ]);
  });

  it("lists no node for a pool whose selector selects none: empty, or one the MCO cannot convert", async () => {
    for (const selector of [{}, { matchExpressions: [{ key: "a", operator: "In", values: [] }] }])
      assert.deepEqual(await lists(rendered(selector, 1)), []);
  });

  it("lists nothing of the nodes for a pool rolled out at the first look", async () => {
    const done = rendered({ matchLabels: { "node-role.kubernetes.io/infra": "" } }, 0);
    done.status = {
      ...done.status,
      configuration: { name: "rendered-infra-2" },
      machineCount: 0,
      conditions: [{ type: "Updated", status: "True" }],
    } as typeof done.status;
    assert.deepEqual(await lists(done), []);
  });
});

/**
 * The pool wait over a whole rollout, the cluster played by hand as the MCO plays it: the render
 * controller makes a new rendered config whenever the merged content changes (render_controller.go
 * syncGeneratedMachineConfig: the name is a hash of the content), the KubeletConfig and
 * ContainerRuntimeConfig controllers write their generated MachineConfigs and report Success for the
 * generation they processed (kubelet_config_controller.go syncKubeletConfig, syncStatusOnly), the node
 * controller counts updated nodes (status.go calculateStatus), the daemon reports its steps on the
 * MachineConfigNode (upgrade_monitor.go GenerateAndApplyMachineConfigNodes) and a failed update on the
 * node's annotations (daemon.go updateErrorState).
 */
describe("the pool wait over a rollout", () => {
  const timeoutMs = 30 * 60_000;
  const SELECTOR = { matchLabels: { "node-role.kubernetes.io/infra": "" } };
  interface Shape {
    source: string[];
    target: string;
    current?: string;
    machines?: number;
    updated?: number;
    degraded?: number;
    renderDegraded?: { message: string; lastTransitionTime: string };
  }
  const pool = (p: Shape): KubeObject => {
    const machines = p.machines ?? 2;
    const updated = p.updated ?? machines;
    return {
      metadata: { name: "infra", generation: 1 },
      spec: {
        nodeSelector: SELECTOR,
        configuration: { name: p.target, source: p.source.map((name) => ({ kind: "MachineConfig", name })) },
      },
      status: {
        observedGeneration: 1,
        configuration: { name: p.current ?? p.target },
        machineCount: machines,
        updatedMachineCount: updated,
        readyMachineCount: updated,
        degradedMachineCount: p.degraded ?? 0,
        conditions: [
          { type: "Updated", status: updated === machines && !p.degraded ? "True" : "False" },
          ...(p.degraded ? [{ type: "NodeDegraded", status: "True" }] : []),
          ...(p.renderDegraded ? [{ type: "RenderDegraded", status: "True", ...p.renderDegraded }] : []),
        ],
      },
    };
  };
  const config = (name: string, generation: number, files: Record<string, string>): KubeObject => ({
    metadata: { name, generation },
    spec: {
      config: {
        ignition: { version: "3.2.0" },
        storage: { files: Object.entries(files).map(([p, source]) => ({ path: p, contents: { source } })) },
      },
    },
  });
  const node = (name: string, annotations: Record<string, string> = {}): KubeObject => ({
    metadata: { name, labels: { "node-role.kubernetes.io/infra": "" }, annotations },
    status: { conditions: [{ type: "Ready", status: "True" }] },
  });
  const done = (renderedConfig: string) => ({
    pool: "infra",
    renderedConfig,
    machineCount: 2,
    updatedMachineCount: 2,
    readyMachineCount: 2,
    degradedMachineCount: 0,
  });

  it("reads the render of a MachineConfig changed in place and waits until it carries the change", async () => {
    const client = memoryClient();
    const clock = fakeClock();
    client.put(KINDS.machineConfig, config("99-infra-x", 2, { "/etc/x": "data:,new" }));
    client.put(KINDS.machineConfig, config("rendered-infra-2", 1, { "/etc/x": "data:,old" }));
    client.put(KINDS.pool, pool({ source: ["99-infra-x"], target: "rendered-infra-2" }));
    const run = script(clock, timeoutMs, [
      [
        /lacks file/,
        () => {
          client.put(KINDS.machineConfig, config("rendered-infra-3", 1, { "/etc/x": "data:,new" }));
          client.put(
            KINDS.pool,
            pool({
              source: ["99-infra-x"],
              target: "rendered-infra-3",
              current: "rendered-infra-2",
              updated: 0,
            }),
          );
        },
      ],
      [
        /0\/2 updated/,
        () => client.put(KINDS.pool, pool({ source: ["99-infra-x"], target: "rendered-infra-3" })),
      ],
    ]);
    const outcome = await waitForPoolRollout({
      client,
      pool: "infra",
      machineConfigs: ["99-infra-x"],
      ...run,
    });
    assert.deepEqual(run.messages, [
      "pool infra: reading MachineConfigs",
      "pool infra: reading rendered-infra-2",
      "pool infra: waiting for the MCO to render the change (rendered-infra-2 lacks file /etc/x of 99-infra-x)",
      "pool infra: reading rendered-infra-3",
      "pool infra: 0/2 updated -> rendered-infra-3",
      "pool infra: 2/2 updated -> rendered-infra-3",
    ]);
    assert.deepEqual(outcome.result, done("rendered-infra-3"));
  });

  it("reads its nodes' phases from all of the cluster's MachineConfigNodes once the pool has more nodes than are read by name, and keeps doing so as it shrinks", async () => {
    const client = memoryClient();
    const clock = fakeClock();
    const mcns: string[] = [];
    const list = client.list.bind(client);
    client.list = async (resource, selectors, signal) => {
      if (resource === KINDS.machineConfigNode) mcns.push(selectors.fieldSelector ?? "all");
      return list(resource, selectors, signal);
    };
    // The daemon's phases (upgrade_monitor.go): one node of the pool draining, one of another pool too.
    const mcn = (name: string, poolName: string, draining: boolean): KubeObject => ({
      metadata: { name },
      spec: { pool: { name: poolName }, configVersion: { desired: "rendered-infra-2" } },
      status: { conditions: draining ? [{ type: "Drained", status: "Unknown" }] : [] },
    });
    const joining = Array.from({ length: MACHINE_CONFIG_NODES_BY_NAME_UP_TO }, (_, i) => `infra-${i}`);
    for (const name of ["infra-a", "infra-b"]) client.put(KINDS.node, node(name));
    client.put(KINDS.machineConfigNode, mcn("infra-a", "infra", true));
    client.put(KINDS.machineConfigNode, mcn("infra-b", "infra", false));
    client.put(KINDS.machineConfigNode, mcn("other-1", "other", true));
    client.put(KINDS.machineConfig, config("99-infra-x", 1, {}));
    const rolling = (machines: number) =>
      pool({
        source: ["99-infra-x"],
        target: "rendered-infra-2",
        current: "rendered-infra-1",
        machines,
        updated: 0,
      });
    client.put(KINDS.pool, rolling(2));
    const run = script(clock, timeoutMs, [
      [
        /0\/2 updated -> rendered-infra-2; infra-a draining, infra-b waiting$/,
        () => {
          for (const name of joining) {
            client.put(KINDS.node, node(name));
            client.put(KINDS.machineConfigNode, mcn(name, "infra", name === "infra-0"));
          }
          client.put(KINDS.pool, rolling(2 + joining.length));
        },
      ],
      [
        /0\/10 updated -> rendered-infra-2; infra-0 draining, infra-1 waiting, .*infra-a draining, infra-b waiting$/,
        () => {
          for (const name of joining) client.remove(KINDS.node, node(name));
          client.put(KINDS.pool, rolling(2));
        },
      ],
      [
        /0\/2 updated -> rendered-infra-2; infra-a draining, infra-b waiting$/,
        () => client.put(KINDS.pool, pool({ source: ["99-infra-x"], target: "rendered-infra-2" })),
      ],
    ]);
    const outcome = await waitForPoolRollout({
      client,
      pool: "infra",
      machineConfigs: ["99-infra-x"],
      ...run,
    });
    assert.deepEqual(outcome.result, done("rendered-infra-2"));
    assert.ok(!run.messages.some((m) => m.includes("other-1")), run.messages.join("\n"));
    // Nodes joining one by one are read by name up to the cutoff, then all at once, and by name never again.
    assert.equal(mcns.indexOf("all"), mcns.length - 1, mcns.join(", "));
    assert.ok(mcns.length - 1 <= MACHINE_CONFIG_NODES_BY_NAME_UP_TO, mcns.join(", "));
    assert.deepEqual(mcns.slice(0, 2), ["metadata.name=infra-a", "metadata.name=infra-b"]);
  });

  it("waits for the MCO to process a KubeletConfig and a ContainerRuntimeConfig, then for the render of what it generated", async () => {
    const client = memoryClient();
    const clock = fakeClock();
    const processed = (kind: string, name: string, generation: number, observedGeneration: number) => ({
      metadata: { name, generation },
      status: {
        observedGeneration,
        conditions: [{ type: "Success", status: "True", message: `${kind} ok` }],
      },
    });
    const kubelet = { "/etc/kubernetes/kubelet.conf": "data:,maxPods=500" };
    const crio = { "/etc/crio/crio.conf.d/01-ctrcfg-pidsLimit": "data:,pids=2048" };
    const generated = ["99-infra-generated-kubelet", "99-infra-generated-containerruntime"];
    client.put(KINDS.kubeletConfig, processed("KubeletConfig", "max-pods", 2, 1));
    client.put(KINDS.containerRuntimeConfig, processed("ContainerRuntimeConfig", "pids", 1, 1));
    client.put(KINDS.machineConfig, config(generated[0], 2, kubelet));
    client.put(KINDS.machineConfig, config(generated[1], 1, crio));
    client.put(KINDS.machineConfig, config("rendered-infra-5", 1, { ...crio }));
    client.put(KINDS.pool, pool({ source: generated, target: "rendered-infra-5" }));
    const run = script(clock, timeoutMs, [
      [
        /process KubeletConfig max-pods/,
        () => client.put(KINDS.kubeletConfig, processed("", "max-pods", 2, 2)),
      ],
      [
        /lacks file \/etc\/kubernetes\/kubelet.conf/,
        () => {
          client.put(KINDS.machineConfig, config("rendered-infra-6", 1, { ...kubelet, ...crio }));
          client.put(KINDS.pool, pool({ source: generated, target: "rendered-infra-6" }));
        },
      ],
    ]);
    const outcome = await waitForPoolRollout({
      client,
      pool: "infra",
      kubeletConfigs: ["max-pods"],
      containerRuntimeConfigs: ["pids"],
      ...run,
    });
    assert.deepEqual(run.messages, [
      "pool infra: waiting for the MCO to process KubeletConfig max-pods",
      "pool infra: reading generated MachineConfigs",
      "pool infra: reading rendered-infra-5",
      "pool infra: waiting for the MCO to render the change (rendered-infra-5 lacks file /etc/kubernetes/kubelet.conf of 99-infra-generated-kubelet)",
      "pool infra: reading rendered-infra-6",
      "pool infra: 2/2 updated -> rendered-infra-6",
    ]);
    assert.deepEqual(outcome.result, done("rendered-infra-6"));
  });

  it("holds the wait on each kind of node configuration the MCO has not processed yet", async () => {
    const client = memoryClient();
    const stale = { metadata: { name: "c", generation: 2 }, status: { observedGeneration: 1 } };
    client.put(KINDS.kubeletConfig, stale);
    client.put(KINDS.containerRuntimeConfig, stale);
    client.put(KINDS.pool, pool({ source: [], target: "rendered-infra-1" }));
    for (const [kind, option] of [
      ["KubeletConfig", "kubeletConfigs"],
      ["ContainerRuntimeConfig", "containerRuntimeConfigs"],
    ]) {
      const evaluation = await observePoolRollout({ client, pool: "infra", [option]: ["c"], timeoutMs });
      assert.equal(evaluation.message, `pool infra: waiting for the MCO to process ${kind} c`);
    }
  });

  it("fails on a render failure that arose during the wait, not on the one the pool showed at the first look", async () => {
    const client = memoryClient();
    const clock = fakeClock();
    const old = { message: "could not render: old", lastTransitionTime: "2026-01-01T00:00:00Z" };
    client.put(KINDS.machineConfig, config("99-infra-x", 1, {}));
    client.put(KINDS.pool, pool({ source: [], target: "rendered-infra-1", renderDegraded: old }));
    const renewed = { message: "could not render: 99-infra-x", lastTransitionTime: "2026-01-01T00:10:00Z" };
    const run = script(clock, timeoutMs, [
      [
        /to include 99-infra-x/,
        () =>
          client.put(KINDS.pool, pool({ source: [], target: "rendered-infra-1", renderDegraded: renewed })),
      ],
    ]);
    await failsWith(
      waitForPoolRollout({ client, pool: "infra", machineConfigs: ["99-infra-x"], ...run }),
      "pool infra",
      "pool infra: the MCO cannot render its configuration: could not render: 99-infra-x",
    );
  });

  it("fails a node degraded on the target once the failure persisted, when that time comes though nothing changed", async () => {
    const client = memoryClient();
    const clock = fakeClock();
    const on = (state: string, reason = "") => ({
      "machineconfiguration.openshift.io/state": state,
      "machineconfiguration.openshift.io/reason": reason,
      "machineconfiguration.openshift.io/currentConfig": "rendered-infra-1",
      "machineconfiguration.openshift.io/desiredConfig": "rendered-infra-2",
    });
    const rolling = {
      source: ["99-infra-x"],
      target: "rendered-infra-2",
      current: "rendered-infra-1",
      machines: 1,
    };
    client.put(KINDS.machineConfig, config("99-infra-x", 1, {}));
    client.put(KINDS.node, node("infra-a", on("Working")));
    client.put(KINDS.pool, pool({ ...rolling, updated: 0 }));
    const run = script(clock, timeoutMs, [
      [
        /0\/1 updated/,
        () => {
          client.put(KINDS.node, node("infra-a", on("Degraded", "failed to pull the OS image")));
          client.put(KINDS.pool, pool({ ...rolling, updated: 0, degraded: 1 }));
        },
      ],
      [/retried, final after 5m0s/, () => clock.advance(PERSISTENCE_MS)],
    ]);
    const wait = waitForPoolRollout({ client, pool: "infra", machineConfigs: ["99-infra-x"], ...run });
    await failsWith(
      wait,
      "pool infra",
      "pool infra is degraded rolling out rendered-infra-2: node infra-a (Degraded): failed to pull the OS image (persisted 5m0s, past the 5m0s allowed for retries)",
    );
  });

  it("asks to be evaluated again only while a failure may become final, so that a wait does not spin", async () => {
    const client = memoryClient();
    client.put(KINDS.machineConfig, config("99-infra-x", 1, {}));
    client.put(KINDS.pool, pool({ source: [], target: "rendered-infra-1" }));
    const evaluation = await observePoolRollout({
      client,
      pool: "infra",
      machineConfigs: ["99-infra-x"],
      timeoutMs,
    });
    assert.equal(evaluation.state, "waiting");
    assert.deepEqual(evaluation.needs, []);
  });

  it("returns the drain and reboot times its own pool's nodes took, kept once the daemon resets their conditions", async () => {
    const client = memoryClient();
    const clock = fakeClock();
    const at = (minute: number, second: number) =>
      `2026-01-01T00:${String(minute).padStart(2, "0")}:${String(second).padStart(2, "0")}Z`;
    const mcn = (name: string, poolName: string, conditions: Array<[string, string]>): KubeObject => ({
      metadata: { name },
      spec: { node: { name }, pool: { name: poolName } },
      status: {
        conditions: conditions.map(([type, time]) => ({ type, status: "True", lastTransitionTime: time })),
      },
    });
    const steps: Array<[string, string]> = [
      ["Cordoned", at(0, 0)],
      ["Drained", at(0, 30)],
      ["AppliedFilesAndOS", at(1, 0)],
      ["RebootedNode", at(2, 0)],
    ];
    client.put(KINDS.machineConfig, config("99-infra-x", 1, {}));
    client.put(KINDS.node, node("infra-a"));
    client.put(KINDS.node, node("infra-b"));
    client.put(KINDS.machineConfigNode, mcn("infra-a", "infra", steps));
    // A node moving from the worker pool: its MachineConfigNode still names that pool's rollout.
    client.put(
      KINDS.machineConfigNode,
      mcn("infra-b", "worker", [
        ["Cordoned", at(0, 0)],
        ["Drained", at(1, 30)],
      ]),
    );
    const rolling = { source: ["99-infra-x"], target: "rendered-infra-2", current: "rendered-infra-1" };
    client.put(KINDS.pool, pool({ ...rolling, updated: 1 }));
    const run = script(clock, timeoutMs, [
      [
        /1\/2 updated -> rendered-infra-2; infra-a/,
        () => {
          client.put(KINDS.machineConfigNode, mcn("infra-a", "infra", [["Updated", at(3, 0)]]));
          client.put(KINDS.pool, pool({ source: rolling.source, target: rolling.target }));
        },
      ],
    ]);
    const outcome = await waitForPoolRollout({
      client,
      pool: "infra",
      machineConfigs: ["99-infra-x"],
      ...run,
    });
    assert.deepEqual(outcome.result, {
      ...done("rendered-infra-2"),
      learnedTimings: { drainSeconds: 30, rebootSeconds: 60 },
    });
  });
});

/**
 * What a removal awaits: the render controller renders the MachineConfigs that select the pool
 * (render_controller.go syncGeneratedMachineConfig), so a deleted one leaves with the next render;
 * a deleted KubeletConfig's generated MachineConfig goes by garbage collection, as it carries the
 * KubeletConfig as owner (kubelet_config_controller.go syncKubeletConfig sets the owner reference), so
 * one still there and owned, or one the render names that is gone, is awaited.
 */
describe("waitForNodeConfigRemoval: what it awaits", () => {
  const timeoutMs = 30 * 60_000;
  const pool = (source: string[], target: string): KubeObject => ({
    metadata: { name: "infra", generation: 1 },
    spec: {
      configuration: { name: target, source: source.map((name) => ({ kind: "MachineConfig", name })) },
    },
    status: {
      observedGeneration: 1,
      configuration: { name: target },
      machineCount: 0,
      updatedMachineCount: 0,
      conditions: [{ type: "Updated", status: "True" }],
    },
  });
  const owned = (name: string, kind?: string, owner?: string): KubeObject => ({
    metadata: {
      name,
      ...(kind ? { ownerReferences: [{ apiVersion: "v1", kind, name: owner ?? "", uid: "u" }] } : {}),
    },
  });
  const deleting = { name: "99-infra-x", deletionTimestamp: "2026-01-01T00:00:00Z" };

  it("awaits a MachineConfig being deleted until the render drops it", async () => {
    const client = memoryClient();
    const clock = fakeClock();
    client.put(KINDS.machineConfig, { metadata: deleting });
    client.put(KINDS.pool, pool(["00-infra", "99-infra-x"], "rendered-infra-2"));
    const run = script(clock, timeoutMs, [
      [/to drop 99-infra-x$/, () => client.put(KINDS.pool, pool(["00-infra"], "rendered-infra-3"))],
    ]);
    const outcome = await waitForNodeConfigRemoval({
      client,
      pool: "infra",
      kind: "MachineConfig",
      name: "99-infra-x",
      ...run,
    });
    assert.equal(outcome.message, "pool infra: 0/0 updated -> rendered-infra-3");
    assert.equal(outcome.result?.renderedConfig, "rendered-infra-3");
  });

  it("awaits what a deleted KubeletConfig generated: the MachineConfigs it still owns, and those the render names that are gone", async () => {
    const client = memoryClient();
    const clock = fakeClock();
    // Not the deleted one: another KubeletConfig, which the removal leaves alone.
    client.put(KINDS.kubeletConfig, { metadata: { name: "other" } });
    const kept = [
      owned("00-infra"),
      owned("99-infra-generated-containerruntime", "ContainerRuntimeConfig", "max-pods"),
      owned("99-infra-generated-kubelet-2", "KubeletConfig", "other"),
    ];
    for (const m of [...kept, owned("99-infra-generated-kubelet-1", "KubeletConfig", "max-pods")])
      client.put(KINDS.machineConfig, m);
    const names = kept.map((m) => m.metadata.name);
    client.put(
      KINDS.pool,
      pool([...names, "99-infra-generated-kubelet", "99-infra-generated-kubelet-1"], "rendered-infra-2"),
    );
    const run = script(clock, timeoutMs, [
      [/to drop/, () => client.put(KINDS.pool, pool(names, "rendered-infra-3"))],
    ]);
    const outcome = await waitForNodeConfigRemoval({
      client,
      pool: "infra",
      kind: "KubeletConfig",
      name: "max-pods",
      ...run,
    });
    assert.deepEqual(run.messages, [
      "pool infra: waiting for the MCO to render the configuration to drop 99-infra-generated-kubelet, 99-infra-generated-kubelet-1",
      "pool infra: 0/0 updated -> rendered-infra-3",
    ]);
    assert.equal(outcome.message, "pool infra: 0/0 updated -> rendered-infra-3");
  });

  it("is done when someone creates the object anew during the wait: its render is theirs", async () => {
    const client = memoryClient();
    const clock = fakeClock();
    client.put(KINDS.machineConfig, { metadata: deleting });
    client.put(KINDS.pool, pool(["99-infra-x"], "rendered-infra-2"));
    const anew = { name: "99-infra-x", uid: "u-2", creationTimestamp: "2026-01-01T00:05:00Z" };
    const run = script(clock, timeoutMs, [
      [
        /to drop 99-infra-x$/,
        () => {
          client.remove(KINDS.machineConfig, { metadata: deleting });
          client.put(KINDS.machineConfig, { metadata: anew });
        },
      ],
    ]);
    const outcome = await waitForNodeConfigRemoval({
      client,
      pool: "infra",
      kind: "MachineConfig",
      name: "99-infra-x",
      ...run,
    });
    assert.equal(
      outcome.message,
      "removal of MachineConfig 99-infra-x from pool infra: MachineConfig 99-infra-x (uid u-2, created 2026-01-01T00:05:00Z) was created anew by someone else during the wait; its render is not the stack's to await",
    );
    assert.equal(outcome.result, undefined);
  });
});

/**
 * The operator waits as OLM plays them: under Manual approval the catalog operator creates an
 * InstallPlan owned by the Subscription and executes it once `spec.approved` is true
 * (catalog/operator.go syncInstallPlans), then records the CSV as the Subscription's installedCSV
 * (catalog/subscription/state.go); what it installs for package P in namespace N carries the label
 * `operators.coreos.com/P.N` (operator-lifecycle-manager pkg/controller/operators/decorators,
 * ComponentLabelKeyPrefix), by which a removal finds CSVs no Subscription names any more.
 */
describe("the operator waits", () => {
  const timeoutMs = 30 * 60_000;
  const NS = "ops";
  const subscription = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject => ({
    metadata: { name: "sub", namespace: NS, uid: "s-1" },
    spec: { name: "pkg", source: "redhat-operators", sourceNamespace: "openshift-marketplace", ...spec },
    status,
  });
  const plan = (approved: boolean): KubeObject => ({
    metadata: {
      name: "install-1",
      namespace: NS,
      ownerReferences: [{ apiVersion: "v1alpha1", kind: "Subscription", name: "sub", uid: "s-1" }],
    },
    spec: { approved, clusterServiceVersionNames: ["pkg.v1"] },
  });
  const csv = (name: string, phase: string, labels: Record<string, string> = {}): KubeObject => ({
    metadata: { name, namespace: NS, labels },
    status: { phase },
  });
  /** The lists a wait sends, as `plural: labelSelector`. */
  const recordLists = (client: ReturnType<typeof memoryClient>) => {
    const seen: string[] = [];
    const list = client.list.bind(client);
    client.list = async (resource, selectors, signal) => {
      seen.push(`${resource.plural}: ${selectors.labelSelector ?? ""}`);
      const listed = await list(resource, selectors, signal);
      // The memory client ignores label selectors: an existence selector, as the removal sends, filters here.
      const key = selectors.labelSelector;
      return key
        ? { ...listed, items: listed.items.filter((o) => key in (o.metadata.labels ?? {})) }
        : listed;
    };
    return seen;
  };

  it("under Manual approval reads the InstallPlans, approves the pinned CSV's plan once, and names it in the result", async () => {
    const client = memoryClient();
    const clock = fakeClock();
    const manual = { installPlanApproval: "Manual", startingCSV: "pkg.v1" };
    client.put(
      KINDS.subscription,
      subscription(manual, { installPlanRef: { name: "install-1" }, currentCSV: "pkg.v1" }),
    );
    client.put(KINDS.installPlan, plan(false));
    const run = script(clock, timeoutMs, [
      [
        /approving InstallPlan install-1/,
        () => {
          client.put(KINDS.installPlan, plan(true));
          client.put(KINDS.csv, csv("pkg.v1", "Installing"));
          client.put(
            KINDS.subscription,
            subscription(manual, {
              installPlanRef: { name: "install-1" },
              currentCSV: "pkg.v1",
              installedCSV: "pkg.v1",
            }),
          );
          client.put(KINDS.csv, csv("pkg.v1", "Succeeded"));
        },
      ],
    ]);
    const outcome = await waitForOperatorInstall({
      client,
      namespace: NS,
      subscription: "sub",
      startingCSV: "pkg.v1",
      ...run,
    });
    assert.deepEqual(client.patches, [["installplans/install-1", { spec: { approved: true } }]]);
    assert.deepEqual(outcome.result, {
      installedCSV: "pkg.v1",
      phase: "Succeeded",
      approvedInstallPlan: "install-1",
      crds: [],
    });
    assert.deepEqual(run.messages, [
      "operator ops/sub: reading InstallPlans",
      "operator ops/sub: approving InstallPlan install-1 for pkg.v1",
      "operator ops/sub: InstallPlan install-1 pending, CSV pkg.v1",
      "operator ops/sub: pkg.v1 Installing",
      "operator ops/sub: pkg.v1 Succeeded",
    ]);
  });

  it("lists no InstallPlan under Automatic approval, and reports no approval", async () => {
    const client = memoryClient();
    const seen = recordLists(client);
    // Another operator's Subscription in the namespace, listed first, is not this one.
    client.put(KINDS.subscription, { ...subscription({}), metadata: { name: "another", namespace: NS } });
    client.put(KINDS.subscription, subscription({}, { installedCSV: "pkg.v1", currentCSV: "pkg.v1" }));
    client.put(KINDS.csv, csv("pkg.v1", "Succeeded"));
    const outcome = await waitForOperatorInstall({ client, namespace: NS, subscription: "sub", timeoutMs });
    assert.deepEqual(outcome.result, { installedCSV: "pkg.v1", phase: "Succeeded", crds: [] });
    // A CSV whose install strategy has no Deployment needs none listed.
    assert.deepEqual(seen, ["subscriptions: ", "clusterserviceversions: "]);
  });

  it("fails on the operator's failed CSV once it persisted, when that time comes though nothing changed", async () => {
    const client = memoryClient();
    const clock = fakeClock();
    client.put(KINDS.subscription, subscription({}, { installedCSV: "pkg.v1", currentCSV: "pkg.v1" }));
    client.put(KINDS.csv, { ...csv("pkg.v1", "Failed"), status: { phase: "Failed", message: "crashloop" } });
    const run = script(clock, timeoutMs, [
      [/retried, final after 5m0s/, () => clock.advance(PERSISTENCE_MS)],
    ]);
    await failsWith(
      waitForOperatorInstall({ client, namespace: NS, subscription: "sub", ...run }),
      "operator ops/sub",
      "operator ops/sub: ClusterServiceVersion pkg.v1 failed: crashloop (persisted 5m0s, past the 5m0s allowed for retries)",
    );
  });

  it("observes without approving, and without asking to be evaluated again", async () => {
    const pending = memoryClient();
    const manual = { installPlanApproval: "Manual", startingCSV: "pkg.v1" };
    pending.put(KINDS.subscription, subscription(manual, { installPlanRef: { name: "install-1" } }));
    pending.put(KINDS.installPlan, plan(false));
    const observed = await observeOperatorInstall({
      client: pending,
      namespace: NS,
      subscription: "sub",
      startingCSV: "pkg.v1",
      timeoutMs,
    });
    assert.equal(observed.message, "operator ops/sub: approving InstallPlan install-1 for pkg.v1");
    assert.deepEqual(pending.patches, []);
    const client = memoryClient();
    client.put(KINDS.subscription, subscription({}, { installedCSV: "pkg.v1", currentCSV: "pkg.v1" }));
    client.put(KINDS.csv, csv("pkg.v1", "Installing"));
    const evaluation = await observeOperatorInstall({
      client,
      namespace: NS,
      subscription: "sub",
      timeoutMs,
    });
    assert.equal(evaluation.message, "operator ops/sub: pkg.v1 Installing");
    // Its Deployments are read (listed once, as everything an observation reads); nothing is asked again.
    assert.deepEqual(
      evaluation.needs?.map((n) => n.type === "source" && n.source.name),
      ["deployments"],
    );
  });

  it("uninstalls: the Subscription first, then every CSV it names or the package's label finds, and waits until they are gone", async () => {
    const client = memoryClient();
    const clock = fakeClock();
    const seen = recordLists(client);
    const deleted: string[] = [];
    const label = { "operators.coreos.com/pkg.ops": "" };
    const late = csv("pkg.v3", "Pending", label);
    const sub = subscription({}, { installedCSV: "pkg.v1", currentCSV: "pkg.v2" });
    const v1 = csv("pkg.v1", "Succeeded");
    // Their finalizers hold these two a while after their delete.
    const held: Array<[ResourceKind, KubeObject]> = [
      [KINDS.subscription, sub],
      [KINDS.csv, v1],
    ];
    const remove = client.delete.bind(client);
    client.delete = async (resource, name, namespace, signal) => {
      deleted.push(`${resource.plural}/${name}`);
      const finalized = held.find(([r, o]) => r === resource && o.metadata.name === name);
      if (finalized) {
        const [, o] = finalized;
        client.put(resource, {
          ...o,
          metadata: { ...o.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" },
        });
        return true;
      }
      const gone = await remove(resource, name, namespace, signal);
      // A plan still executing creates a CSV of the package after the deletes.
      if (name === "pkg.v2") client.put(KINDS.csv, late);
      return gone;
    };
    client.put(KINDS.subscription, sub);
    for (const c of [v1, csv("pkg.v2", "Pending"), csv("pkg.v0", "Replacing", label)])
      client.put(KINDS.csv, c);
    // Another operator's Subscription and CSV in the namespace stay, and do not hold the removal.
    client.put(KINDS.subscription, { ...subscription({}), metadata: { name: "other", namespace: NS } });
    client.put(KINDS.csv, csv("other.v1", "Succeeded"));
    const run = script(clock, timeoutMs, [
      [
        /waiting for Subscription sub, ClusterServiceVersion pkg.v1, ClusterServiceVersion pkg.v3 to go$/,
        () => {
          for (const [r, o] of held) client.remove(r, o);
          client.remove(KINDS.csv, late);
        },
      ],
    ]);
    const outcome = await uninstallOperator({
      client,
      namespace: NS,
      subscription: "sub",
      csv: "pkg.v-old",
      ...run,
    });
    assert.deepEqual(deleted, [
      "subscriptions/sub",
      "clusterserviceversions/pkg.v-old",
      "clusterserviceversions/pkg.v0",
      "clusterserviceversions/pkg.v1",
      "clusterserviceversions/pkg.v2",
    ]);
    assert.equal(seen[0], "clusterserviceversions: operators.coreos.com/pkg.ops");
    assert.deepEqual(run.messages, [
      "removal of operator ops/sub: waiting for Subscription sub, ClusterServiceVersion pkg.v1, ClusterServiceVersion pkg.v3 to go",
      "removal of operator ops/sub: waiting for ClusterServiceVersion pkg.v1, ClusterServiceVersion pkg.v3 to go",
      "removal of operator ops/sub: waiting for ClusterServiceVersion pkg.v3 to go",
      "removal of operator ops/sub: gone",
    ]);
    assert.deepEqual(outcome.result, { csvs: ["pkg.v-old", "pkg.v0", "pkg.v1", "pkg.v2"], crds: [] });
  });

  it("finds the package's CSVs by the package given, else the Subscription's, else its own name", async () => {
    const labels = async (options: { package?: string }, spec?: Record<string, unknown>) => {
      const client = memoryClient();
      const seen = recordLists(client);
      if (spec) client.put(KINDS.subscription, subscription(spec));
      const outcome = await uninstallOperator({
        client,
        namespace: NS,
        subscription: "sub",
        timeoutMs,
        ...options,
      });
      // Without a status there is no CSV named to delete: none is made up.
      assert.deepEqual(outcome.result.csvs, []);
      return seen[0];
    };
    assert.equal(
      await labels({ package: "given" }, {}),
      "clusterserviceversions: operators.coreos.com/given.ops",
    );
    assert.equal(await labels({}, {}), "clusterserviceversions: operators.coreos.com/pkg.ops");
    assert.equal(await labels({}), "clusterserviceversions: operators.coreos.com/sub.ops");
  });
});

/**
 * The Windows wait as WMCO plays it: it configures a Windows Machine's node only with the
 * `cloud-private-key` secret in its namespace (secret_controller.go), cordons the node while it
 * configures it and uncordons it last (nodeconfig.go Configure); the node carries nothing of its
 * MachineSet, so it is read by the name its Machine gives.
 */
describe("the Windows nodes wait", () => {
  const timeoutMs = 30 * 60_000;
  const MAPI = "openshift-machine-api";
  const version = {
    "windowsmachineconfig.openshift.io/version": "10.17.0",
    "windowsmachineconfig.openshift.io/desired-version": "10.17.0",
  };
  const windowsNode = (unschedulable: boolean): KubeObject => ({
    metadata: { name: "w1", labels: { "kubernetes.io/os": "windows" }, annotations: version },
    spec: { unschedulable },
    status: { conditions: [{ type: "Ready", status: "True" }] },
  });
  const cluster = (wmcoNamespace?: string) => {
    const client = memoryClient();
    const asked: string[] = [];
    const get = client.get.bind(client);
    client.get = async (resource, name, namespace, signal) => {
      asked.push(`get ${resource.plural} ${namespace}/${name}`);
      return get(resource, name, namespace, signal);
    };
    const list = client.list.bind(client);
    client.list = async (resource, selectors, signal) => {
      const { namespace, labelSelector, fieldSelector } = selectors;
      asked.push(`list ${resource.plural} ${namespace ?? ""} ${labelSelector ?? fieldSelector ?? ""}`);
      return list(resource, selectors, signal);
    };
    client.put(KINDS.machineSet, { metadata: { name: "win", namespace: MAPI }, spec: { replicas: 1 } });
    client.put(KINDS.machine, {
      metadata: {
        name: "win-1",
        namespace: MAPI,
        ownerReferences: [{ apiVersion: "v1beta1", kind: "MachineSet", name: "win", uid: "u" }],
      },
      status: { phase: "Running", nodeRef: { kind: "Node", name: "w1" } },
    });
    if (wmcoNamespace) {
      client.put(KINDS.secret, {
        metadata: { name: "cloud-private-key", namespace: wmcoNamespace },
        data: { "private-key.pem": "a2V5" },
      } as KubeObject);
    }
    return { client, asked };
  };

  it("reads the private key secret in WMCO's namespace, then each Machine's node by name, done once WMCO uncordoned it", async () => {
    const { client, asked } = cluster("wmco");
    const clock = fakeClock();
    client.put(KINDS.node, windowsNode(true));
    const run = script(clock, timeoutMs, [
      [/cordoned until WMCO/, () => client.put(KINDS.node, windowsNode(false))],
    ]);
    const outcome = await waitForWindowsNodes({
      client,
      machineSets: ["win"],
      wmcoNamespace: "wmco",
      ...run,
    });
    assert.deepEqual(outcome.result, {
      machineCount: 1,
      configuredCount: 1,
      nodes: ["w1"],
      version: "10.17.0",
    });
    assert.deepEqual(run.messages, [
      "Windows nodes of win: checking secret cloud-private-key",
      "Windows nodes of win: 0/1 configured (node w1 cordoned until WMCO finishes configuring it)",
      "Windows nodes of win: 1/1 configured",
    ]);
    assert.deepEqual(asked, [
      `list machinesets ${MAPI} metadata.name=win`,
      `list machines ${MAPI} machine.openshift.io/cluster-api-machineset in (win)`,
      "get secrets wmco/cloud-private-key",
      "list nodes  metadata.name=w1",
    ]);
  });

  it("fails naming WMCO's namespace when the private key secret is not there", async () => {
    const { client } = cluster();
    const observed = await observeWindowsNodes({ client, machineSets: ["win"], timeoutMs });
    assert.equal(observed.state, "failed");
    await failsWith(
      waitForWindowsNodes({ client, machineSets: ["win", "win-b"], timeoutMs }),
      "Windows nodes of openshift-machine-api/win,win-b",
      "Windows nodes of win, win-b: secret cloud-private-key is missing in namespace openshift-windows-machine-config-operator; the Windows Machine Config Operator configures no Windows node without it (create it with key private-key.pem holding the RSA private key of the instances)",
    );
  });
});

/**
 * A machine replacement carried out through the machine-api, played as its MachineSet controller
 * does (machine-api-operator pkg/controller/machineset/controller.go): it creates Machines from the
 * current template up to the replicas, and on a scale down deletes the machines carrying the delete
 * annotation first (getMachinesToDeletePrioritized); a deleted Machine is replaced.
 */
describe("the MachineSets wait carrying out a replacement", () => {
  const MAPI = "openshift-machine-api";
  const labels = { "node-role.kubernetes.io/infra": "" };
  const spec = (instanceType: string) => ({ providerSpec: { value: { instanceType } } });

  /** A cluster of one MachineSet whose template moved to m6i while its one machine runs m5. */
  function machineApi(options: { goneBeforeMark?: boolean } = {}) {
    const client = memoryClient();
    const clock = fakeClock();
    const deleted: string[] = [];
    const set = { replicas: 1, generation: 1 };
    const machines = new Map<string, KubeObject>();
    let created = 0;
    const put = (m: KubeObject) => {
      machines.set(m.metadata.name, m);
      client.put(KINDS.machine, m);
    };
    const remove = (name: string) => {
      const m = machines.get(name);
      if (!m) return;
      machines.delete(name);
      client.remove(KINDS.machine, m);
      client.remove(KINDS.node, { metadata: { name: `node-${name}` } });
    };
    const machine = (name: string, instanceType: string): KubeObject => ({
      metadata: {
        name,
        namespace: MAPI,
        ownerReferences: [{ apiVersion: "v1beta1", kind: "MachineSet", name: "infra-a", uid: "u" }],
      },
      spec: spec(instanceType),
      status: { phase: "Running", nodeRef: { kind: "Node", name: `node-${name}` } },
    });
    const start = (name: string, instanceType: string) => {
      client.put(KINDS.node, {
        metadata: { name: `node-${name}`, labels },
        status: { conditions: [{ type: "Ready", status: "True" }] },
      });
      put(machine(name, instanceType));
    };
    /** The MachineSet controller's sync: machines up to the replicas, marked ones deleted first. */
    const sync = () => {
      const byMark = [...machines.values()].sort(
        (a, b) => Number(!a.metadata.annotations) - Number(!b.metadata.annotations),
      );
      for (const m of byMark.slice(0, Math.max(0, machines.size - set.replicas))) remove(m.metadata.name);
      while (machines.size < set.replicas) start(`infra-a-${++created}`, "m6i.xlarge");
      const n = machines.size;
      client.put(KINDS.machineSet, {
        metadata: { name: "infra-a", namespace: MAPI, generation: set.generation },
        spec: { replicas: set.replicas, template: { spec: { metadata: { labels }, ...spec("m6i.xlarge") } } },
        status: { observedGeneration: set.generation, replicas: n, readyReplicas: n, availableReplicas: n },
      });
    };
    const patch = client.mergePatch.bind(client);
    client.mergePatch = async (resource, name, namespace, body, signal) => {
      await patch(resource, name, namespace, body, signal);
      setImmediate(sync);
      const replicas = (body as { spec?: { replicas?: number } }).spec?.replicas;
      if (resource === KINDS.machineSet && replicas !== undefined) {
        Object.assign(set, { replicas, generation: set.generation + 1 });
      } else if (resource === KINDS.machine) {
        // The health check deleted it just before the mark arrived.
        if (options.goneBeforeMark) remove(name);
        const m = machines.get(name);
        if (!m) throw apiError(`machines "${name}" not found`, { status: 404 });
        put({ ...m, metadata: { ...m.metadata, annotations: { [DELETE_MACHINE_ANNOTATION]: "true" } } });
      }
      return { metadata: { name, namespace } };
    };
    const del = client.delete.bind(client);
    client.delete = async (resource, name, namespace, signal) => {
      deleted.push(`${resource.plural}/${name}`);
      const gone = await del(resource, name, namespace, signal);
      remove(name);
      setImmediate(sync);
      return gone;
    };
    start("infra-a-0", "m5.xlarge");
    sync();
    const wait = (replacement: MachineReplacement) =>
      waitForMachineSetsReady({ client, clock, machineSets: ["infra-a"], replacement, timeoutMs: 60_000 });
    return { client, deleted, wait };
  }
  const mark = ["machines/infra-a-0", { metadata: { annotations: { [DELETE_MACHINE_ANNOTATION]: "true" } } }];

  it("surges, marks the old machine once the new one is Ready, and scales back down to delete it", async () => {
    const { client, deleted, wait } = machineApi();
    const outcome = await wait({ maxSurge: 1, maxUnavailable: 0, replicas: { "infra-a": 1 } });
    assert.deepEqual(client.patches, [
      ["machinesets/infra-a", { spec: { replicas: 2 } }],
      mark,
      ["machinesets/infra-a", { spec: { replicas: 1 } }],
    ]);
    assert.deepEqual(deleted, []);
    assert.deepEqual(outcome.result?.nodes, ["node-infra-a-1"]);
  });

  it("on an autoscaled MachineSet marks and deletes the old machine, which the MachineSet replaces", async () => {
    const { client, deleted, wait } = machineApi();
    const outcome = await wait({ maxSurge: 0, maxUnavailable: 1 });
    assert.deepEqual(client.patches, [mark]);
    assert.deepEqual(deleted, ["machines/infra-a-0"]);
    assert.deepEqual(outcome.result?.nodes, ["node-infra-a-1"]);
  });

  it("carries on when the machine to mark is gone already, deleted by the health check or the autoscaler", async () => {
    const { client, deleted, wait } = machineApi({ goneBeforeMark: true });
    const outcome = await wait({ maxSurge: 0, maxUnavailable: 1 });
    assert.deepEqual(client.patches, [mark]);
    assert.deepEqual(deleted, []);
    assert.deepEqual(outcome.result?.nodes, ["node-infra-a-1"]);
  });
});

/**
 * The MachineSets waits' own decisions over the machine-api's objects (machine-api-operator
 * pkg/controller/machineset/controller.go: a Machine carries its MachineSet as owner and label, its
 * node in status.nodeRef): what they list before every MachineSet is seen, and that a deletion is not
 * done before every node it knows of was listed.
 */
describe("the MachineSets waits: what they ask and when", () => {
  const MAPI = "openshift-machine-api";
  const timeoutMs = 60_000;
  const labels = { "node-role.kubernetes.io/infra": "" };
  const machineSet = (name: string, status: Record<string, unknown> = {}): KubeObject => ({
    metadata: { name, namespace: MAPI, generation: 1 },
    spec: { replicas: 1, template: { spec: { metadata: { labels } } } },
    status: { observedGeneration: 1, replicas: 1, readyReplicas: 0, availableReplicas: 0, ...status },
  });
  const machine = (name: string, set: string, node: string): KubeObject => ({
    metadata: {
      name,
      namespace: MAPI,
      deletionTimestamp: "2026-01-01T00:00:00Z",
      ownerReferences: [{ apiVersion: "v1beta1", kind: "MachineSet", name: set, uid: "u" }],
    },
    status: { phase: "Deleting", nodeRef: { kind: "Node", name: node } },
  });
  /** Records lists and deletes. */
  const cluster = () => {
    const client = memoryClient();
    const sent: string[] = [];
    const list = client.list.bind(client);
    client.list = async (resource, selectors, signal) => {
      sent.push(`list ${resource.plural} ${selectors.labelSelector ?? selectors.fieldSelector ?? ""}`);
      return list(resource, selectors, signal);
    };
    const del = client.delete.bind(client);
    client.delete = async (resource, name, namespace, signal) => {
      sent.push(`delete ${resource.plural}/${name}`);
      return del(resource, name, namespace, signal);
    };
    return { client, sent };
  };

  it("lists no node before every MachineSet exists, whose template labels select them", async () => {
    const { client, sent } = cluster();
    client.put(KINDS.machineSet, machineSet("infra-a"));
    const evaluation = await observeMachineSets({ client, machineSets: ["infra-a", "infra-b"], timeoutMs });
    assert.equal(
      evaluation.message,
      "MachineSets infra-a, infra-b: 0/1 nodes ready (MachineSet infra-a: 0/1 ready, 0 available)",
    );
    assert.equal(sent.filter((l) => l.startsWith("list nodes")).length, 0);
  });

  it("fails naming the waiter with its namespace and MachineSets, and sends nothing of a replacement without one", async () => {
    const { client, sent } = cluster();
    const clock = fakeClock();
    client.put(KINDS.machineSet, machineSet("infra-a"));
    client.put(KINDS.machineSet, machineSet("infra-b"));
    const run = script(clock, timeoutMs, [
      [
        /0\/2 nodes ready/,
        () => client.put(KINDS.machineSet, machineSet("infra-b", { errorMessage: "invalid providerSpec" })),
      ],
    ]);
    await failsWith(
      waitForMachineSetsReady({ client, machineSets: ["infra-a", "infra-b"], ...run }),
      "MachineSets openshift-machine-api/infra-a,infra-b",
      "MachineSet infra-b failed: invalid providerSpec",
    );
    assert.deepEqual(
      sent.filter((l) => !l.startsWith("list")),
      [],
    );
  });

  it("says it is listing nodes while one it learned of is not listed yet, and is done once every node it knows of is gone", async () => {
    const { client, sent } = cluster();
    const clock = fakeClock();
    const ma = machine("m-a", "infra-a", "n-a");
    const mb = machine("m-b", "infra-b", "n-b");
    client.put(KINDS.machine, ma);
    for (const n of ["n-a", "n-b"]) client.put(KINDS.node, { metadata: { name: n } });
    const run = script(clock, timeoutMs, [
      [/Machines m-a; Nodes n-a to go$/, () => client.put(KINDS.machine, mb)],
      [
        /Nodes n-a, n-b to go$/,
        () => {
          for (const m of [ma, mb]) client.remove(KINDS.machine, m);
          for (const n of ["n-a", "n-b"]) client.remove(KINDS.node, { metadata: { name: n } });
        },
      ],
    ]);
    await waitForMachineSetsDeleted({ client, machineSets: ["infra-a", "infra-b"], ...run });
    const prefix = "deletion of MachineSets infra-a, infra-b: waiting for Machines";
    assert.deepEqual(run.messages, [
      `${prefix} m-a to go (listing nodes)`,
      `${prefix} m-a; Nodes n-a to go`,
      `${prefix} m-a, m-b; Nodes n-a to go (listing nodes)`,
      `${prefix} m-a, m-b; Nodes n-a, n-b to go`,
      `${prefix} m-b; Nodes n-a, n-b to go`,
      "deletion of MachineSets infra-a, infra-b: waiting for Nodes n-a, n-b to go",
      "deletion of MachineSets infra-a, infra-b: waiting for Nodes n-b to go",
      "deletion of MachineSets infra-a, infra-b: gone",
    ]);
    assert.deepEqual(
      sent.filter((l) => l.startsWith("list nodes")),
      ["list nodes metadata.name=n-a", "list nodes metadata.name=n-b"],
    );
  });

  it("names the deletion waiter with its namespace and MachineSets when the deadline passes", async () => {
    const { client } = cluster();
    const clock = fakeClock();
    client.put(KINDS.machineSet, {
      ...machineSet("infra-a"),
      metadata: { ...machineSet("infra-a").metadata, deletionTimestamp: "2026-01-01T00:00:00Z" },
    });
    const run = script(clock, timeoutMs, [[/infra-a/, () => {}]]);
    await assert.rejects(
      waitForMachineSetsDeleted({ client, machineSets: ["infra-a", "infra-b"], ...run }),
      (e: unknown) =>
        isWaitError(e) &&
        e.kind === "timeout" &&
        e.waiter === "deletion of MachineSets openshift-machine-api/infra-a,infra-b",
    );
  });
});
