/**
 * One pool wait in a process of its own, for `bench/wait.ts`: its memory is then its own, apart from
 * the simulator's. Forked with IPC; argv: kubeconfig file, pool, MachineConfig, how many nodes are read
 * by name at most (`Infinity`: all of them). It tells the parent once its wait has started (its first
 * progress event), then what the wait cost: requests, the most watches open at once, its peak resident
 * memory and CPU time, and when it returned (performance.timeOrigin + now, comparable across processes).
 */
import * as fs from "node:fs";
import { performance } from "node:perf_hooks";
import { createApiClient } from "../provider/waiting";
import { waitForPoolRolloutReading } from "../provider/waiting/waiters";

export interface ChildReport {
  requests: number;
  maxWatches: number;
  maxRssKb: number;
  /** CPU time of the process (user and system) from its start to the wait's return. */
  cpuMs: number;
  returnedAt: number;
}

async function main(): Promise<void> {
  const [kubeconfigFile, pool, machineConfig, upTo] = process.argv.slice(2);
  const client = createApiClient(fs.readFileSync(kubeconfigFile, "utf8"));
  let open = 0;
  let maxWatches = 0;
  const watch = client.watch.bind(client);
  client.watch = (...args) => {
    maxWatches = Math.max(maxWatches, ++open);
    return watch(...args).finally(() => open--);
  };
  let started = false;
  const outcome = await waitForPoolRolloutReading(
    {
      client,
      pool,
      machineConfigs: [machineConfig],
      timeoutMs: 600_000,
      progressIntervalMs: 0,
      onProgress: () => {
        if (!started) process.send!("started");
        started = true;
      },
    },
    Number(upTo),
  );
  const returnedAt = performance.timeOrigin + performance.now();
  const { user, system } = process.cpuUsage();
  const report: ChildReport = {
    requests: outcome.requests,
    maxWatches,
    maxRssKb: process.resourceUsage().maxRSS,
    cpuMs: (user + system) / 1000,
    returnedAt,
  };
  process.send!(report, () => process.exit(0));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
