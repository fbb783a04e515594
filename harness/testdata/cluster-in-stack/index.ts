import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { InfraNodePool, MachineConfig } from "../../../index";

const config = new pulumi.Config();
const waitTimeouts = { create: "60s", update: "60s", delete: "60s" };

/**
 * Stands in for an installer (a hive ClusterDeployment, a ROSA cluster): its kubeconfig exists only
 * once it is created, so a preview of a new stack knows neither the kubeconfig nor the cluster's facts.
 * The "installed" cluster is the one whose kubeconfig file the stack is given.
 */
const installer: pulumi.dynamic.ResourceProvider = {
  async create(inputs: Record<string, unknown>) {
    const kubeconfig = require("node:fs").readFileSync(String(inputs.kubeconfigFile), "utf8");
    return { id: "installed", outs: { ...inputs, kubeconfig } };
  },
};

class ClusterInstall extends pulumi.dynamic.Resource {
  declare readonly kubeconfig: pulumi.Output<string>;
  constructor(name: string, kubeconfigFile: string) {
    super(
      installer,
      name,
      { kubeconfigFile, kubeconfig: undefined },
      { additionalSecretOutputs: ["kubeconfig"] },
      undefined,
      "ClusterInstall",
    );
  }
}

const cluster = new ClusterInstall("cluster", config.require("kubeconfigFile"));
const provider = new k8s.Provider("cluster", { kubeconfig: cluster.kubeconfig });
const shared = { provider, kubeconfig: cluster.kubeconfig, waitTimeouts };

const infra = new InfraNodePool("infra", {
  zones: config.getObject<string[]>("zones") ?? ["us-east-2a", "us-east-2b"],
  replicas: 1,
  ...shared,
});
new MachineConfig("99-infra-motd", {
  role: infra.role,
  files: [{ path: "/etc/motd", contents: { text: "made with its cluster\n" } }],
  ...shared,
});

export const machineSets = infra.machineSetNames;
export const renderedConfig = infra.renderedConfig;
