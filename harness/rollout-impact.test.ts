import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  impactLine,
  machineConfig,
  MachineConfigLike,
  NodeDisruptionPolicy,
  PoolImpact,
  rolloutImpact,
} from "../builders";
import { K, keyOf } from "../simulator/controllers/util";
import { startSimulator, Simulator } from "../simulator/simulator";
import { destroyLeavesNothing, refreshFindsDrift, revise } from "../test/stack-life";
import { deploy, DeployOptions, preview } from "./deploy";
import { installedProgram } from "./installed";
import { loadProject } from "./project";

const NODE_CHANGE = path.join(__dirname, "testdata", "node-change");
const CHRONY_RELOAD = { path: "/etc/chrony.d", service: "chronyd.service" };
const DESIRED = "machineconfiguration.openshift.io/desiredConfig";
const CURRENT = "machineconfiguration.openshift.io/currentConfig";
const STATE = "machineconfiguration.openshift.io/state";
interface Observed {
  waves: number;
  /** Per node: reboot, drain, reload or none, and the post-action steps the MachineConfigNode reports. */
  actions: Record<string, { action: string; steps: string[] }>;
}

/** What the pool's nodes did, from the store's events: when each got the new config, and how it applied it. */
function observe(sim: Simulator, nodes: string[]): { stop: () => Observed } {
  const desired = new Map<string, string>();
  /** A node's wave: one more than the latest wave finished before it started (the MCO refills freed slots). */
  const wave = new Map<string, number>();
  const finished = new Set<string>();
  const rebooted = new Set<string>();
  const cordoned = new Set<string>();
  const post = new Map<string, string>();
  for (const n of nodes)
    desired.set(n, (sim.store.get(keyOf(K.node, n))!.metadata.annotations ?? {})[DESIRED] ?? "");
  const stop = sim.store.subscribe(({ object }) => {
    const name = object.metadata.name;
    if (!nodes.includes(name)) return;
    if (object.kind === "Node") {
      const a = object.metadata.annotations ?? {};
      if (a[DESIRED] !== desired.get(name)) {
        desired.set(name, a[DESIRED]);
        wave.set(name, 1 + Math.max(0, ...[...finished].map((n) => wave.get(n)!)));
      }
      const ready = (
        object.status as { conditions: Array<{ type: string; status: string }> }
      ).conditions.find((c) => c.type === "Ready");
      if (wave.has(name) && ready?.status !== "True") rebooted.add(name);
      if (wave.has(name) && (object.spec as { unschedulable?: boolean }).unschedulable) cordoned.add(name);
      if (wave.has(name) && a[CURRENT] === a[DESIRED] && a[STATE] === "Done") finished.add(name);
    }
    if (object.kind === "MachineConfigNode") {
      const conditions = ((
        object.status as { conditions?: Array<{ type: string; status: string; message: string }> }
      )?.conditions ?? []) as Array<{ type: string; status: string; message: string }>;
      const complete = conditions.find((c) => c.type === "UpdatePostActionComplete");
      if (complete?.status === "True") post.set(name, complete.message);
    }
  });
  return {
    stop: () => {
      stop();
      const actions: Observed["actions"] = {};
      for (const n of nodes) {
        if (!post.has(n)) continue;
        const steps = [...(post.get(n) ?? "").matchAll(/reloaded service (\S+)/g)].map(
          (m) => `reload ${m[1]}`,
        );
        actions[n] = {
          action: rebooted.has(n) ? "reboot" : cordoned.has(n) ? "drain" : steps.length ? "reload" : "none",
          steps: rebooted.has(n) ? [] : steps,
        };
      }
      return { waves: Math.max(0, ...wave.values()), actions };
    },
  };
}

describe("rollout impact: prediction against what the simulator's nodes do", function () {
  this.timeout(60_000);
  let sim: Simulator;
  let dir: string;
  let workers: string[];
  const quiet = process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG;

  before(async () => {
    process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG = "0";
    sim = await startSimulator({ speed: 500 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "rollout-impact-"));
    workers = sim.cluster.workerNodes;
  });
  after(async () => {
    if (quiet === undefined) delete process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG;
    else process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG = quiet;
    await sim?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * The stack of one change: the program deploys MachineConfig `name` writing `text` to `file`, after a
   * NodeDisruptionPolicy reloading `reload.service` for changes under `reload.path` when given.
   */
  const stack = (
    name: string,
    file: string,
    text: string,
    reload?: { path: string; service: string },
  ): DeployOptions => ({
    project: loadProject(installedProgram(NODE_CHANGE), "dev", [
      `name=${name}`,
      `path=${file}`,
      `text=${text}`,
      ...(reload ? [`reloadPath=${reload.path}`, `reloadService=${reload.service}`] : []),
    ]),
    kubeconfigPath: sim.kubeconfigPath,
    statePath: path.join(dir, `${name}.json`),
  });

  /** Predicts a new worker MachineConfig from the cluster's configs, deploys it, and returns both sides. */
  async function change(
    name: string,
    file: string,
    options: {
      maxUnavailable?: number;
      policy?: NodeDisruptionPolicy;
      /** A policy the program declares, rather than the cluster's: its preview's line is returned. */
      reload?: { path: string; service: string };
    } = {},
  ): Promise<{ predicted: PoolImpact; observed: Observed; previewed?: string[] }> {
    sim.store.mutate(keyOf(K.pool, "worker"), (p) => {
      (p.spec as Record<string, unknown>).maxUnavailable = options.maxUnavailable ?? 1;
    });
    sim.store.mutate(keyOf(K.machineConfiguration, "cluster"), (m) => {
      // The program's own policy is its patch's: the cluster holds none of its entries before.
      const spec = m.spec as Record<string, unknown>;
      if (options.reload) delete spec.nodeDisruptionPolicy;
      else spec.nodeDisruptionPolicy = options.policy ?? {};
    });
    const before = sim.store
      .list(K.machineConfig.apiVersion, K.machineConfig.kind)
      .filter((mc) => mc.metadata.labels?.["machineconfiguration.openshift.io/role"] === "worker");
    const text = `${name}\n`;
    const predicted = rolloutImpact({
      pool: "worker",
      before: { machineConfigs: before as MachineConfigLike[] },
      after: {
        machineConfigs: [
          ...(before as MachineConfigLike[]),
          machineConfig({ name, role: "worker", files: [{ path: file, contents: { text } }] }),
        ],
      },
      machineCount: workers.length,
      maxUnavailable: options.maxUnavailable,
      nodeDisruptionPolicy: options.policy,
    });
    const options_ = stack(name, file, text, options.reload);
    const previewed: string[] = [];
    if (options.reload) {
      const planned = await preview({ ...options_, onDiagnostic: (d) => previewed.push(d.message) });
      assert.deepEqual(planned.errors, []);
    }
    const watch = observe(sim, workers);
    const result = await deploy(options_);
    assert.deepEqual(result.errors, []);
    return { predicted, observed: watch.stop(), ...(options.reload ? { previewed } : {}) };
  }

  const sameAsPredicted = (predicted: PoolImpact, observed: Observed) => {
    assert.equal(predicted.newRender, true);
    assert.equal(observed.waves, predicted.waves);
    assert.deepEqual(
      observed.actions,
      Object.fromEntries(workers.map((n) => [n, { action: predicted.action, steps: predicted.steps }])),
    );
  };

  it("a file without a policy: every node drains and reboots, maxUnavailable 2 makes 2 waves", async () => {
    const { predicted, observed } = await change("99-worker-chrony", "/etc/chrony.conf", {
      maxUnavailable: 2,
    });
    assert.deepEqual([predicted.action, predicted.waves, predicted.atATime], ["reboot", 2, 2]);
    sameAsPredicted(predicted, observed);
  });

  it("policy.json: crio reloads without drain or reboot, one node at a time", async () => {
    const { predicted, observed } = await change("99-worker-policy", "/etc/containers/policy.json");
    assert.deepEqual(
      [predicted.action, predicted.steps, predicted.waves],
      ["reload", ["reload crio.service"], 3],
    );
    sameAsPredicted(predicted, observed);
  });

  it("a node disruption policy the program declares turns a file change into a chronyd reload, in its preview and on the nodes", async () => {
    const policy: NodeDisruptionPolicy = {
      files: [
        { path: "/etc/chrony.d", actions: [{ type: "Reload", reload: { serviceName: "chronyd.service" } }] },
      ],
    };
    const { predicted, observed, previewed } = await change(
      "99-worker-chrony-pool",
      "/etc/chrony.d/pool.conf",
      { policy, reload: CHRONY_RELOAD },
    );
    assert.deepEqual([predicted.action, predicted.steps], ["reload", ["reload chronyd.service"]]);
    assert.ok(
      previewed?.some((line) => line.startsWith(`${impactLine(predicted).split(" (")[0]} (`)),
      previewed?.join("\n"),
    );
    sameAsPredicted(predicted, observed);
  });

  it("the last change's stack: a second revision, a refresh, drift made by hand, and a destroy that rolls its file off", async () => {
    const name = "99-worker-chrony-pool";
    const revision = stack(name, "/etc/chrony.d/pool.conf", "pool time.example.com iburst\n", CHRONY_RELOAD);
    await revise(revision, [`update ${name}`, `update ${name}-rollout`]);
    await refreshFindsDrift(
      sim,
      revision,
      ["label", "machineconfig", name, "machineconfiguration.openshift.io/role=infra", "--overwrite"],
      { [name]: ["metadata.labels.machineconfiguration.openshift.io/role"] },
    );
    await destroyLeavesNothing(sim, revision);
    const configuration = sim.store.get(keyOf(K.machineConfiguration, "cluster"))!;
    assert.equal(
      (configuration.spec as { nodeDisruptionPolicy?: unknown }).nodeDisruptionPolicy,
      undefined,
      "the declared policy goes with the stack",
    );
    const pool = sim.store.get(keyOf(K.pool, "worker"))!.status as {
      configuration: { source: Array<{ name: string }> };
    };
    assert.ok(!pool.configuration.source.some((s) => s.name === name), "the pool's render no longer has it");
  });

  it("a canary of the worker pool: its node joins it, a worker change reaches it first and the other workers after it (as their MachineConfigNodes show), and destroy returns it to worker without a rollout", async () => {
    const canary = workers[2];
    const withCanary = (text: string): DeployOptions => {
      const options = stack("99-worker-canary", "/etc/canary.conf", text);
      options.project.config[`${options.project.name}:canaryNode`] = canary;
      return options;
    };
    // Each node's steps, in the order the store saw them: a MachineConfigNode desiring a new config,
    // then reporting it complete; a node cordoned (drained) or labelled.
    const base = (config?: string) => config?.replace(/-[0-9a-f]+$/, "");
    const watch = () => {
      const steps: string[] = [];
      const desired = new Map<string, string | undefined>();
      const done = new Map<string, string | undefined>();
      for (const n of workers) {
        const mcn = sim.store.get(keyOf(K.machineConfigNode, n))!;
        desired.set(n, (mcn.spec as { configVersion?: { desired?: string } }).configVersion?.desired);
        done.set(n, desired.get(n));
      }
      const stop = sim.store.subscribe(({ object }) => {
        const name = object.metadata.name;
        if (!workers.includes(name)) return;
        if (object.kind === "Node" && (object.spec as { unschedulable?: boolean }).unschedulable)
          steps.push(`${name} cordoned`);
        if (object.kind !== "MachineConfigNode") return;
        const wanted = (object.spec as { configVersion?: { desired?: string } }).configVersion?.desired;
        const current = (object.status as { configVersion?: { current?: string } } | undefined)?.configVersion
          ?.current;
        if (wanted !== desired.get(name)) {
          desired.set(name, wanted);
          steps.push(`${name} desires ${base(wanted)}`);
        }
        if (current === wanted && done.get(name) !== wanted) {
          done.set(name, wanted);
          steps.push(`${name} completes ${base(wanted)}`);
        }
      });
      return { steps, stop };
    };
    const joining = watch();
    const first = await deploy(withCanary("first\n"));
    joining.stop();
    assert.deepEqual(first.errors, []);
    const node = sim.store.get(keyOf(K.node, canary))!;
    assert.equal(node.metadata.labels?.["node-role.kubernetes.io/canary"], "");
    assert.match(node.metadata.annotations?.[CURRENT] ?? "", /^rendered-canary-/);
    // It joined with the stack's new worker config, which it rolled out before the other workers.
    assert.ok(
      joining.steps.indexOf(`${canary} completes rendered-canary`) <
        joining.steps.indexOf(`${workers[0]} desires rendered-worker`),
      joining.steps.join(", "),
    );

    const lines: string[] = [];
    const planned = await preview({ ...withCanary("second\n"), onDiagnostic: (d) => lines.push(d.message) });
    assert.deepEqual(planned.errors, []);
    const pools = lines.filter((l) => /^pool (canary|worker): (new|no new) render/.test(l));
    assert.equal(pools.length, 2, pools.join("\n"));
    assert.ok(
      pools.some((l) => /^pool canary: new render; 1 node drain and reboot, .*; then worker$/.test(l)),
      pools.join("\n"),
    );
    assert.ok(
      pools.some((l) =>
        /^pool worker: new render; 2 nodes drain and reboot, .*; after canary has rolled out$/.test(l),
      ),
      pools.join("\n"),
    );

    const changing = watch();
    const second = await deploy(withCanary("second\n"));
    changing.stop();
    assert.deepEqual(second.errors, []);
    const at = (step: string) => changing.steps.indexOf(step);
    assert.ok(at(`${canary} completes rendered-canary`) >= 0, changing.steps.join(", "));
    for (const worker of workers.slice(0, 2)) {
      assert.ok(
        at(`${worker} desires rendered-worker`) > at(`${canary} completes rendered-canary`),
        changing.steps.join(", "),
      );
      assert.ok(at(`${worker} completes rendered-worker`) > 0, "up waits for the rest of the workers");
    }
    assert.equal((sim.store.get(keyOf(K.pool, "worker"))!.spec as { paused?: boolean }).paused, false);

    const returning = watch();
    await destroyLeavesNothing(sim, withCanary("second\n"));
    returning.stop();
    const back = sim.store.get(keyOf(K.node, canary))!;
    assert.equal(back.metadata.labels?.["node-role.kubernetes.io/canary"], undefined);
    assert.match(back.metadata.annotations?.[CURRENT] ?? "", /^rendered-worker-/);
    // The stack's worker config goes with it, rolled out of both pools; the node's return is no rollout.
    const home = returning.steps.indexOf(`${canary} desires rendered-worker`);
    assert.ok(home >= 0, returning.steps.join(", "));
    assert.ok(!returning.steps.slice(home).includes(`${canary} cordoned`), returning.steps.join(", "));
  });
});
