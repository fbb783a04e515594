import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as fs from "node:fs";
import { InfraNodePool, MachineConfig } from "../../../index";

const config = new pulumi.Config();
const clusterA = config.require("clusterA");
const contextA = config.get("contextA");
const waitersKubeconfig = config.get("waitersKubeconfig");

/**
 * A platform repository deploying to several clusters from one machine: the pool goes to cluster A
 * through its own provider while the process's $KUBECONFIG names another cluster. `clusterA` is a
 * kubeconfig file; with `contextA`, one that holds both clusters, whose current context is the other's
 * and `contextA` cluster A's (the provider's `context` decides). `waitersKubeconfig`
 * gives the pool's waiters a kubeconfig file of their own; `workerConfig` adds a MachineConfig for the
 * workers (for a preview: its rollout impact is read from the cluster's worker pool).
 */
const provider = new k8s.Provider("cluster-a", {
  kubeconfig: clusterA,
  ...(contextA ? { context: contextA } : {}),
});
const infra = new InfraNodePool("infra", {
  zones: ["us-east-2a"],
  replicas: 1,
  provider,
  ...(waitersKubeconfig ? { kubeconfig: fs.readFileSync(waitersKubeconfig, "utf8") } : {}),
  waitTimeouts: { create: "60s", update: "60s", delete: "60s" },
});

export const machineSets = infra.machineSetNames;
export const readyMachineCount = infra.readyMachineCount;
export const workerImpact = config.getBoolean("workerConfig")
  ? new MachineConfig("99-worker-motd", {
      role: "worker",
      files: [{ path: "/etc/motd", contents: { text: "cluster A\n" } }],
      provider,
    }).rolloutImpact
  : undefined;
