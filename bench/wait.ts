/**
 * Benchmark of the pool-rollout waiter on the simulator: the watch-based waiter of `provider/waiting`
 * against a 2-second polling waiter (what the MCO's own e2e helpers do), on the same rollouts.
 *
 * For each rollout a new MachineConfig is created and both waiters start at once. The simulator runs
 * in this process, so the moment its store writes the pool status that completes the rollout is known
 * exactly; detection latency is from that write to the waiter resolving. API requests are counted by
 * the waiters' own clients (every HTTP request sent, retries and reconnects included). Rollouts run at
 * two simulator speeds chosen so that the second series takes about ten times longer (the simulator has
 * a small fixed cost per rollout, so its speed ratio is above ten); the measured ratio is printed. The
 * poller starts at a random phase of its 2-second grid, as real rollout durations fall anywhere on it.
 *
 * Then two figures of the watch itself: the requests one wait sends in 20 s of a persistent 410 (every
 * watch resume answered 410 Expired: re-lists back off), and what the lists of a MachineSetReady wait
 * and a pool wait cost on a cluster of 1,000 nodes of which their pool has 3 (objects and bytes per list).
 *
 * Then pools of 100 and 1,000 nodes in a cluster of 1,000: what one pool wait costs (requests, watches
 * open at once, peak memory of its process, detection) reading the pool's MachineConfigNodes each by
 * name, as it did before, and as it reads them now (all of the cluster's in one list and watch).
 *
 * Where the cutoff between the two ways lies: pools of 3 to 32 nodes in the same cluster, each read both
 * ways.
 *
 * Run: npm run bench:wait [-- --rollouts 20] [-- --big-rollouts 5] [-- --cutoff-rollouts 3]
 *      [-- --part rollouts|gone|large|cutoff|big]
 */
import { fork } from "node:child_process";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { startSimulator, Simulator } from "../simulator/simulator";
import { createApiClient, waitForMachineSetsReady, waitForPoolRollout } from "../provider/waiting";
import { createMachineSet, machineConfig } from "../test/simulator-fixture";
import { recordingClient, RecordingClient } from "../test/recording-client";
import { machineConfigPool } from "../builders/machineconfiguration";
import { field, KINDS, KubeObject } from "../provider/waiting/kinds";
import { evaluatePoolRollout } from "../provider/waiting/pool";
import { MACHINE_CONFIG_NODES_BY_NAME_UP_TO } from "../provider/waiting/machineconfignode";
import { CURRENT_CONFIG, DESIRED_CONFIG, MCD_STATE } from "../primitives/openshift";
import type { ChildReport } from "./pool-wait-child";

const POLL_INTERVAL_MS = 2000;
const SERIES = [
  { label: "short", speed: 100 },
  { label: "long", speed: 6 },
];

interface Sample {
  rolloutMs: number;
  watchLatencyMs: number;
  watchRequests: number;
  pollLatencyMs: number;
  pollRequests: number;
}

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** The pool status that completes a rollout to `target`, as the waiters judge it. */
function converged(pool: KubeObject, target: string): boolean {
  const status = (pool.status ?? {}) as Record<string, unknown>;
  return (
    field(pool, "spec", "configuration", "name") === target &&
    field(pool, "status", "configuration", "name") === target &&
    (field<Array<{ type: string; status: string }>>(pool, "status", "conditions") ?? []).some(
      (c) => c.type === "Updated" && c.status === "True",
    ) &&
    status.updatedMachineCount === status.machineCount &&
    status.degradedMachineCount === 0 &&
    status.observedGeneration === pool.metadata.generation
  );
}

/** MCO e2e style: read the pool every 2 s until the same predicate the watch waiter uses says done. */
async function pollForRollout(kubeconfig: string, mcName: string, deadlineMs: number) {
  const client = createApiClient(kubeconfig);
  const started = performance.now();
  const mc = await client.get(KINDS.machineConfig, mcName);
  await new Promise((resolve) => setTimeout(resolve, Math.random() * POLL_INTERVAL_MS));
  for (;;) {
    const pool = await client.get(KINDS.pool, "worker");
    const evaluation = evaluatePoolRollout(
      { pool: "worker", machineConfigs: [mcName] },
      {
        pool,
        machineConfigs: { [mcName]: mc ?? null },
        rendered: {},
        kubeletConfigs: [],
        containerRuntimeConfigs: [],
        generated: {},
        nodes: [],
        initialRenderDegraded: undefined,
      },
    );
    if (evaluation.state === "done") return { at: performance.now(), requests: client.requests };
    if (evaluation.state === "failed") throw new Error(evaluation.message);
    if (performance.now() - started > deadlineMs) throw new Error(`polling timed out: ${evaluation.message}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

async function rollout(sim: Simulator, index: number): Promise<Sample> {
  const name = `99-worker-bench-${index}`;
  let convergedAt: number | undefined;
  const unsubscribe = sim.store.subscribe((event) => {
    const o = event.object as unknown as KubeObject;
    if (
      convergedAt !== undefined ||
      event.object.kind !== "MachineConfigPool" ||
      o.metadata.name !== "worker"
    )
      return;
    const source = field<Array<{ name: string }>>(o, "spec", "configuration", "source") ?? [];
    const target = field<string>(o, "spec", "configuration", "name") ?? "";
    if (source.some((s) => s.name === name) && converged(o, target)) convergedAt = performance.now();
  });
  const started = performance.now();
  sim.store.create({
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfig",
    metadata: { name, labels: { "machineconfiguration.openshift.io/role": "worker" } },
    spec: {
      config: {
        ignition: { version: "3.2.0" },
        storage: {
          files: [{ path: `/etc/bench/${index}.conf`, mode: 420, contents: { source: `data:,${index}` } }],
        },
      },
    },
  });
  const client = createApiClient(sim.kubeconfig);
  const [watched, polled] = await Promise.all([
    waitForPoolRollout({ client, pool: "worker", machineConfigs: [name], timeoutMs: 120_000 }).then((o) => ({
      at: performance.now(),
      requests: o.requests,
    })),
    pollForRollout(sim.kubeconfig, name, 120_000),
  ]);
  unsubscribe();
  if (convergedAt === undefined)
    throw new Error(`rollout ${index}: the simulator never wrote a converged status`);
  return {
    rolloutMs: convergedAt - started,
    watchLatencyMs: watched.at - convergedAt,
    watchRequests: watched.requests,
    pollLatencyMs: polled.at - convergedAt,
    pollRequests: polled.requests,
  };
}

/** A Markdown table, columns padded. */
function table(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const row of rows) console.log(line(row));
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

async function series(speed: number, rollouts: number): Promise<Sample[]> {
  const sim = await startSimulator({ speed });
  try {
    const samples: Sample[] = [];
    // One rollout to warm up connections and lazily loaded modules; not counted.
    await rollout(sim, 0);
    for (let i = 1; i <= rollouts; i++) {
      samples.push(await rollout(sim, i));
      process.stderr.write(".");
    }
    process.stderr.write("\n");
    return samples;
  } finally {
    await sim.stop();
  }
}

async function main(): Promise<void> {
  const rollouts = option("rollouts", 20);
  const rows: string[][] = [];
  let shortMean: number | undefined;
  for (const { label, speed } of SERIES) {
    process.stderr.write(`${rollouts} ${label} rollouts (simulator speed ${speed}) `);
    const samples = await series(speed, rollouts);
    const rolloutMean = mean(samples.map((s) => s.rolloutMs));
    shortMean ??= rolloutMean;
    const duration = `${(rolloutMean / 1000).toFixed(2)} (${(rolloutMean / shortMean).toFixed(1)}x)`;
    for (const waiter of ["watch", "poll 2s"] as const) {
      const latency = samples.map((s) => (waiter === "watch" ? s.watchLatencyMs : s.pollLatencyMs));
      const requests = samples.map((s) => (waiter === "watch" ? s.watchRequests : s.pollRequests));
      rows.push([
        label,
        duration,
        waiter,
        String(samples.length),
        percentile(latency, 50).toFixed(1),
        percentile(latency, 99).toFixed(1),
        mean(requests).toFixed(1),
        String(Math.max(...requests)),
      ]);
    }
  }
  const header = [
    "rollouts",
    "mean s",
    "waiter",
    "n",
    "latency p50 ms",
    "latency p99 ms",
    "requests/wait",
    "max",
  ];
  table(header, rows);
  console.log(
    "\nLatency: from the simulator's store write of the converged pool status to the waiter resolving" +
      " (p99 of 20 samples is their maximum)." +
      "\nRequests: every HTTP request each waiter's client sent (lists, watches, gets, reconnects), counted by the client." +
      `\nSimulator in process on 127.0.0.1 (HTTPS), 3 worker nodes; Node ${process.version}.`,
  );
}

/** Requests of one wait that cannot finish, during 20 s of a persistent 410. */
async function goneStorm(): Promise<void> {
  const sim = await startSimulator({ speed: 100 });
  try {
    sim.faults.startGoneStorm();
    const client = createApiClient(sim.kubeconfig);
    const seconds = 20;
    await waitForMachineSetsReady({ client, machineSets: ["absent"], timeoutMs: seconds * 1000 }).catch(
      () => undefined,
    );
    console.log(
      `\nPersistent 410 (every watch resume answered 410 Expired) for ${seconds} s: ${client.requests}` +
        ` requests for one MachineSetReady wait (${(client.requests / seconds).toFixed(1)}/s).`,
    );
  } finally {
    await sim.stop();
  }
}

/**
 * Objects and bytes of each list a MachineSetReady wait and a pool wait send, on 1,000 nodes of which
 * their pool has 3 (the pool's nodeSelector set-based, its MachineConfigNodes asked for by name).
 */
async function largeCluster(): Promise<void> {
  const sim = await startSimulator({ speed: 1000 });
  try {
    for (let i = sim.store.list("v1", "Node").length; i < 997; i++) {
      sim.store.create({
        apiVersion: "v1",
        kind: "Node",
        metadata: { name: `other-${i}`, labels: { "node-role.kubernetes.io/other": "" } },
        status: { conditions: [{ type: "Ready", status: "True" }] },
      });
      sim.store.create({
        apiVersion: "machineconfiguration.openshift.io/v1",
        kind: "MachineConfigNode",
        metadata: { name: `other-${i}` },
        spec: { node: { name: `other-${i}` }, pool: { name: "other" }, configVersion: { desired: "x" } },
      });
    }
    createMachineSet(sim, "bench-infra", {
      replicas: 3,
      nodeLabels: { "node-role.kubernetes.io/infra": "" },
    });
    const describe = (client: RecordingClient) =>
      client.lists.map((l) => `${l.kind} ${l.objects} objects, ${l.bytes} bytes`).join("; ");
    // Once the machines are up, a second wait's lists hold every object the pool has.
    const ready = { machineSets: ["bench-infra"], timeoutMs: 60_000 };
    await waitForMachineSetsReady({ ...ready, client: createApiClient(sim.kubeconfig) });
    const machineSets = recordingClient(sim.kubeconfig);
    const outcome = await waitForMachineSetsReady({ ...ready, client: machineSets });
    console.log(
      `\n${sim.store.list("v1", "Node").length} nodes, a pool of ${outcome.result.readyMachineCount}:` +
        ` MachineSetReady listed ${describe(machineSets)} (${outcome.requests} requests).`,
    );
    const infra = machineConfigPool({ name: "infra" });
    const nodeSelector = {
      matchExpressions: [{ key: "node-role.kubernetes.io/infra", operator: "Exists" as const }],
    };
    sim.store.create({ ...infra, spec: { ...infra.spec, nodeSelector } });
    sim.store.create(machineConfig("99-infra-bench", { "/etc/bench.conf": "x" }, "infra"));
    const pool = recordingClient(sim.kubeconfig);
    const rolled = await waitForPoolRollout({
      client: pool,
      pool: "infra",
      machineConfigs: ["99-infra-bench"],
      timeoutMs: 60_000,
    });
    console.log(
      `The pool wait (nodeSelector matchExpressions) of the same ${rolled.result.machineCount} nodes listed` +
        ` ${describe(pool)} (${rolled.requests} requests).`,
    );
  } finally {
    await sim.stop();
  }
}

const BIG_POOLS = [100, 1000];
/** Nodes of the benchmark's cluster: the big pool's, the simulator's own, and others of another pool. */
const CLUSTER_NODES = 1000;

/** A pool wait in a process of its own, started before the rollout (`pool-wait-child.ts`). */
function childWait(kubeconfigPath: string, machineConfig: string, upTo: number) {
  const child = fork(
    path.join(__dirname, "pool-wait-child.ts"),
    [kubeconfigPath, "big", machineConfig, String(upTo)],
    {
      execArgv: ["-r", "ts-node/register/transpile-only"],
    },
  );
  const started = new Promise<void>((resolve) => child.once("message", () => resolve()));
  const report = new Promise<ChildReport>((resolve, reject) => {
    child.on("message", (m) => typeof m === "object" && resolve(m as ChildReport));
    child.once("exit", (code) => code !== 0 && reject(new Error(`pool wait exited with ${code}`)));
  });
  return { started, report };
}

/** Nodes of pool `pool` (labelled with its role, each Ready and Linux) or of another, with no pool of its own. */
function addNodes(sim: Simulator, prefix: string, count: number, role: string): void {
  for (let i = 0; i < count; i++) {
    sim.store.create({
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: `${prefix}-${i}`,
        labels: { [`node-role.kubernetes.io/${role}`]: "", "kubernetes.io/os": "linux" },
      },
      status: { conditions: [{ type: "Ready", status: "True" }] },
    });
  }
}

const now = () => performance.timeOrigin + performance.now();

/** A way a pool wait reads its MachineConfigNodes: by name up to `upTo` nodes, else all of the cluster's. */
interface Way {
  label: (size: number) => string;
  upTo: number;
}

const BY_NAME: Way = { label: () => "each by name (before)", upTo: Infinity };
const NOW: Way = {
  label: (size) => (size > MACHINE_CONFIG_NODES_BY_NAME_UP_TO ? "all: 1 list + 1 watch" : "each by name"),
  upTo: MACHINE_CONFIG_NODES_BY_NAME_UP_TO,
};
const ALL: Way = { label: () => "all: 1 list + 1 watch", upTo: 0 };

/**
 * Rollouts of a pool of `size` nodes in a cluster of 1,000, each awaited at once by one pool wait per
 * way, each in a process of its own. Detection: from the last node's update (its daemon reporting Done on
 * the new config, after which the MCO counts it in the pool's status) to the wait's return.
 */
async function poolWaits(size: number, rollouts: number, ways: Way[]): Promise<string[][]> {
  const sim = await startSimulator({ speed: 1000 });
  try {
    const pool = machineConfigPool({ name: "big" });
    const nodeSelector = { matchLabels: { "node-role.kubernetes.io/big": "" } };
    sim.store.create({ ...pool, spec: { ...pool.spec, nodeSelector, maxUnavailable: "10%" } });
    addNodes(sim, "big", size, "big");
    addNodes(sim, "other", CLUSTER_NODES - sim.store.list("v1", "Node").length, "other");
    const poolObject = () =>
      sim.store.get({ ...keyOfPool, name: "big" }) as unknown as KubeObject | undefined;
    const mcnsOfPool = () =>
      sim.store
        .list("machineconfiguration.openshift.io/v1", "MachineConfigNode")
        .filter((m) => field(m as unknown as KubeObject, "spec", "pool", "name") === "big");
    const settled = () => {
      const status = (poolObject()?.status ?? {}) as Record<string, unknown>;
      return (
        status.machineCount === size && status.updatedMachineCount === size && mcnsOfPool().length === size
      );
    };
    while (!settled()) await new Promise((resolve) => setTimeout(resolve, 200));
    const samples: Array<Array<ChildReport & { latencyMs: number }>> = [];
    for (let i = 1; i <= rollouts; i++) {
      const name = `99-big-bench-${i}`;
      const waits = ways.map((way) => childWait(sim.kubeconfigPath, name, way.upTo));
      await Promise.all(waits.map((w) => w.started));
      const before = field<string>(poolObject(), "spec", "configuration", "name");
      const updatedAt = new Map<string, number>();
      // A node is updated once its daemon says Done on a new config (daemon.go updateConfigAndState).
      const unsubscribe = sim.store.subscribe(({ object }) => {
        if (object.kind !== "Node" || !object.metadata.name.startsWith("big-")) return;
        const a = object.metadata.annotations ?? {};
        const current = a[CURRENT_CONFIG];
        const done = a[MCD_STATE] === "Done" && current === a[DESIRED_CONFIG] && current !== before;
        if (done && !updatedAt.has(object.metadata.name)) updatedAt.set(object.metadata.name, now());
      });
      sim.store.create(machineConfig(name, { [`/etc/bench/${i}.conf`]: String(i) }, "big"));
      const reports = await Promise.all(waits.map((w) => w.report));
      unsubscribe();
      if (updatedAt.size !== size)
        throw new Error(`rollout ${i}: ${updatedAt.size} of ${size} nodes seen updated`);
      const last = Math.max(...updatedAt.values());
      samples.push(reports.map((r) => ({ ...r, latencyMs: r.returnedAt - last })));
      process.stderr.write(".");
    }
    process.stderr.write("\n");
    return ways.map((way, w) => {
      const of = samples.map((s) => s[w]);
      const latency = of.map((s) => s.latencyMs);
      return [
        String(size),
        String(CLUSTER_NODES),
        way.label(size),
        String(of.length),
        mean(of.map((s) => s.requests)).toFixed(0),
        String(Math.max(...of.map((s) => s.maxWatches))),
        (Math.max(...of.map((s) => s.maxRssKb)) / 1024).toFixed(0),
        (mean(of.map((s) => s.cpuMs)) / 1000).toFixed(1),
        percentile(latency, 50).toFixed(0),
        percentile(latency, 99).toFixed(0),
      ];
    });
  } finally {
    await sim.stop();
  }
}

const keyOfPool = { apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfigPool" };

/** Pools of `sizes` nodes in a cluster of 1,000: what each way of reading their MachineConfigNodes costs one wait. */
async function poolSizes(sizes: number[], ways: Way[], rollouts: number): Promise<void> {
  const rows: string[][] = [];
  for (const size of sizes) {
    process.stderr.write(`${rollouts} rollouts of a ${size}-node pool `);
    rows.push(...(await poolWaits(size, rollouts, ways)));
  }
  const header = [
    "pool nodes",
    "cluster nodes",
    "MachineConfigNodes read",
    "n",
    "requests/wait",
    "watches open (max)",
    "peak RSS MB",
    "CPU s/wait",
    "detection p50 ms",
    "detection p99 ms",
  ];
  console.log("");
  table(header, rows);
  console.log(
    "\nEach wait in a process of its own, started before the rollout (its peak RSS and CPU include Node" +
      " and ts-node starting, about the same for every way); maxUnavailable 10%." +
      "\nDetection: from the last node's daemon reporting Done on the new config (its node's annotations)" +
      ` to the wait's return; p99 of ${rollouts} samples is their maximum.`,
  );
}

/** Pools of 100 and 1,000 nodes, read as before (each by name) and as now. */
const bigPools = () => poolSizes(BIG_POOLS, [BY_NAME, NOW], option("big-rollouts", 5));

/** Small pools in the same cluster, read each by name and all at once: where the cutoff lies. */
const cutoff = () => poolSizes([3, 8, 16, 32], [BY_NAME, ALL], option("cutoff-rollouts", 3));

/** The parts in order; `--part <name>` runs one. */
const PARTS: Record<string, () => Promise<void>> = {
  rollouts: main,
  gone: goneStorm,
  large: largeCluster,
  cutoff,
  big: bigPools,
};

(async () => {
  const i = process.argv.indexOf("--part");
  const chosen = i >= 0 ? [process.argv[i + 1]] : Object.keys(PARTS);
  for (const part of chosen) {
    if (!PARTS[part]) throw new Error(`--part ${part}: one of ${Object.keys(PARTS).join(", ")}`);
    await PARTS[part]();
  }
})().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
