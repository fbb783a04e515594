import { Clock } from "../clock";
import { PlatformName } from "../cluster/platforms";
import { Store } from "../store/types";
import type { ClusterFaults } from "./faults";
import type { MachineFaults } from "./machine-faults";

/**
 * Simulated durations in milliseconds at speed 1 (a human-paced demo). Scaled by the clock, so at
 * speed 1000 a reboot takes 4 ms.
 */
export const DELAYS = {
  /** The render controller batches MachineConfig changes before rendering (the MCO waits too). */
  render: 1500,
  /** Machine: cloud instance creation until the actuator reports it. */
  provision: 5000,
  /** Machine: instance running until its kubelet registers the Node. */
  boot: 4000,
  /** Cordon-to-drained, for the MCO daemon and machine deletion alike. */
  drain: 2000,
  /** Daemon: writing files and units. */
  apply: 1000,
  /** Daemon: a service reload or restart instead of a reboot. */
  reload: 500,
  /** Daemon: reboot, the node is NotReady meanwhile. */
  reboot: 4000,
  /** OLM: per CSV phase, and InstallPlan execution. */
  olmStep: 1000,
  /** OLM: how long a CSV may stay Installing before OLM fails it (olm/operator.go, 5 minutes). */
  installTimeout: 5 * 60_000,
  /** Kubelet: a pod bound to a node until its containers run and it is Ready. */
  podStart: 1000,
  /** WMCO: configuring a Windows VM into a node (services, kubelet, CNI). */
  windowsConfigure: 6000,
};

export type Delays = typeof DELAYS;

export interface ControllerContext {
  /** For reads and watches; writes go through `writer`, so that they are recorded under a manager. */
  store: Pick<Store, "get" | "list" | "subscribe">;
  /**
   * The store as the field manager `manager` writes it (the name a real controller's requests carry,
   * its binary's user agent unless it sets one); `via: "scale"` records its writes as made through
   * the scale subresource.
   */
  writer(manager: string, via?: "scale"): Store;
  clock: Clock;
  platform: PlatformName;
  faults: ClusterFaults;
  machineFaults: MachineFaults;
  delays: Delays;
}

/** A running controller: stopping it unsubscribes from the store (timers stop with the clock). */
export type StopFn = () => void;
