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
 * Run: npm run bench:wait [-- --rollouts 20]
 */
import { performance } from "node:perf_hooks";
import { startSimulator, Simulator } from "../simulator/simulator";
import { createApiClient, waitForMachineSetsReady, waitForPoolRollout } from "../provider/waiting";
import { createMachineSet, machineConfig } from "../test/simulator-fixture";
import { recordingClient, RecordingClient } from "../test/recording-client";
import { machineConfigPool } from "../builders/machineconfiguration";
import { field, KINDS, KubeObject } from "../provider/waiting/kinds";
import { evaluatePoolRollout } from "../provider/waiting/pool";

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
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const row of rows) console.log(line(row));
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

main()
  .then(goneStorm)
  .then(largeCluster)
  .catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
