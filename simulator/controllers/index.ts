/**
 * The in-process controllers of the simulated cluster. Each subscribes to the store, queues keys
 * instead of writing from inside the listener, and reconciles on the clock.
 */
import { Clock } from "../clock";
import { PlatformName } from "../cluster/platforms";
import { Store } from "../store/types";
import { builtinListTypes } from "../apiserver/managed-fields";
import { ResourceRegistry } from "../apiserver/resources";
import { listTypesOf } from "../apiserver/target";
import { CrdSchemas } from "../schema";
import { DELAYS, Delays, StopFn } from "./context";
import { managedStore } from "./field-manager";
import { ClusterFaults } from "./faults";
import { startBootImageController } from "./boot-images";
import { startDisruptionController } from "./disruption";
import { startKubeletConfigController } from "./kubelet-config-controller";
import { startMachineApi } from "./machine-api";
import { startMachineAutoscaler } from "./machine-autoscaler";
import { MachineFaults } from "./machine-faults";
import { startMachineHealthCheck } from "./machine-health-check";
import { startMachineConfigDaemon } from "./machine-config-daemon";
import { startMachineConfigurationSync } from "./machine-configuration";
import { startNodeController } from "./node-controller";
import { startOlm } from "./olm";
import { startOperands } from "./operands";
import { startOperatorController } from "./operator-controller";
import { startRenderController } from "./render-controller";
import { startWmco } from "./wmco";
import { startWorkloads } from "./workloads";

export { ClusterFaults } from "./faults";
export { MachineFaults } from "./machine-faults";
export type { FaultSummary, NodeFault, CsvFault } from "./faults";
export { DELAYS } from "./context";
export type { Delays } from "./context";

export interface StartControllersOptions {
  store: Store;
  clock: Clock;
  platform: PlatformName;
  /** CRD schemas, for the list types of custom resources in controllers' managedFields. */
  schemas?: CrdSchemas;
  /** Overrides of the simulated durations (ms at speed 1). */
  delays?: Partial<Delays>;
}

export interface RunningControllers {
  /** Unsubscribes every controller and cancels their timers; safe to call twice. */
  stop(): void;
  faults: ClusterFaults;
  /** Node failures, spot interruptions and autoscaling demand. */
  machineFaults: MachineFaults;
}

const CONTROLLERS = [
  startMachineApi,
  startRenderController,
  startKubeletConfigController,
  startNodeController,
  startMachineConfigDaemon,
  startOlm,
  startWmco,
  startMachineAutoscaler,
  startMachineHealthCheck,
  startBootImageController,
  startMachineConfigurationSync,
  startWorkloads,
  startDisruptionController,
  startOperands,
  startOperatorController,
];

export function startControllers(options: StartControllersOptions): RunningControllers {
  // A fork: stopping the controllers cancels their timers without stopping the caller's clock.
  const clock = options.clock.fork();
  const faults = new ClusterFaults(options.store);
  const machineFaults = new MachineFaults(options.store, () => clock.now());
  const registry = new ResourceRegistry(options.schemas);
  const ownership = {
    types: (apiVersion: string, kind: string) => {
      const resource = registry.byKind(apiVersion, kind);
      return resource ? listTypesOf(resource, apiVersion, options.schemas) : builtinListTypes;
    },
    now: () => clock.now(),
  };
  const ctx = {
    store: options.store,
    writer: (manager: string, via?: "scale") => managedStore(options.store, manager, ownership, via),
    clock,
    platform: options.platform,
    faults,
    machineFaults,
    delays: { ...DELAYS, ...options.delays },
  };
  const stops: StopFn[] = CONTROLLERS.map((start) => start(ctx));
  return {
    faults,
    machineFaults,
    stop() {
      for (const stop of stops.splice(0)) stop();
      clock.stop();
    },
  };
}
