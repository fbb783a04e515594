/**
 * apiVersions Kubernetes no longer serves, as pulumi-kubernetes knows them (kinds/deprecated.go, from
 * k8s.io/api's prerelease lifecycle: APILifecycleRemoved and APILifecycleReplacement): its Check warns
 * about a resource of such a kind on a cluster at or past the removal (provider.go, Check), and its
 * Creation fails at once instead of waiting for a CRD that will never come (await.go, skipRetry). The
 * kinds a node-topology program may still carry from older docs; up to Kubernetes 1.32 (OpenShift 4.19).
 */

interface Removal {
  /** `<group>/<version>` (`v1` style for the core group). */
  apiVersion: string;
  kinds: string[];
  /** The Kubernetes minor (1.x) that stopped serving them. */
  removedIn: number;
  /** The apiVersion that replaces them, if any. */
  replacement?: string;
}

const REMOVALS: Removal[] = [
  {
    apiVersion: "extensions/v1beta1",
    kinds: ["DaemonSet", "Deployment", "ReplicaSet"],
    removedIn: 16,
    replacement: "apps/v1",
  },
  {
    apiVersion: "extensions/v1beta1",
    kinds: ["NetworkPolicy"],
    removedIn: 16,
    replacement: "networking.k8s.io/v1",
  },
  {
    apiVersion: "extensions/v1beta1",
    kinds: ["Ingress"],
    removedIn: 22,
    replacement: "networking.k8s.io/v1",
  },
  { apiVersion: "apps/v1beta1", kinds: ["Deployment", "StatefulSet"], removedIn: 16, replacement: "apps/v1" },
  {
    apiVersion: "apps/v1beta2",
    kinds: ["DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"],
    removedIn: 16,
    replacement: "apps/v1",
  },
  {
    apiVersion: "networking.k8s.io/v1beta1",
    kinds: ["Ingress", "IngressClass"],
    removedIn: 22,
    replacement: "networking.k8s.io/v1",
  },
  {
    apiVersion: "apiextensions.k8s.io/v1beta1",
    kinds: ["CustomResourceDefinition"],
    removedIn: 22,
    replacement: "apiextensions.k8s.io/v1",
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1beta1",
    kinds: ["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"],
    removedIn: 22,
    replacement: "rbac.authorization.k8s.io/v1",
  },
  {
    apiVersion: "scheduling.k8s.io/v1beta1",
    kinds: ["PriorityClass"],
    removedIn: 22,
    replacement: "scheduling.k8s.io/v1",
  },
  {
    apiVersion: "storage.k8s.io/v1beta1",
    kinds: ["CSIDriver", "CSINode", "StorageClass", "VolumeAttachment"],
    removedIn: 22,
    replacement: "storage.k8s.io/v1",
  },
  { apiVersion: "batch/v1beta1", kinds: ["CronJob"], removedIn: 25, replacement: "batch/v1" },
  {
    apiVersion: "node.k8s.io/v1beta1",
    kinds: ["RuntimeClass"],
    removedIn: 25,
    replacement: "node.k8s.io/v1",
  },
  { apiVersion: "policy/v1beta1", kinds: ["PodDisruptionBudget"], removedIn: 25, replacement: "policy/v1" },
  { apiVersion: "policy/v1beta1", kinds: ["PodSecurityPolicy"], removedIn: 25 },
  {
    apiVersion: "autoscaling/v2beta1",
    kinds: ["HorizontalPodAutoscaler"],
    removedIn: 25,
    replacement: "autoscaling/v2",
  },
  {
    apiVersion: "autoscaling/v2beta2",
    kinds: ["HorizontalPodAutoscaler"],
    removedIn: 26,
    replacement: "autoscaling/v2",
  },
];

/**
 * The provider's RemovedAPIError message for a kind the cluster no longer serves at this apiVersion
 * (kinds.RemovedAPIVersion), or undefined when it is served or not known to be removed; `minor` reads
 * the cluster's Kubernetes minor version, asked only for a kind that some release removed.
 */
export async function removedApiError(
  apiVersion: string,
  kind: string,
  minor: () => Promise<number>,
): Promise<string | undefined> {
  const removal = REMOVALS.find((r) => r.apiVersion === apiVersion && r.kinds.includes(kind));
  if (!removal || (await minor()) < removal.removedIn) return undefined;
  const version = `1.${removal.removedIn}`;
  // SuggestedAPIVersion: the replacement, else the kind's own apiVersion.
  const suggested = `${removal.replacement ?? apiVersion}/${kind}`;
  return (
    `apiVersion "${apiVersion}/${kind}" was removed in Kubernetes ${version}. Use "${suggested}" instead.\n` +
    `See https://git.k8s.io/kubernetes/CHANGELOG/CHANGELOG-${version}.md#deprecation for more information.`
  );
}
