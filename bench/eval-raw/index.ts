import * as pulumi from "@pulumi/pulumi";
import * as k8s from "@pulumi/kubernetes";

const config = new pulumi.Config();
const pools = config.requireNumber("pools");
const infrastructureId = "cluster-zbwlg-cbgq7";
const region = "us-east-2";
const zones = ["us-east-2a", "us-east-2b", "us-east-2c"];
const namespace = "openshift-machine-api";
// The first pool moving the router, registry and monitoring onto its nodes, as bench:eval's library program can.
const placement = config.getBoolean("placement") ?? false;

// Per pool, the five objects a user writes by hand: the pool, a MachineSet per zone, the MachineConfig.
for (let i = 0; i < pools; i++) {
  const role = `pool${i}`;
  const pool = new k8s.apiextensions.CustomResource(`${role}-pool`, {
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfigPool",
    metadata: { name: role, labels: { [`pools.operator.machineconfiguration.openshift.io/${role}`]: "" } },
    spec: {
      machineConfigSelector: {
        matchExpressions: [
          { key: "machineconfiguration.openshift.io/role", operator: "In", values: ["worker", role] },
        ],
      },
      nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${role}`]: "" } },
    },
  });
  for (const zone of zones) {
    const name = `${infrastructureId}-${role}-${zone}`;
    const labels = {
      "machine.openshift.io/cluster-api-cluster": infrastructureId,
      "machine.openshift.io/cluster-api-machineset": name,
    };
    new k8s.apiextensions.CustomResource(
      `${role}-${zone}`,
      {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "MachineSet",
        metadata: {
          name,
          namespace,
          labels: { "machine.openshift.io/cluster-api-cluster": infrastructureId },
        },
        spec: {
          replicas: 3,
          selector: { matchLabels: labels },
          template: {
            metadata: {
              labels: {
                ...labels,
                "machine.openshift.io/cluster-api-machine-role": role,
                "machine.openshift.io/cluster-api-machine-type": role,
              },
            },
            spec: {
              metadata: { labels: { [`node-role.kubernetes.io/${role}`]: "" } },
              taints: [{ key: `node-role.kubernetes.io/${role}`, effect: "NoSchedule" }],
              providerSpec: {
                value: {
                  apiVersion: "machine.openshift.io/v1beta1",
                  kind: "AWSMachineProviderConfig",
                  ami: { id: "ami-0c4d1f6a9e2b37c85" },
                  instanceType: "m6i.xlarge",
                  placement: { availabilityZone: zone, region },
                  iamInstanceProfile: { id: `${infrastructureId}-worker-profile` },
                  securityGroups: [
                    { filters: [{ name: "tag:Name", values: [`${infrastructureId}-node`] }] },
                    { filters: [{ name: "tag:Name", values: [`${infrastructureId}-lb`] }] },
                  ],
                  subnet: {
                    filters: [{ name: "tag:Name", values: [`${infrastructureId}-subnet-private-${zone}`] }],
                  },
                  tags: [{ name: `kubernetes.io/cluster/${infrastructureId}`, value: "owned" }],
                  userDataSecret: { name: "worker-user-data" },
                  credentialsSecret: { name: "aws-cloud-credentials" },
                  blockDevices: [{ ebs: { volumeSize: 120, volumeType: "gp3", encrypted: true } }],
                },
              },
            },
          },
        },
      },
      { dependsOn: [pool] },
    );
  }
  new k8s.apiextensions.CustomResource(`99-${role}-chrony`, {
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfig",
    metadata: { name: `99-${role}-chrony`, labels: { "machineconfiguration.openshift.io/role": role } },
    spec: {
      config: {
        ignition: { version: "3.2.0" },
        storage: {
          files: [
            {
              path: "/etc/chrony.conf",
              mode: 0o644,
              overwrite: true,
              contents: {
                source: `data:,${encodeURIComponent(`pool 169.254.169.123 iburst # ${i}\n`)}`,
              },
            },
          ],
        },
      },
    },
  });
}

if (placement) {
  const role = "pool0";
  const nodeSelector = { [`node-role.kubernetes.io/${role}`]: "" };
  const tolerations = ["NoSchedule", "NoExecute"].map((effect) => ({
    key: `node-role.kubernetes.io/${role}`,
    operator: "Equal",
    value: "reserved",
    effect,
  }));
  new k8s.apiextensions.CustomResourcePatch(`${role}-router`, {
    apiVersion: "operator.openshift.io/v1",
    kind: "IngressController",
    metadata: { name: "default", namespace: "openshift-ingress-operator" },
    spec: { nodePlacement: { nodeSelector: { matchLabels: nodeSelector }, tolerations } },
  });
  new k8s.apiextensions.CustomResourcePatch(`${role}-registry`, {
    apiVersion: "imageregistry.operator.openshift.io/v1",
    kind: "Config",
    metadata: { name: "cluster" },
    spec: { nodeSelector, tolerations },
  });
  const components = ["alertmanagerMain", "prometheusK8s", "prometheusOperator", "thanosQuerier"];
  new k8s.core.v1.ConfigMapPatch(`${role}-monitoring`, {
    metadata: {
      name: "cluster-monitoring-config",
      namespace: "openshift-monitoring",
      annotations: { "pulumi.com/patchForce": "true" },
    },
    // JSON is YAML: the monitoring stack's config.yaml, each component on the pool's nodes.
    data: {
      "config.yaml": JSON.stringify(
        Object.fromEntries(components.map((c) => [c, { nodeSelector, tolerations }])),
      ),
    },
  });
}
