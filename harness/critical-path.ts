/**
 * The simulator's own critical path for the demo topology: the longest chain of simulated delays
 * (simulator/controllers/context.ts DELAYS) a revision must wait through, divided by the speed. A
 * deployment can never be faster; the demo's time divided by this is the harness's and waiters' overhead.
 */
import { DELAYS, Delays } from "../simulator/controllers/context";

export interface DemoTopology {
  /** Infra nodes, rolled `maxUnavailable` at a time when their MachineConfig changes. */
  infraNodes: number;
  maxUnavailable: number;
  /** Whether the revision installs WMCO and boots Windows machines. */
  windows: boolean;
}

/** What the demo (the root example) deploys: 3 infra nodes rolled one at a time, and a Windows pool. */
export const DEMO_TOPOLOGY: DemoTopology = { infraNodes: 3, maxUnavailable: 1, windows: true };

/** OLM: the InstallPlan executes, then the CSV steps Pending -> InstallReady -> Installing -> Succeeded. */
const OLM_STEPS = 4;

/**
 * First revision: the infra chain (machines provisioned and booted into Ready nodes, which join the pool
 * on its rendered config: no reboot) runs beside the Windows chain (WMCO installed, then the Windows
 * machine provisioned and configured by WMCO, which boots no RHCOS); the longer one is the path.
 * A changed MachineConfig: the render batch, then the pool's nodes in waves of maxUnavailable, each
 * drained, written and rebooted.
 */
export function criticalPathMs(
  revision: "create" | "machineConfigChange",
  topology: DemoTopology,
  speed: number,
  delays: Delays = DELAYS,
): number {
  if (revision === "create") {
    const infra = delays.provision + delays.boot;
    const windows = topology.windows
      ? OLM_STEPS * delays.olmStep + delays.provision + delays.windowsConfigure
      : 0;
    return Math.max(infra, windows) / speed;
  }
  const waves = Math.ceil(topology.infraNodes / topology.maxUnavailable);
  return (delays.render + waves * (delays.drain + delays.apply + delays.reboot)) / speed;
}
