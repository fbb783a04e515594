/**
 * The local OpenShift simulator: an in-memory store seeded with a cluster, the controllers that make it
 * behave (machine-api, MCO, OLM, WMCO) and the HTTPS API server real clients talk to.
 */
import { establishCrd } from "./apiserver/apiextensions";
import { ApiServer, Protocol, RequestObserver, ServerFaults } from "./apiserver";
import { createClock } from "./clock";
import { packageManifests } from "./cluster/packages";
import { seedCluster, SeededCluster } from "./cluster/seed";
import { startControllers } from "./controllers";
import { CrdSchemas, findCrdDir } from "./schema";
import { KubeObject, MemoryStore } from "./store";

export interface SimulatorOptions {
  platform?: "aws" | "azure";
  /** Simulated milliseconds per real millisecond: 1 is human-paced, tests use hundreds. */
  speed?: number;
  /**
   * CRD directory for validation and pruning; `false` serves custom resources unvalidated. Default:
   * `findCrdDir()`, unvalidated when it finds none.
   */
  crdDir?: string | false;
  /** Port on 127.0.0.1 (0 or omitted: a free one). */
  port?: number;
  /** Where to write the kubeconfig (default: a temporary file removed on stop). */
  kubeconfigPath?: string;
  /** Bearer token clients use (default: random). */
  token?: string;
  /**
   * Where to write a service account's `token`, `ca.crt` and `namespace`, as the kubelet mounts them
   * in a pod, for in-cluster clients; the token file follows `faults.rotateToken()`.
   */
  serviceAccountDir?: string;
  /**
   * Plurals of resources the cluster does not serve, as an OpenShift from before them (e.g.
   * `machineconfignodes`): no CRD, 404 on their paths. Controllers may still keep such objects in the
   * store, where no client can see them.
   */
  unserved?: readonly string[];
  /** `http` serves the API without TLS, as `kubectl proxy` / `oc proxy` (default `https`). */
  protocol?: Protocol;
}

export interface Simulator {
  /** The kubeconfig file; rewritten when the token is rotated (`faults.rotateToken()`). */
  kubeconfigPath: string;
  /** The kubeconfig's content (cluster CA, server URL, current token). */
  readonly kubeconfig: string;
  server: string;
  /** PEM of the CA that signed the server's certificate; empty over plain HTTP. */
  caCert: string;
  /** The bearer token clients must present now. */
  readonly token: string;
  store: MemoryStore;
  cluster: SeededCluster;
  /** API-level faults, plus the cluster-level ones under their names (see `faults.names()`). */
  faults: ServerFaults;
  /** Calls `observer` with every API request the server receives; returns the function that stops it. */
  observeRequests(observer: RequestObserver): () => void;
  stop(): Promise<void>;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const platform = options.platform ?? "aws";
  const clock = createClock(options.speed ?? 1);
  const store = new MemoryStore({ now: () => clock.now() });
  const cluster = seedCluster(store, { platform, now: clock.now() });
  const crdDir = options.crdDir === undefined ? (findCrdDir() ?? false) : options.crdDir;
  const schemas = crdDir === false ? undefined : CrdSchemas.load(crdDir);
  const unserved = options.unserved ?? [];
  for (const crd of schemas?.definitions ?? []) {
    if (unserved.includes(crd.plural)) continue;
    const object = structuredClone(crd.object) as KubeObject;
    establishCrd(object, clock.now());
    // A directory exported from a cluster (crds:export) also holds the CRDs the seed installs (OLM v1's): its definition wins.
    const seeded = store.get({
      apiVersion: object.apiVersion,
      kind: object.kind,
      name: object.metadata.name,
    });
    if (seeded)
      store.update({
        ...object,
        metadata: { ...object.metadata, resourceVersion: seeded.metadata.resourceVersion },
      });
    else store.create(object);
  }
  const controllers = startControllers({ store, clock, platform, schemas });
  let api: ApiServer;
  try {
    api = await ApiServer.start({
      store,
      schemas,
      port: options.port,
      token: options.token,
      kubeconfigPath: options.kubeconfigPath,
      serviceAccountDir: options.serviceAccountDir,
      now: () => clock.now(),
      unserved,
      protocol: options.protocol,
      computed: { "packages.operators.coreos.com/packagemanifests": packageManifests(store) },
    });
  } catch (error) {
    controllers.stop();
    clock.stop();
    throw error;
  }
  const cf = controllers.faults;
  const mf = controllers.machineFaults;
  const text = (params: Record<string, unknown>, key: string): string => {
    const value = params[key];
    if (typeof value !== "string" || !value) throw new Error(`"${key}" must be a non-empty string`);
    return value;
  };
  const optional = (params: Record<string, unknown>, key: string) =>
    typeof params[key] === "string" ? (params[key] as string) : undefined;
  api.faults.registerAll({
    degradeNode: (p) => cf.degradeNode(text(p, "node"), text(p, "reason")),
    driftFile: (p) => cf.driftFile(text(p, "node"), text(p, "path")),
    holdOsUpdate: (p) => cf.holdOsUpdate(text(p, "node")),
    failCsv: (p) =>
      cf.failCsv(text(p, "namespace"), text(p, "name"), optional(p, "reason"), optional(p, "message")),
    clearClusterFaults: () => {
      cf.clear();
      mf.clear();
    },
    clusterFaults: () => ({ ...cf.list(), heldBoots: mf.heldMachineSets() }),
  });
  const count = (params: Record<string, unknown>) => Number(params.nodes);
  api.faults.registerAll({
    stopKubelet: (p) => mf.stopKubelet(text(p, "node")),
    holdBoot: (p) => mf.holdBoot(text(p, "machineSet")),
    interruptSpot: (p) => mf.interruptSpot(text(p, "machine")),
    pendingPods: (p) => mf.pendingPods(count(p)),
    idleNodes: (p) => mf.idleNodes(count(p)),
  });

  let stopped = false;
  return {
    kubeconfigPath: api.kubeconfigPath,
    get kubeconfig() {
      return api.kubeconfig;
    },
    server: api.url,
    caCert: api.caCert,
    get token() {
      return api.token;
    },
    store,
    cluster,
    faults: api.faults,
    observeRequests: (observer) => api.observeRequests(observer),
    async stop() {
      if (stopped) return;
      stopped = true;
      controllers.stop();
      clock.stop();
      await api.stop();
    },
  };
}
