import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as fs from "node:fs";
import { InfraNodePool } from "../../../index";

const config = new pulumi.Config();
const clusterA = config.require("clusterA");

/**
 * A platform repository deploying to several clusters from one machine: the pool goes to cluster A
 * through its own provider while the process's $KUBECONFIG names another cluster. `kubeconfig=true`
 * also gives the pool the kubeconfig the provider was made from, as the waiters' error asks.
 */
const provider = new k8s.Provider("cluster-a", { kubeconfig: clusterA });
const infra = new InfraNodePool("infra", {
  zones: ["us-east-2a"],
  replicas: 1,
  provider,
  ...(config.getBoolean("kubeconfig") ? { kubeconfig: fs.readFileSync(clusterA, "utf8") } : {}),
  waitTimeouts: { create: "60s", update: "60s", delete: "60s" },
});

export const machineSets = infra.machineSetNames;
export const readyMachineCount = infra.readyMachineCount;
