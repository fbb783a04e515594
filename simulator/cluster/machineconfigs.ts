/**
 * The MachineConfigs a fresh cluster has for each built-in role, abridged but shaped as the MCO's
 * templates render them (seed 003 lists `00-master`, `01-master-container-runtime`, `01-master-kubelet`,
 * ... with Ignition 3.2.0 and files such as /etc/kubernetes/kubelet.conf).
 */
import { ROLE_LABEL } from "../../primitives/openshift";
import { KubeObject } from "../store/types";
import {
  CONTROLLER_VERSION,
  GENERATED_BY_ANNOTATION,
  IgnConfig,
  RELEASE_VERSION_ANNOTATION,
  RELEASE_VERSION,
  dataUrl,
} from "../controllers/machineconfig";

const IGNITION_VERSION = "3.2.0";

/** The kubelet configuration the templates render; KubeletConfig CRs are merged over it. */
export function baseKubeletConfiguration(): Record<string, unknown> {
  return {
    kind: "KubeletConfiguration",
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    authentication: {
      x509: { clientCAFile: "/etc/kubernetes/kubelet-ca.crt" },
      anonymous: { enabled: false },
    },
    cgroupDriver: "systemd",
    cgroupRoot: "/",
    clusterDNS: ["172.30.0.10"],
    clusterDomain: "cluster.local",
    containerLogMaxSize: "50Mi",
    enableSystemLogQuery: true,
    maxPods: 250,
    kubeAPIQPS: 50,
    kubeAPIBurst: 100,
    podPidsLimit: 4096,
    protectKernelDefaults: true,
    rotateCertificates: true,
    serializeImagePulls: false,
    staticPodPath: "/etc/kubernetes/manifests",
    systemCgroups: "/system.slice",
    nodeStatusUpdateFrequency: "10s",
    nodeStatusReportFrequency: "5m",
    serverTLSBootstrap: true,
    shutdownGracePeriod: "0s",
    tlsMinVersion: "VersionTLS12",
    featureGates: { RotateKubeletServerCertificate: true },
  };
}

function file(path: string, contents: string, mode = 420): Record<string, unknown> {
  return { contents: { source: dataUrl(contents) }, mode, overwrite: true, path };
}

function mc(
  name: string,
  role: string,
  config: IgnConfig,
  extra: Record<string, unknown>,
  generated: boolean,
): KubeObject {
  return {
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfig",
    metadata: {
      name,
      labels: { [ROLE_LABEL]: role },
      ...(generated
        ? {
            annotations: {
              [GENERATED_BY_ANNOTATION]: CONTROLLER_VERSION,
              [RELEASE_VERSION_ANNOTATION]: RELEASE_VERSION,
            },
          }
        : {}),
    },
    spec: { config, ...extra },
  };
}

function ign(body: Omit<IgnConfig, "ignition">): IgnConfig {
  return { ignition: { version: IGNITION_VERSION }, ...body } as IgnConfig;
}

/** The base MachineConfigs of a built-in role, in the order `oc get mc` lists them. */
export function baseMachineConfigs(role: "master" | "worker", sshKey: string): KubeObject[] {
  const kubeletUnit = [
    "[Unit]",
    "Description=Kubernetes Kubelet",
    "Wants=rpc-statd.service network-online.target crio.service",
    "After=network-online.target crio.service",
    "",
    "[Service]",
    "ExecStart=/usr/bin/kubelet \\",
    "    --config=/etc/kubernetes/kubelet.conf \\",
    "    --bootstrap-kubeconfig=/etc/kubernetes/kubeconfig \\",
    `    --node-labels=node-role.kubernetes.io/${role},node.openshift.io/os_id=rhcos`,
    "Restart=always",
    "",
    "[Install]",
    "WantedBy=multi-user.target",
    "",
  ].join("\n");
  return [
    mc(
      `00-${role}`,
      role,
      ign({
        storage: {
          files: [
            file(
              "/etc/NetworkManager/conf.d/99-keyfiles.conf",
              "[keyfile]\nunmanaged-devices=interface-name:veth*\n",
            ),
            file(
              "/etc/containers/registries.conf",
              'unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]\n',
            ),
            file(
              "/etc/kubernetes/kubelet-ca.crt",
              "-----BEGIN CERTIFICATE-----\nMIIDMDCCAhigAwIBAgIIc2ltdWxhdGVk\n-----END CERTIFICATE-----\n",
            ),
            file(
              "/etc/sysctl.d/inotify.conf",
              "fs.inotify.max_user_watches = 65536\nfs.inotify.max_user_instances = 8192\n",
            ),
            file("/var/lib/kubelet/config.json", '{"auths":{}}\n', 384),
          ],
        },
        systemd: {
          units: [
            {
              enabled: true,
              name: "machine-config-daemon-firstboot.service",
              contents: "[Unit]\nDescription=Machine Config Daemon Firstboot\n",
            },
            {
              enabled: true,
              name: "ovs-configuration.service",
              contents: "[Unit]\nDescription=Configures OVS with proper host networking configuration\n",
            },
          ],
        },
      }),
      {},
      true,
    ),
    mc(
      `01-${role}-container-runtime`,
      role,
      ign({
        storage: {
          files: [
            file("/etc/containers/policy.json", '{"default":[{"type":"insecureAcceptAnything"}]}\n'),
            file(
              "/etc/containers/storage.conf",
              '[storage]\ndriver = "overlay"\nrunroot = "/run/containers/storage"\ngraphroot = "/var/lib/containers/storage"\n',
            ),
            file(
              "/etc/crio/crio.conf.d/00-default",
              '[crio.runtime]\nselinux = true\nconmon_cgroup = "pod"\ncgroup_manager = "systemd"\n',
            ),
          ],
        },
      }),
      {},
      true,
    ),
    mc(
      `01-${role}-kubelet`,
      role,
      ign({
        storage: {
          files: [
            file("/etc/kubernetes/cloud.conf", ""),
            file("/etc/kubernetes/kubelet.conf", JSON.stringify(baseKubeletConfiguration(), null, 2)),
          ],
        },
        systemd: { units: [{ contents: kubeletUnit, enabled: true, name: "kubelet.service" }] },
      }),
      {},
      true,
    ),
    mc(
      `97-${role}-generated-kubelet`,
      role,
      ign({
        storage: {
          files: [
            file(
              "/etc/kubernetes/kubelet.conf.d/97-feature-gates.conf",
              '{"featureGates":{"RotateKubeletServerCertificate":true}}\n',
            ),
          ],
        },
      }),
      {},
      true,
    ),
    mc(
      `98-${role}-generated-kubelet`,
      role,
      ign({
        storage: {
          files: [
            file(
              "/etc/kubernetes/kubelet.conf.d/98-node-config.conf",
              '{"nodeStatusUpdateFrequency":"10s"}\n',
            ),
          ],
        },
      }),
      {},
      true,
    ),
    mc(`99-${role}-generated-registries`, role, ign({}), {}, true),
    // Written by the installer, not generated by the controller.
    mc(
      `99-${role}-ssh`,
      role,
      ign({ passwd: { users: [{ name: "core", sshAuthorizedKeys: [sshKey] }] } }),
      {},
      false,
    ),
  ];
}
