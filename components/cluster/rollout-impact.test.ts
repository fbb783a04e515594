import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import {
  createMachineSet,
  K,
  keyOf,
  machineConfig,
  poolTarget,
  Simulator,
  startTestSimulator,
  storeUntil,
  workerNodes,
} from "../../test/simulator-fixture";
import { SERVICE_ACCOUNT_DIR_ENV } from "../../provider/dynamic/credentials";
import { AWS_INFRA_ID, mocks, resetMocks, settle, valueOf, withObjects } from "../../test/mocks";
import {
  KubeletConfig,
  MachineConfig,
  MachineConfigPool,
} from "../machine-configuration/machine-configuration";
import { impactLine, PoolImpact } from "../../builders/rollout-impact";
import {
  machineConfig as machineConfigManifest,
  machineConfigPool,
} from "../../builders/machineconfiguration";
import { clusterPoolImpact, renderImpactIn } from "./rollout-impact";
import { readCluster } from "./cluster-snapshot";
import { InfraNodePool } from "../infra-node-pool/infra-node-pool";
import { NodePool } from "../node-pool/node-pool";
import { nodeMetadataPhrase } from "../../builders/machineset/node-metadata";
import {
  OperatorSubscription,
  OperatorSubscriptionArgs,
} from "../operator-subscription/operator-subscription";
import { awsCloud } from "../../test/mocks";
import { NodeDisruptionPolicy, policyFieldManager } from "../machine-configuration/node-disruption-policy";
import { CanaryPool } from "../machine-configuration/canary-pool";
import { createApiClient } from "../../provider/waiting/api";
import { KINDS } from "../../provider/waiting/kinds";

const reloadCrio = { type: "Reload" as const, reload: { serviceName: "crio.service" } };

/**
 * Each component here is given the simulator's kubeconfig, with no ambient one beside it that the
 * default provider would connect with and that the kubeconfig would have to reach (cluster/wait.ts).
 */
function withoutAmbientKubeconfig(): void {
  const ambient = process.env.KUBECONFIG;
  before(() => (process.env.KUBECONFIG = "/nonexistent/kubeconfig"));
  after(() => (process.env.KUBECONFIG = ambient));
}

/** The reason of the InputPropertyError `output` fails with, at `propertyPath`. */
async function inputErrorAt(output: pulumi.Output<unknown>, propertyPath: string): Promise<string> {
  const error = await valueOf(output).then(
    () => assert.fail(`no error at ${propertyPath}`),
    (e: unknown) => e,
  );
  assert.ok(pulumi.InputPropertyError.isInstance(error), String(error));
  assert.equal(error.propertyPath, propertyPath);
  return error.reason;
}

describe("rollout impact at preview, against the cluster", function () {
  withoutAmbientKubeconfig();
  this.timeout(30_000);
  let sim: Simulator;
  before(async () => {
    sim = await startTestSimulator();
  });
  after(() => sim.stop());

  const chrony = (kubeconfig: string) =>
    new MachineConfig("99-worker-chrony", {
      role: "worker",
      files: [{ path: "/etc/chrony.conf", contents: { text: "pool 10.0.0.1 iburst\n" } }],
      kubeconfig,
    });
  const preview = async (make: (kubeconfig: string) => { rolloutImpact: MachineConfig["rolloutImpact"] }) => {
    await resetMocks(undefined, { preview: true });
    return valueOf(make(sim.kubeconfig).rolloutImpact);
  };

  it("asks a cluster that does not answer once per preview, not once per pool and object", async () => {
    let connections = 0;
    // It answers no TLS handshake: a failure no request is tried again after (a reset would be, as
    // client-go tries a GET again, retry.ts).
    const server = net.createServer((socket) => {
      connections++;
      socket.write("not an API server\r\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as net.AddressInfo;
    const down = sim.kubeconfig.replace(/server: .*/, `server: https://127.0.0.1:${port}`);
    const warnings: string[] = [];
    const original = pulumi.log.warn;
    Object.assign(pulumi.log, { warn: (message: string) => warnings.push(message) });
    try {
      await resetMocks(undefined, { preview: true });
      const impacts = await Promise.all(
        ["a", "b", "c"].map((n) =>
          valueOf(
            new MachineConfig(`99-worker-${n}`, {
              role: "worker",
              files: [{ path: `/etc/${n}.conf`, contents: { text: n } }],
              kubeconfig: down,
            }).rolloutImpact,
          ),
        ),
      );
      assert.deepEqual(impacts, [undefined, undefined, undefined]);
      // The impact is unknown at preview without a cluster's answer (its waiter's output), so it may
      // resolve before the read has ended: the warning says that the pool's summary has asked, once
      // for its three components.
      const asked = () =>
        warnings.filter((w) => /rollout impact unknown: the cluster does not answer/.test(w));
      for (let i = 0; i < 200 && asked().length < 1; i++) await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(asked(), [warnings[0]], warnings.join("\n"));
      assert.match(warnings[0], /^pool worker: /);
      assert.equal(connections, 1);
    } finally {
      Object.assign(pulumi.log, { warn: original });
      server.close();
    }
  });

  it("a new file on the workers: a new render, 3 nodes drain and reboot one at a time", async () => {
    const impact = await preview(chrony);
    assert.deepEqual(
      [impact?.newRender, impact?.action, impact?.machineCount, impact?.waves],
      [true, "reboot", 3, 3],
    );
    assert.deepEqual(
      impact?.causes.map((c) => `${c.kind} ${c.name} of ${c.source}`),
      ["file /etc/chrony.conf of 99-worker-chrony"],
    );
  });

  it("says when the change drains the node the program runs on, in a pod of the cluster, once per pool and run", async () => {
    const serviceAccount = fs.mkdtempSync(path.join(os.tmpdir(), "runner-sa-"));
    fs.writeFileSync(path.join(serviceAccount, "token"), sim.token);
    fs.writeFileSync(path.join(serviceAccount, "namespace"), "pulumi\n");
    const [worker] = workerNodes(sim);
    const master = sim.store
      .list("v1", "Node")
      .find((n) => n.metadata.labels?.["node-role.kubernetes.io/master"] !== undefined)!;
    // The operator's workspace pod, as its StatefulSet names it; the pod's hostname is its name.
    sim.store.create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "infra-stack-workspace-0", namespace: "pulumi" },
      spec: { nodeName: worker.metadata.name, containers: [{ name: "pulumi", image: "pulumi/pulumi" }] },
    });
    const saved = { ...process.env };
    const warnings: string[] = [];
    const said: string[] = [];
    const original = { warn: pulumi.log.warn, info: pulumi.log.info };
    Object.assign(pulumi.log, {
      warn: (message: string) => warnings.push(message),
      info: (message: string) => said.push(message),
    });
    const run = async (env: NodeJS.ProcessEnv) => {
      Object.assign(process.env, env);
      warnings.length = 0;
      said.length = 0;
      await resetMocks(undefined, { preview: true });
      const files = (n: string) => [{ path: `/etc/${n}.conf`, contents: { text: n } }];
      await Promise.all(
        ["a", "b"].map((n) =>
          valueOf(
            new MachineConfig(`99-worker-runner-${n}`, {
              role: "worker",
              files: files(n),
              kubeconfig: sim.kubeconfig,
            }).rolloutImpact,
          ),
        ),
      );
      // The impacts may resolve before their lines are said (see "asks a cluster that does not answer").
      const lines = () => said.filter((line) => line.startsWith("pool worker: new render")).length;
      for (let i = 0; i < 200 && lines() < 1; i++) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 100));
      return warnings.filter((w) => w.includes("this program runs"));
    };
    try {
      const inPod = {
        KUBERNETES_SERVICE_HOST: "127.0.0.1",
        KUBERNETES_SERVICE_PORT: new URL(sim.server).port,
        [SERVICE_ACCOUNT_DIR_ENV]: serviceAccount,
        HOSTNAME: "infra-stack-workspace-0",
      };
      assert.deepEqual(await run(inPod), [
        `pool worker: this program runs in pod pulumi/infra-stack-workspace-0 on node ${worker.metadata.name}, ` +
          "which this change drains: the runner can be evicted during up, which then stops with the stack " +
          "locked and the rollout unwatched; run it on nodes of a pool the change does not drain (docs/in-cluster.md)",
      ]);
      // The downward API's node name comes first; a runner on a control-plane node is not drained.
      assert.deepEqual(await run({ ...inPod, NODE_NAME: master.metadata.name }), []);
      // Outside a pod, nothing is said (components/cluster/runner.test.ts: nor in one of another cluster).
      assert.deepEqual(await run({ NODE_NAME: worker.metadata.name, KUBERNETES_SERVICE_HOST: "" }), []);
    } finally {
      Object.assign(pulumi.log, original);
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
      fs.rmSync(serviceAccount, { recursive: true, force: true });
      sim.store.delete(keyOf({ apiVersion: "v1", kind: "Pod" }, "infra-stack-workspace-0", "pulumi"));
    }
  });

  it("one line per pool: a MachineConfig and a KubeletConfig on it are one render, said once, and both components get it", async () => {
    const infos: string[] = [];
    const original = pulumi.log.info;
    Object.assign(pulumi.log, { info: (message: string) => infos.push(message) });
    try {
      await resetMocks(undefined, { preview: true });
      const mc = chrony(sim.kubeconfig);
      const kubelet = new KubeletConfig("worker-pods", {
        pool: "worker",
        kubeletConfig: { maxPods: 300 },
        kubeconfig: sim.kubeconfig,
      });
      const [a, b] = await Promise.all([valueOf(mc.rolloutImpact), valueOf(kubelet.rolloutImpact)]);
      assert.deepEqual(a, b);
      assert.deepEqual(
        a?.causes.map((c) => `${c.kind} ${c.name} of ${c.source}`),
        [
          "file /etc/chrony.conf of 99-worker-chrony",
          "file /etc/kubernetes/kubelet.conf of 99-worker-generated-kubelet",
        ],
      );
      assert.deepEqual(infos, [
        "pool worker: new render; 3 nodes drain and reboot, 1 at a time, 3 waves, about 12 min (file /etc/chrony.conf of 99-worker-chrony and 1 more)",
      ]);
    } finally {
      Object.assign(pulumi.log, { info: original });
    }
  });

  it("a canary of the workers: its node joins with the change and returns on destroy with none, worker rolls out the rest after it; nodes the canary cannot take refused", async () => {
    const infos: string[] = [];
    const original = pulumi.log.info;
    Object.assign(pulumi.log, { info: (message: string) => infos.push(message) });
    const [first, ...others] = workerNodes(sim).map((n) => n.metadata.name);
    try {
      await resetMocks(undefined, { preview: true });
      new CanaryPool("canary", { nodes: [first], kubeconfig: sim.kubeconfig });
      await valueOf(chrony(sim.kubeconfig).rolloutImpact);
      await settle();
      assert.deepEqual(infos.sort(), [
        `pool canary: node ${first} joins from worker: drain and reboot; destroy returns its nodes to worker: the same configuration as worker (no drain, no reboot)`,
        "pool worker: new render; 2 nodes drain and reboot, 1 at a time, 2 waves, about 8 min (file /etc/chrony.conf of 99-worker-chrony); after canary has rolled out",
      ]);
    } finally {
      Object.assign(pulumi.log, { info: original });
    }
    await resetMocks(undefined, { preview: true });
    const unknown = new CanaryPool("canary", { nodes: ["ip-10-0-0-1.example"], kubeconfig: sim.kubeconfig });
    assert.match(
      await inputErrorAt(unknown.labelled, "nodes[0]"),
      /the cluster has no node ip-10-0-0-1.example/,
    );
    await resetMocks(undefined, { preview: true });
    const all = new CanaryPool("canary", { nodes: [first, ...others], kubeconfig: sim.kubeconfig });
    assert.match(await inputErrorAt(all.labelled, "nodes"), /3 of the 3 nodes of worker/);
  });

  it("a NodeDisruptionPolicy declared first turns the reboot of the MachineConfigs after it into a reload, in the same preview; one declared later is left out, with a warning", async () => {
    const crioConf = (kubeconfig: string) =>
      new MachineConfig("99-worker-crio", {
        role: "worker",
        files: [{ path: "/etc/crio/crio.conf.d/99-mine.conf", contents: { text: "[crio]\n" } }],
        kubeconfig,
      });
    const policy = (kubeconfig: string) =>
      new NodeDisruptionPolicy("crio-reload", {
        files: [{ path: "/etc/crio/crio.conf.d", actions: [reloadCrio] }],
        kubeconfig,
      });
    const warnings: string[] = [];
    const original = pulumi.log.warn;
    Object.assign(pulumi.log, { warn: (message: string) => warnings.push(message) });
    try {
      const reloaded = await preview((kubeconfig) => (policy(kubeconfig), crioConf(kubeconfig)));
      assert.equal(
        reloaded && impactLine(reloaded),
        "pool worker: new render; 3 nodes reload crio.service, 1 at a time, 3 waves, about 2 min (file /etc/crio/crio.conf.d/99-mine.conf of 99-worker-crio)",
      );
      assert.deepEqual(warnings, []);
      // Its own field manager, and a release that gives back the list it writes to.
      await settle();
      const patch = mocks.resources.find((r) => r.type.endsWith("MachineConfigurationPatch"));
      const annotations = (patch?.inputs.metadata as { annotations: Record<string, string> }).annotations;
      assert.equal(annotations["pulumi.com/patchFieldManager"], "openshift-topology-policy-crio-reload");
      const release = mocks.resources.find((r) => r.name === "crio-reload-release");
      assert.deepEqual(release?.inputs.paths, [["spec", "nodeDisruptionPolicy", "files"]]);
      const rebooted = await preview((kubeconfig) => {
        const mc = crioConf(kubeconfig);
        policy(kubeconfig);
        return mc;
      });
      assert.equal(rebooted?.action, "reboot");
      assert.deepEqual(warnings, [
        'pool worker: NodeDisruptionPolicy "crio-reload" is declared after what the program declares for this pool, so up may apply it once the pool is rolling out: this line leaves it out; declare it first',
      ]);
    } finally {
      Object.assign(pulumi.log, { warn: original });
    }
  });

  it("a NodeDisruptionPolicy refuses at preview an entry the cluster holds from someone else, and takes back its own after a hand edit", async () => {
    const client = createApiClient(sim.kubeconfig);
    const edit = (patch: unknown, manager: string) =>
      client.mergePatch(KINDS.machineConfiguration, "cluster", undefined, patch, undefined, manager);
    const hand = { path: "/etc/chrony.conf", actions: [{ type: "None" }] };
    await edit({ spec: { nodeDisruptionPolicy: { files: [hand] } } }, "kubectl-edit");
    try {
      await resetMocks(undefined, { preview: true });
      const taken = new NodeDisruptionPolicy("chrony", {
        files: [
          {
            path: "/etc/chrony.conf",
            actions: [{ type: "Restart", restart: { serviceName: "chronyd.service" } }],
          },
        ],
        kubeconfig: sim.kubeconfig,
      });
      assert.match(
        await inputErrorAt(taken.policy, "files[0].path"),
        /already has a policy for "\/etc\/chrony.conf", set by kubectl-edit: remove it there/,
      );
      // The same entry as the patch's own field manager set it: a hand edit of its actions is taken back.
      await edit({ spec: { nodeDisruptionPolicy: null } }, "kubectl-edit");
      await edit({ spec: { nodeDisruptionPolicy: { files: [hand] } } }, policyFieldManager("chrony"));
      await edit(
        { spec: { nodeDisruptionPolicy: { files: [{ ...hand, actions: [{ type: "Drain" }] }] } } },
        "kubectl-edit",
      );
      await resetMocks(undefined, { preview: true });
      const own = new NodeDisruptionPolicy("chrony", { files: [hand as never], kubeconfig: sim.kubeconfig });
      assert.deepEqual(await valueOf(own.policy), { files: [hand] });
    } finally {
      await edit({ spec: { nodeDisruptionPolicy: null } }, "kubectl-edit");
    }
  });

  it("follows the cluster's node disruption policy and pool settings; a KubeletConfig reboots", async () => {
    sim.store.mutate(keyOf(K.machineConfiguration, "cluster"), (m) => {
      (m.spec as Record<string, unknown>).nodeDisruptionPolicy = {
        files: [
          {
            path: "/etc/chrony.conf",
            actions: [{ type: "Restart", restart: { serviceName: "chronyd.service" } }],
          },
        ],
      };
    });
    sim.store.mutate(keyOf(K.pool, "worker"), (p) => {
      Object.assign(p.spec as Record<string, unknown>, { maxUnavailable: "100%", paused: true });
    });
    const restarted = await preview(chrony);
    assert.deepEqual(
      [restarted?.action, restarted?.steps, restarted?.atATime, restarted?.waves, restarted?.paused],
      ["restart", ["restart chronyd.service"], 3, 1, true],
    );
    const kubelet = await preview(
      (kubeconfig) =>
        new KubeletConfig("worker-pods", { pool: "worker", kubeletConfig: { maxPods: 300 }, kubeconfig }),
    );
    assert.deepEqual([kubelet?.action, kubelet?.causes[0].name], ["reboot", "/etc/kubernetes/kubelet.conf"]);
  });

  it("says nothing on up, where the object may already be applied", async () => {
    await resetMocks();
    const mc = new MachineConfig("99-worker-up", {
      role: "worker",
      files: [{ path: "/etc/up.conf", contents: { text: "x\n" } }],
      kubeconfig: sim.kubeconfig,
    });
    assert.equal(await valueOf(mc.rolloutImpact), undefined);
  });

  it("a pool's own settings: nothing without a pending render; unpausing starts the one waiting, at its pace", async () => {
    const idle = await clusterPoolImpact(sim.kubeconfig, "worker", { maxUnavailable: 2 });
    assert.deepEqual([idle?.newRender, idle?.pending, idle?.waves], [false, undefined, 0]);

    // The pool is paused (previous test) and gets a new file: rendered, but no node moves.
    const before = poolTarget(sim);
    sim.store.create(machineConfig("99-worker-motd", { "/etc/motd": "hello\n" }));
    await storeUntil(sim, "a new worker render", () => poolTarget(sim) !== before);
    const unpaused = await clusterPoolImpact(sim.kubeconfig, "worker", { maxUnavailable: 2, paused: false });
    assert.deepEqual(
      [unpaused?.pending, unpaused?.action, unpaused?.machineCount, unpaused?.atATime, unpaused?.waves],
      [true, "reboot", 3, 2, 2],
    );
    assert.deepEqual(
      unpaused?.causes.map((c) => `${c.kind} ${c.name}`),
      ["file /etc/motd"],
    );
    assert.match(
      impactLine(unpaused!),
      /^pool worker: pending render; 3 nodes drain and reboot, 2 at a time/,
    );
    const held = await clusterPoolImpact(sim.kubeconfig, "worker", { paused: true });
    assert.deepEqual([held?.pending, held?.paused], [true, true]);
  });

  // openshift/machine-config-operator pkg/controller/render (getMachineConfigsForPool: the configs the
  // pool's machineConfigSelector picks) and the kubelet config controller's pool selection by labels.
  it("an adopted pool made by hand: re-rendered when the stack's selector picks other configs, not when it picks the same", async () => {
    const role = {
      key: "machineconfiguration.openshift.io/role",
      operator: "In",
      values: ["worker", "byhand"],
    };
    sim.store.create({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfigPool",
      metadata: { name: "byhand" },
      spec: {
        machineConfigSelector: { matchLabels: { "machineconfiguration.openshift.io/role": "byhand" } },
        nodeSelector: { matchLabels: { "node-role.kubernetes.io/byhand": "" } },
      },
    });
    const selection = (machineConfigSelector: unknown) => ({
      selection: {
        machineConfigSelector,
        labels: { "pools.operator.machineconfiguration.openshift.io/byhand": "" },
      },
    });
    const inherits = await clusterPoolImpact(
      sim.kubeconfig,
      "byhand",
      selection({ matchExpressions: [role] }),
    );
    assert.equal(inherits?.newRender, true, "the worker configs join the pool's render");
    assert.ok((inherits?.causes.length ?? 0) > 0, "each worker file or unit it adds is a cause");
    const same = await clusterPoolImpact(
      sim.kubeconfig,
      "byhand",
      selection({ matchLabels: { "machineconfiguration.openshift.io/role": "byhand" } }),
    );
    assert.equal(same?.newRender, false);
  });

  it("warns on a node configuration whose pool is neither in the cluster nor declared in the program", async () => {
    const warnings: string[] = [];
    const original = pulumi.log.warn;
    Object.assign(pulumi.log, { warn: (message: string) => warnings.push(message) });
    try {
      await resetMocks(undefined, { preview: true });
      const misspelled = new KubeletConfig("infar-pods", {
        pool: "infar",
        kubeletConfig: { maxPods: 300 },
        kubeconfig: sim.kubeconfig,
      });
      assert.equal(await valueOf(misspelled.rolloutImpact), undefined);
      assert.deepEqual(warnings, [
        "pool infar: neither in the cluster nor declared in this program (by an InfraNodePool or MachineConfigPool): KubeletConfig infar-pods selects no pool unless something else creates it; check the pool's name",
      ]);
      // The same pool declared in the program (after the object, as programs may): no warning.
      warnings.length = 0;
      await resetMocks(undefined, { preview: true });
      const declared = new KubeletConfig("gpu-pods", {
        pool: "gpu",
        kubeletConfig: { maxPods: 300 },
        kubeconfig: sim.kubeconfig,
      });
      new MachineConfigPool("gpu", { kubeconfig: sim.kubeconfig });
      assert.equal(await valueOf(declared.rolloutImpact), undefined);
      assert.deepEqual(warnings, []);
    } finally {
      Object.assign(pulumi.log, { warn: original });
    }
  });

  it("pool components report their pool: not in the cluster yet, then no new render", async () => {
    await resetMocks(awsCloud(), { preview: true });
    const infra = new InfraNodePool("infra", {
      zones: ["us-east-2a"],
      kubeconfig: sim.kubeconfig,
      maxUnavailable: 1,
    });
    assert.equal(await valueOf(infra.rolloutImpact), undefined);
    sim.store.create({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfigPool",
      metadata: { name: "infra" },
      spec: {
        machineConfigSelector: {
          matchExpressions: [
            { key: "machineconfiguration.openshift.io/role", operator: "In", values: ["worker", "infra"] },
          ],
        },
        nodeSelector: { matchLabels: { "node-role.kubernetes.io/infra": "" } },
      },
    });
    await resetMocks(awsCloud(), { preview: true });
    const again = new InfraNodePool("infra", {
      zones: ["us-east-2a"],
      kubeconfig: sim.kubeconfig,
      maxUnavailable: 1,
    });
    assert.equal((await valueOf(again.rolloutImpact))?.newRender, false);
    await resetMocks(undefined, { preview: true });
    const mcp = new MachineConfigPool("infra", { paused: true, kubeconfig: sim.kubeconfig });
    assert.deepEqual(
      [(await valueOf(mcp.rolloutImpact))?.newRender, (await valueOf(mcp.rolloutImpact))?.paused],
      [false, true],
    );
  });

  // machine-api-operator: a MachineSet's template reaches only the Machines it creates afterwards
  // (pkg/controller/machineset controller.go createMachine); nodelink copies a Machine's labels and
  // taints to its Node (pkg/controller/nodelink ReconcileNodeLink). An `up` with `wait: false` writes the
  // template and leaves the running machines as they were; the next `up` that waits writes them.
  it("says what up writes on running nodes whose MachineSet's template already carries the pool's labels and taints", async () => {
    const ns = "openshift-machine-api";
    const set = `${AWS_INFRA_ID}-tagged-us-east-2a`;
    createMachineSet(sim, set, { replicas: 1 });
    await storeUntil(sim, "the MachineSet's node", () =>
      sim.store
        .list(K.machine.apiVersion, K.machine.kind, { namespace: ns })
        .find(
          (m) =>
            m.metadata.labels?.["machine.openshift.io/cluster-api-machineset"] === set &&
            (m.status as { nodeRef?: unknown } | undefined)?.nodeRef,
        ),
    );
    const dedicated = { key: "example.com/dedicated", value: "tagged", effect: "NoSchedule" as const };
    const previewPool = async () => {
      await resetMocks(awsCloud(), { preview: true });
      const pool = new NodePool("tagged", {
        role: "tagged",
        zones: ["us-east-2a"],
        taints: [dedicated],
        kubeconfig: sim.kubeconfig,
      });
      const impact = await valueOf(pool.labelsAndTaintsImpact);
      const declared = mocks.resources.find((r) => r.name === "tagged-us-east-2a")!;
      return {
        phrase: impact && nodeMetadataPhrase(impact),
        template: (declared.inputs.spec as any).template,
      };
    };
    const expected =
      "1 node gets label node-role.kubernetes.io/tagged=; 1 node gets taint example.com/dedicated=tagged:NoSchedule (no drain, no reboot)";
    const before = await previewPool();
    assert.equal(before.phrase, expected, "the template changes");
    // What an `up` without waiting leaves: the template as declared, the running machine as it was.
    sim.store.mutate(keyOf(K.machineSet, set, ns), (ms) => {
      (ms.spec as any).template = before.template;
    });
    const after = await previewPool();
    assert.equal(after.phrase, expected, "the template is as declared, the running node is not");
    sim.store.mutate(keyOf(K.machineSet, set, ns), (ms) => ((ms.spec as any).replicas = 0));
    await storeUntil(sim, "its machine gone", () =>
      sim.store
        .list(K.machine.apiVersion, K.machine.kind, { namespace: ns })
        .every((m) => m.metadata.labels?.["machine.openshift.io/cluster-api-machineset"] !== set),
    );
    sim.store.delete(keyOf(K.machineSet, set, ns));
  });

  // Seed 001's workshop makes infra MachineSets and no pool, and a hand-made pool seldom has every zone:
  // adopting imports what the cluster holds and creates the rest (adoption.ts), the preview naming each.
  it("adopting a pool made in part by hand imports the MachineSet the cluster holds and creates the pool, the other zone's MachineSet and the health check", async () => {
    const ns = "openshift-machine-api";
    const held = `${AWS_INFRA_ID}-partial-us-east-2a`;
    createMachineSet(sim, held, { replicas: 0 });
    const infos: string[] = [];
    const original = pulumi.log.info;
    Object.assign(pulumi.log, { info: (message: string) => infos.push(message) });
    try {
      // The mocks answer the import as the engine would, reading what the cluster holds.
      const imports: Array<[string, string]> = [
        ["kubernetes:machine.openshift.io/v1beta1:MachineSet", `${ns}/${held}`],
      ];
      await resetMocks(withObjects(awsCloud(), imports), { preview: true });
      const pool = new InfraNodePool("partial", {
        role: "partial",
        zones: ["us-east-2a", "us-east-2b"],
        healthCheck: true,
        adopt: true,
        kubeconfig: sim.kubeconfig,
      });
      // Registered once each has its URN.
      const objects = [
        await valueOf(pool.machineConfigPool),
        ...(await valueOf(pool.machineSets)),
        await valueOf(pool.machineHealthCheck!),
      ];
      await Promise.all(objects.map((o) => valueOf(o.urn)));
    } finally {
      Object.assign(pulumi.log, { info: original });
    }
    const declared = mocks.resources.filter((r) => /^partial-(pool|us-east-2.|health-check)$/.test(r.name));
    assert.deepEqual(declared.map((r) => [r.name, r.id ?? ""]).sort(), [
      ["partial-health-check", ""],
      ["partial-pool", ""],
      ["partial-us-east-2a", `${ns}/${held}`],
      ["partial-us-east-2b", ""],
    ]);
    assert.deepEqual(infos.filter((m) => m.startsWith("adopt: ")).sort(), [
      `adopt: MachineConfigPool partial is not in the cluster: created`,
      `adopt: MachineHealthCheck ${ns}/${AWS_INFRA_ID}-partial is not in the cluster: created`,
      `adopt: MachineSet ${ns}/${AWS_INFRA_ID}-partial-us-east-2b is not in the cluster: created`,
    ]);
  });

  // The machine-api sets a MachineSet's autoscaling bounds from each MachineAutoscaler that targets it,
  // and remediates for each MachineHealthCheck whose selector takes a machine.
  it("adopting a pool whose machines are autoscaled and health-checked by hand under other names fails the preview naming each", async () => {
    const set = `${AWS_INFRA_ID}-rival-us-east-2a`;
    createMachineSet(sim, set, { replicas: 0 });
    sim.store.create({
      apiVersion: "autoscaling.openshift.io/v1beta1",
      kind: "MachineAutoscaler",
      metadata: { name: "my-scaler", namespace: "openshift-machine-api" },
      spec: {
        minReplicas: 1,
        maxReplicas: 3,
        scaleTargetRef: { apiVersion: "machine.openshift.io/v1beta1", kind: "MachineSet", name: set },
      },
    });
    sim.store.create({
      apiVersion: "machine.openshift.io/v1beta1",
      kind: "MachineHealthCheck",
      metadata: { name: "my-check", namespace: "openshift-machine-api" },
      spec: {
        selector: { matchLabels: { "machine.openshift.io/cluster-api-machineset": set } },
        unhealthyConditions: [{ type: "Ready", status: "Unknown", timeout: "300s" }],
      },
    });
    const imports: Array<[string, string]> = [
      ["kubernetes:machine.openshift.io/v1beta1:MachineSet", `openshift-machine-api/${set}`],
    ];
    await resetMocks(withObjects(awsCloud(), imports), { preview: true });
    const pool = new InfraNodePool("rival", {
      role: "rival",
      zones: ["us-east-2a"],
      autoscaling: { minReplicas: 1, maxReplicas: 3 },
      healthCheck: true,
      adopt: true,
      kubeconfig: sim.kubeconfig,
    });
    assert.match(
      await inputErrorAt(pool.machineHealthCheck!, "healthCheck"),
      /^MachineHealthCheck my-check, made by hand, already watches this pool's machines/,
    );
    const reason = await inputErrorAt(pool.machineAutoscalers, "autoscaling");
    assert.match(reason, new RegExp(`^MachineAutoscaler my-scaler scales MachineSet ${set}, made by hand`));
  });

  // What OLM refuses only after `up` created the objects, the preview reads from the catalog: the
  // resolver's "no operators found in channel", operator-framework/api InstallModeSet.Supports (the CSV's
  // UnsupportedOperatorGroup), a startingCSV that is no entry of the channel.
  it("checks an operator's channel, install mode and startingCSV against its package in the catalog", async () => {
    const warnings: string[] = [];
    const original = pulumi.log.warn;
    Object.assign(pulumi.log, { warn: (message: string) => warnings.push(message) });
    try {
      await resetMocks(undefined, { preview: true });
      const operator = (name: string, args: Partial<OperatorSubscriptionArgs>) =>
        new OperatorSubscription(name, {
          packageName: "loki-operator",
          channel: "stable-6.1",
          ...args,
          kubeconfig: sim.kubeconfig,
        });
      const misspelt = operator("logging", { packageName: "cluster-logging", channel: "stable-6.2" });
      const ownNamespace = operator("loki", {
        namespace: "openshift-operators-redhat",
        startingCSV: "loki-operator.v6.0.2",
      });
      const fits = operator("loki-all", {
        targetNamespaces: "AllNamespaces",
        startingCSV: "loki-operator.v6.1.1",
      });
      const elsewhere = operator("mine", {
        packageName: "my-operator",
        channel: "alpha",
        source: "my-catalog",
      });
      assert.equal(
        await inputErrorAt(misspelt.subscriptionName, "channel"),
        'package cluster-logging in catalog redhat-operators has no channel "stable-6.2": its channels are stable-6.0, stable-6.1 (default stable-6.1)',
      );
      const errors = await valueOf(ownNamespace.subscriptionName).then(
        () => assert.fail("no error"),
        (e: pulumi.InputPropertiesError) => e.errors.map((p) => `${p.propertyPath}: ${p.reason}`),
      );
      assert.deepEqual(errors, [
        'targetNamespaces: OwnNamespace (the default) is not an install mode of loki-operator.v6.1.1 (channel stable-6.1), which supports AllNamespaces: use "AllNamespaces"',
        "startingCSV: loki-operator.v6.0.2 is not in channel stable-6.1 of package loki-operator in catalog redhat-operators: its entries are loki-operator.v6.1.1, loki-operator.v6.1.0",
      ]);
      assert.equal(await valueOf(fits.subscriptionName), "loki-operator");
      assert.equal(await valueOf(elsewhere.subscriptionName), "my-operator");
      await settle();
      assert.deepEqual(warnings, [
        "package my-operator is not in the catalogs of namespace openshift-marketplace (kubectl get packagemanifests -n openshift-marketplace lists them): the Subscription resolves only once catalog my-catalog serves it",
      ]);
    } finally {
      Object.assign(pulumi.log, { warn: original });
    }
  });

  // OLM refuses a namespace with two OperatorGroups (TooManyOperatorGroups), and OperatorHub names its
  // own after the namespace: an adopting operator creates none of its objects beside a hand-made install.
  it("adopting an operator the cluster lacks fails the preview naming each missing object and the way out", async () => {
    await resetMocks(undefined, { preview: true });
    const operator = new OperatorSubscription("byhand", {
      packageName: "byhand-operator",
      channel: "stable",
      adopt: true,
      kubeconfig: sim.kubeconfig,
    });
    assert.equal(
      await inputErrorAt(operator.subscriptionName, "adopt"),
      "the cluster has no Namespace byhand-operator (nothing of the operator is installed: leave adopt off), no OperatorGroup byhand-operator/byhand-operator (createOperatorGroup: false keeps the namespace's own, which OperatorHub names otherwise), no Subscription byhand-operator/byhand-operator (leave adopt off, with createNamespace: false and createOperatorGroup: false for those that exist) to adopt",
    );
  });
});

describe("rollout impact at preview: the cluster read once per run, whatever the number of pools", function () {
  withoutAmbientKubeconfig();
  this.timeout(30_000);
  const POOLS = ["edge", "gpu", "storage", "batch"];
  let sim: Simulator;
  before(async () => {
    sim = await startTestSimulator();
    for (const pool of POOLS) sim.store.create({ ...machineConfigPool({ name: pool }) });
  });
  after(() => sim.stop());
  afterEach(() => sim.faults.reset());

  const chrony = (pool: string) => ({
    name: `99-${pool}-chrony`,
    role: pool,
    files: [{ path: "/etc/chrony.conf", contents: { text: `pool ${pool}.example.com iburst\n` } }],
  });

  /** A preview of the first `n` pools, each with a MachineConfig: their impacts, the requests and warnings. */
  async function preview(n: number) {
    await resetMocks(awsCloud(), { preview: true });
    const requests: string[] = [];
    const warnings: string[] = [];
    const stop = sim.observeRequests((method, url) => requests.push(`${method} ${url}`));
    const warn = console.warn;
    console.warn = (line: string) => warnings.push(line);
    try {
      const components = POOLS.slice(0, n).flatMap((pool) => [
        new InfraNodePool(pool, {
          role: pool,
          zones: ["us-east-2a"],
          kubeconfig: sim.kubeconfig,
          maxUnavailable: 1,
        }),
        new MachineConfig(chrony(pool).name, { ...chrony(pool), kubeconfig: sim.kubeconfig }),
      ]);
      const impacts = await Promise.all(components.map((c) => valueOf(c.rolloutImpact)));
      return { impacts, requests, warnings };
    } finally {
      console.warn = warn;
      stop();
    }
  }

  /**
   * Each pool's render as it reads the cluster on its own, one reading per pool, which both of its
   * components (the pool and its MachineConfig) get.
   */
  const readAlone = async (pools: string[]): Promise<Array<PoolImpact | undefined>> =>
    (
      await Promise.all(
        pools.map((pool) =>
          renderImpactIn(readCluster(sim.kubeconfig), pool, {
            objects: [{ ...machineConfigManifest(chrony(pool)), kind: "MachineConfig" }],
            settings: { maxUnavailable: 1, paused: false },
          }),
        ),
      )
    ).flatMap((impact) => [impact, impact]);

  it("1 and 4 pools with a MachineConfig each send the same few requests, and get what each reads alone", async () => {
    const one = await preview(1);
    const four = await preview(4);
    assert.ok(one.requests.length <= 6, one.requests.join("\n"));
    assert.deepEqual(four.requests.sort(), one.requests.sort());
    assert.deepEqual(one.impacts, await readAlone(POOLS.slice(0, 1)));
    assert.deepEqual(four.impacts, await readAlone(POOLS));
    assert.deepEqual(
      four.impacts.map((i) => [i?.pool, i?.newRender]),
      POOLS.flatMap((pool) => [
        [pool, true],
        [pool, true],
      ]),
    );
  });

  it("lists only the MachineConfigs a pool can render, not the large rendered ones a long-lived cluster keeps", async () => {
    const listed: string[] = [];
    const stop = sim.observeRequests((method, url) => {
      if (method === "GET" && url.includes("/machineconfigs") && !url.includes("/machineconfigs/"))
        listed.push(decodeURIComponent(url));
    });
    const withoutOld = await preview(2);
    // Old renders, as the MCO writes them: an owner, annotations, no label, the whole merged config.
    const big = "x".repeat(200_000);
    for (let i = 0; i < 20; i++)
      sim.store.create({
        apiVersion: "machineconfiguration.openshift.io/v1",
        kind: "MachineConfig",
        metadata: {
          name: `rendered-worker-old${i}`,
          ownerReferences: [
            {
              apiVersion: "machineconfiguration.openshift.io/v1",
              kind: "MachineConfigPool",
              name: "worker",
              uid: "u",
            },
          ],
          annotations: { "machineconfiguration.openshift.io/generated-by-controller-version": "old" },
        },
        spec: {
          config: {
            ignition: { version: "3.4.0" },
            storage: { files: [{ path: "/etc/big", contents: { source: `data:,${big}` } }] },
          },
        },
      });
    try {
      const withOld = await preview(2);
      assert.deepEqual(withOld.impacts, withoutOld.impacts);
      assert.deepEqual(withOld.impacts, await readAlone(POOLS.slice(0, 2)));
    } finally {
      stop();
      for (let i = 0; i < 20; i++) sim.store.delete(keyOf(K.machineConfig, `rendered-worker-old${i}`));
    }
    // Each preview's one reading and each impact read alone.
    assert.equal(listed.length, 4);
    for (const url of listed) assert.match(url, /\?labelSelector=machineconfiguration\.openshift\.io\/role$/);
  });

  it("a read that fails for a passing reason is retried: every component still gets its impact", async () => {
    sim.faults.failNextRequests(2, 503, 0);
    const { impacts, warnings } = await preview(2);
    assert.deepEqual(warnings, []);
    assert.deepEqual(impacts, await readAlone(POOLS.slice(0, 2)));
  });

  it("a cluster that keeps failing its reads gives each component a warning, not a failed preview", async () => {
    sim.faults.failNextRequests(1000, 500, 0);
    const { impacts, warnings } = await preview(2);
    assert.deepEqual(impacts, [undefined, undefined, undefined, undefined]);
    assert.deepEqual(
      warnings.filter((w) => w.includes("rollout impact")).sort(),
      ["edge", "gpu"].map(
        (pool) =>
          `warning: [runtime] pool ${pool}: rollout impact unknown: injected fault: InternalError ` +
          "(GET /apis/operator.openshift.io/v1/machineconfigurations/cluster: gave up after 11 tries)",
      ),
    );
    // The pools' other reads (boot images, machine specs), logged as they answer, only warn too,
    // each naming the read that gave up.
    for (const warning of warnings)
      assert.match(
        warning,
        /^warning: \[runtime\] .* unknown: injected fault: InternalError \(GET \/\S+: gave up after 11 tries\)$/,
      );
  });
});
