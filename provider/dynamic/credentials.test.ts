import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createMachineSet,
  DEADLINE_MS,
  K,
  keyOf,
  Simulator,
  startTestSimulator,
} from "../../test/simulator-fixture";
import { execFileSync } from "node:child_process";
import {
  ambientKubeconfig,
  clusterServer,
  currentCredentials,
  currentServer,
  inClusterKubeconfig,
  isEmptyKubeconfig,
  providerKubeconfig,
  SERVICE_ACCOUNT_DIR,
  SERVICE_ACCOUNT_DIR_ENV,
  STORED_SOURCE,
} from "./credentials";
import { MachineSetReady, MachineSetRemoval, PoolRollout } from "./index";
import { waitForMachineSetsReady } from "../waiting";
import { createApiClient } from "../waiting/api";
import { KINDS } from "../waiting/kinds";
import { staticConnection } from "../waiting/kubeconfig";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";

function kubeconfig(server: string, token: string): string {
  return `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "${server}" } }]
users: [{ name: u, user: { token: ${token} } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`;
}

const CLUSTER = "https://api.cluster.example.com:6443";

describe("waiter credentials", () => {
  let dir: string;
  const ambient = process.env.KUBECONFIG;
  /** Points $KUBECONFIG at a file with `text`, or at a missing file. */
  const setAmbient = (text: string | undefined) => {
    const file = join(dir, `kubeconfig-${Math.random().toString(36).slice(2)}`);
    if (text !== undefined) writeFileSync(file, text);
    process.env.KUBECONFIG = file;
    return file;
  };

  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "credentials-"))));
  afterEach(() => {
    process.env.KUBECONFIG = ambient;
    rmSync(dir, { recursive: true, force: true });
  });

  it("prefers the ambient kubeconfig when it reaches the stored cluster, whatever its token", () => {
    const stored = kubeconfig(CLUSTER, "expired");
    const renewed = kubeconfig(`${CLUSTER}/`, "renewed");
    const file = setAmbient(renewed);
    assert.deepEqual(currentCredentials(stored), { kubeconfig: renewed, source: `$KUBECONFIG (${file})` });
  });

  it("never uses another cluster's credentials: the stored copy, saying why", () => {
    const stored = kubeconfig(CLUSTER, "expired");
    const file = setAmbient(kubeconfig("https://api.other.example.com:6443", "valid"));
    const credentials = currentCredentials(stored);
    assert.equal(credentials.kubeconfig, stored);
    assert.equal(credentials.source, STORED_SOURCE);
    assert.match(credentials.note!, new RegExp(`${file} points at https://api.other.example.com:6443/`));
    assert.match(credentials.note!, /not at https:\/\/api\.cluster\.example\.com:6443\//);
  });

  it("falls back to the stored copy when no kubeconfig can be read, saying so", () => {
    const stored = kubeconfig(CLUSTER, "token");
    const file = setAmbient(undefined);
    const credentials = currentCredentials(stored);
    assert.equal(credentials.kubeconfig, stored);
    assert.match(credentials.note!, new RegExp(`no kubeconfig could be read at ${file}`));
  });

  // client-go clientcmd/loader.go, ClientConfigLoadingRules.Load: every $KUBECONFIG entry, missing
  // ones skipped, the first file to set a value wins, file references resolved against their file.
  it("reads every $KUBECONFIG entry as kubectl does: merged, the first file to set a value winning", () => {
    const first = join(dir, "first");
    const second = join(dir, "second");
    writeFileSync(
      first,
      `clusters: [{ name: c, cluster: { server: "${CLUSTER}", certificate-authority: ca.crt } }]\n`,
    );
    writeFileSync(
      second,
      [
        'clusters: [{ name: c, cluster: { server: "https://api.other.example.com:6443" } }]',
        "users: [{ name: u, user: { token: second } }, { name: v, user: { token: v } }]",
        "contexts: [{ name: x, context: { cluster: c, user: u } }]",
        "current-context: x",
      ].join("\n"),
    );
    const { delimiter } = require("node:path") as typeof import("node:path");
    process.env.KUBECONFIG = [first, join(dir, "missing"), second, first].join(delimiter);
    const { file, text } = ambientKubeconfig();
    assert.equal(file, [first, second].join(delimiter));
    const { parse } = require("yaml") as typeof import("yaml");
    const merged = parse(text!);
    assert.equal(currentServer(text!), CLUSTER, "the cluster named c in the first file wins");
    assert.deepEqual(merged.clusters[0].cluster["certificate-authority"], join(dir, "ca.crt"));
    assert.equal(merged["current-context"], "x", "set only by the second file");
    assert.deepEqual(
      merged.users.map((u: { name: string }) => u.name),
      ["u", "v"],
    );
  });

  it("connects as a Kubernetes provider's settings say: a path or content, its context and cluster overriding", () => {
    // pulumi-kubernetes provider.go Configure and util.go parseKubeconfigString.
    const other = "https://api.other.example.com:6443";
    const two = kubeconfig(CLUSTER, "t")
      .replace(
        "contexts: [{ name: x, context: { cluster: c, user: u } }]",
        `contexts: [{ name: x, context: { cluster: c, user: u } }, { name: y, context: { cluster: d, user: u } }]\n` +
          `clusters: [{ name: c, cluster: { server: "${CLUSTER}" } }, { name: d, cluster: { server: "${other}" } }]`,
      )
      .replace(`clusters: [{ name: c, cluster: { server: "${CLUSTER}" } }]\n`, "");
    const file = setAmbient(two);
    assert.equal(currentServer(providerKubeconfig({ kubeconfig: two }).text!), CLUSTER);
    assert.deepEqual(providerKubeconfig({ kubeconfig: file }), { file, text: two });
    assert.equal(currentServer(providerKubeconfig({ kubeconfig: file, context: "y" }).text!), other);
    assert.equal(
      currentServer(providerKubeconfig({ cluster: "d" }).text!),
      other,
      "ambient, its cluster overridden",
    );
    assert.equal(currentServer(providerKubeconfig({}).text!), CLUSTER);
    setAmbient(undefined);
    assert.equal(providerKubeconfig({}).text, undefined);
  });

  it("a renewed token is no diff; a kubeconfig for another cluster is", async () => {
    const olds = { kubeconfig: kubeconfig(CLUSTER, "old"), pool: "worker", renderedConfig: "rendered-1" };
    const diff = (news: object) => PoolRollout.provider.diff!("pool/worker", olds, news);
    assert.equal((await diff({ kubeconfig: kubeconfig(CLUSTER, "new"), pool: "worker" })).changes, false);
    const moved = await diff({ kubeconfig: kubeconfig("https://api.other:6443", "new"), pool: "worker" });
    assert.equal(moved.changes, true);
    assert.deepEqual(moved.replaces, []);
  });

  it("reads the current context's server as the Kubernetes client does, and says when there is none", async () => {
    assert.equal(currentServer(kubeconfig(CLUSTER, "t")), CLUSTER);
    assert.equal(
      clusterServer(kubeconfig("https://API.example.com:6443/", "t")),
      "https://api.example.com:6443/",
    );
    const json = JSON.stringify({
      clusters: [{ name: "c", cluster: { server: CLUSTER } }],
      contexts: [{ name: "x", context: { cluster: "c" } }],
      "current-context": "x",
    });
    assert.equal(currentServer(json), CLUSTER);
    // A current context naming a cluster that is not there, no current context, no cluster list at all.
    assert.equal(currentServer(kubeconfig(CLUSTER, "t").replace("cluster: c,", "cluster: gone,")), undefined);
    assert.equal(currentServer(kubeconfig(CLUSTER, "t").replace("current-context: x", "")), undefined);
    assert.equal(currentServer("apiVersion: v1\nkind: Config\nclusters: none\n"), undefined);
    assert.throws(() => currentServer("clusters: ["));
    assert.throws(() => currentServer("just text"), /a YAML mapping is expected/);
    const failures = async (text: string) =>
      (await PoolRollout.provider.check!({}, { kubeconfig: text, pool: "worker" })).failures?.map(
        (f) => f.reason,
      );
    assert.deepEqual(await failures(kubeconfig(CLUSTER, "t")), []);
    assert.deepEqual(await failures(kubeconfig(CLUSTER, "t").replace("current-context: x", "")), [
      "kubeconfig has no current context with a cluster",
    ]);
    assert.match((await failures("clusters: ["))![0], /^kubeconfig cannot be parsed: /);
  });

  it("checks and diffs a waiter without loading the Kubernetes client, as every preview does for every waiter", function () {
    this.timeout(60_000);
    // In a process of its own: this one has loaded the client long ago.
    const script = `
      const { PoolRollout } = require(${JSON.stringify(require.resolve("./pool-rollout"))});
      const kc = ${JSON.stringify(kubeconfig(CLUSTER, "t"))};
      (async () => {
        const checked = await PoolRollout.provider.check({}, { kubeconfig: kc, pool: "worker" });
        const diff = await PoolRollout.provider.diff("pool/worker", { kubeconfig: kc, pool: "worker" }, { kubeconfig: kc, pool: "infra" });
        const client = Object.keys(require.cache).some((f) => f.includes("@kubernetes/client-node"));
        process.stdout.write(JSON.stringify({ failures: checked.failures, changes: diff.changes, client }));
      })();`;
    const out = execFileSync(process.execPath, ["-r", "ts-node/register/transpile-only", "-e", script], {
      encoding: "utf8",
    });
    assert.deepEqual(JSON.parse(out), { failures: [], changes: true, client: false });
  });

  describe("against the simulator", function () {
    this.timeout(30_000);
    let sim: Simulator;
    let serviceAccount: string;
    const quiet = process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG;
    before(async () => {
      process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG = "0";
      serviceAccount = mkdtempSync(join(tmpdir(), "credentials-sa-"));
      sim = await startTestSimulator({ serviceAccountDir: serviceAccount });
    });
    after(async () => {
      if (quiet === undefined) delete process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG;
      else process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG = quiet;
      await sim.stop();
      rmSync(serviceAccount, { recursive: true, force: true });
    });

    it("in a pod, waits with the service account the provider connects with, reading its token again when it rotates mid-wait", async () => {
      const pod = {
        KUBERNETES_SERVICE_HOST: "127.0.0.1",
        KUBERNETES_SERVICE_PORT: new URL(sim.server).port,
        [SERVICE_ACCOUNT_DIR_ENV]: serviceAccount,
        KUBECONFIG: join(dir, "none"),
      };
      // What the default Kubernetes provider, and so the waiters, connect with in that pod.
      const { text, inCluster } = providerKubeconfig({}, pod);
      assert.equal(inCluster, true);
      assert.equal(clusterServer(text!), clusterServer(sim.kubeconfig), "the cluster the simulator serves");
      createMachineSet(sim, "creds-in-pod", { replicas: 1 });
      const urls: string[] = [];
      let rotated: string | undefined;
      const stop = sim.observeRequests((_method, url) => {
        urls.push(url);
        // The kubelet rotates the token (and the old one is refused) as the wait's second request comes.
        if (urls.length === 2) rotated = sim.faults.rotateToken().token;
      });
      try {
        const outcome = await waitForMachineSetsReady({
          kubeconfig: text,
          machineSets: ["creds-in-pod"],
          timeoutMs: DEADLINE_MS,
        });
        assert.equal(outcome.result.readyMachineCount, 1);
      } finally {
        stop();
      }
      assert.ok(rotated);
      assert.ok(urls.slice(2).includes(urls[1]), "the refused request sent again with the rotated token");
    });

    it("reaches the cluster with the credentials a kubeconfig holds, and through the Kubernetes client with an exec plugin", async () => {
      createMachineSet(sim, "creds-conn", { replicas: 1 });
      const config = parseYaml(sim.kubeconfig) as {
        clusters: Array<{ cluster: Record<string, string> }>;
        users: Array<{ user: Record<string, unknown> }>;
      };
      const variant = (cluster: Record<string, unknown>, user: Record<string, unknown>) =>
        stringifyYaml({
          ...config,
          clusters: [
            { ...config.clusters[0], cluster: { server: config.clusters[0].cluster.server, ...cluster } },
          ],
          users: [{ ...config.users[0], user }],
        });
      const token = sim.faults.rotateToken().token;
      const caData = config.clusters[0].cluster["certificate-authority-data"];
      const caFile = join(dir, "ca.crt");
      const tokenFile = join(dir, "token");
      writeFileSync(caFile, Buffer.from(caData, "base64"));
      writeFileSync(tokenFile, `${token}\n`);
      // An exec plugin's ExecCredential, as `oc` or a cloud CLI prints it (client.authentication.k8s.io).
      const credential = JSON.stringify({
        apiVersion: "client.authentication.k8s.io/v1",
        kind: "ExecCredential",
        status: { token },
      });
      const exec = {
        apiVersion: "client.authentication.k8s.io/v1",
        command: process.execPath,
        args: ["-e", `process.stdout.write(${JSON.stringify(credential)})`],
        interactiveMode: "Never",
      };
      const kubeconfigs = {
        token: variant({ "certificate-authority-data": caData }, { token }),
        "token file, CA file": variant({ "certificate-authority": caFile }, { tokenFile }),
        "exec plugin": variant({ "certificate-authority-data": caData }, { exec }),
      };
      for (const [label, text] of Object.entries(kubeconfigs)) {
        const set = await createApiClient(text).get(KINDS.machineSet, "creds-conn", "openshift-machine-api");
        assert.equal(set?.metadata.name, "creds-conn", label);
      }
      assert.notEqual(staticConnection(kubeconfigs.token), undefined);
      assert.equal(staticConnection(kubeconfigs["exec plugin"]), undefined, "the client runs the plugin");
      // Without the CA the server's certificate is refused, unless verification is off as asked.
      const unverified = variant({}, { token });
      await assert.rejects(
        createApiClient(unverified).get(KINDS.machineSet, "creds-conn", "openshift-machine-api"),
      );
      const insecure = variant({ "insecure-skip-tls-verify": true }, { token });
      assert.ok(await createApiClient(insecure).get(KINDS.machineSet, "creds-conn", "openshift-machine-api"));
      await assert.rejects(
        createApiClient(variant({ "certificate-authority-data": caData }, { token: "wrong" })).get(
          KINDS.machineSet,
          "creds-conn",
          "openshift-machine-api",
        ),
        (e: { status?: number }) => e.status === 401,
      );
    });

    it("delete and read use the renewed ambient kubeconfig; a rejected stored token fails saying how to fix it", async () => {
      createMachineSet(sim, "creds-a", { replicas: 1 });
      const stored = sim.kubeconfig;
      sim.faults.rotateToken();
      const props = {
        kubeconfig: stored,
        machineSets: ["creds-a"],
        deleteTimeoutSeconds: DEADLINE_MS / 1000,
      };

      // Nothing current at hand: the stored, expired token is rejected, and the error says so.
      const missing = setAmbient(undefined);
      const warnings: string[] = [];
      const warn = console.warn;
      console.warn = (line: string) => warnings.push(line);
      try {
        await assert.rejects(MachineSetRemoval.provider.read!("creds", props), (e: Error) => {
          assert.match(e.message, /HTTP 401/);
          assert.match(e.message, /rejected the credentials of the copy stored in the stack's state/);
          assert.match(e.message, /oc login/);
          assert.match(e.message, /\$KUBECONFIG/);
          return true;
        });
        await assert.rejects(
          MachineSetRemoval.provider.delete!("creds", props),
          /401 Unauthorized.*oc login/s,
        );
      } finally {
        console.warn = warn;
      }
      assert.equal(warnings.length, 2, warnings.join("\n"));
      for (const line of warnings) {
        assert.match(line, /MachineSetRemoval machineset-removal\/openshift-machine-api\/creds-a: /);
        assert.ok(line.includes(`no kubeconfig could be read at ${missing}`), line);
      }

      // Create and update use what the program gives, ambient or not: an expired one fails the same way.
      setAmbient(sim.kubeconfig);
      await assert.rejects(
        MachineSetReady.provider.create!({
          kubeconfig: stored,
          machineSets: ["creds-a"],
          timeoutSeconds: 10,
        }),
        /rejected the credentials of the kubeconfig the program gives \(401 Unauthorized\).*oc login/s,
      );

      const read = await MachineSetRemoval.provider.read!("creds", props);
      assert.equal(read.props!.kubeconfig, stored, "state keeps its copy; the current one is not stored");
      sim.store.delete(keyOf(K.machineSet, "creds-a", "openshift-machine-api"));
      await MachineSetRemoval.provider.delete!("creds", props);
    });
  });
});

/**
 * A pod's own configuration, as client-go builds it when no kubeconfig gives one (rest.InClusterConfig;
 * clientcmd inClusterClientConfig.Possible and Namespace, DeferredLoadingClientConfig.ClientConfig,
 * DirectClientConfig.ConfirmUsable) and as pulumi-kubernetes' Configure reaches it (provider.go: a
 * kubeconfig given is used alone; else client-go's deferred loading, which falls back to it).
 */
describe("waiter credentials in a pod: its service account, as client-go's in-cluster configuration", () => {
  let dir: string;
  let sa: string;
  const CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "in-cluster-"));
    sa = join(dir, "serviceaccount");
    mkdirSync(sa);
    writeFileSync(join(sa, "token"), "sa-token\n");
    writeFileSync(join(sa, "ca.crt"), CA);
    writeFileSync(join(sa, "namespace"), "ci\n");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  /** A pod's environment: the service's variables, the service account's files, no kubeconfig file. */
  const pod = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    KUBERNETES_SERVICE_HOST: "10.0.0.1",
    KUBERNETES_SERVICE_PORT: "443",
    [SERVICE_ACCOUNT_DIR_ENV]: sa,
    KUBECONFIG: join(dir, "none"),
    ...extra,
  });
  const read = (text: string | undefined) =>
    parseYaml(text!) as {
      clusters: Array<{ cluster: Record<string, string> }>;
      users: Array<{ user: Record<string, string> }>;
      contexts: Array<{ context: Record<string, string> }>;
    };

  it("is there only with both service variables set and the token a file (inClusterClientConfig.Possible)", () => {
    assert.equal(SERVICE_ACCOUNT_DIR, "/var/run/secrets/kubernetes.io/serviceaccount");
    assert.ok(inClusterKubeconfig(pod()));
    assert.equal(inClusterKubeconfig(pod({ KUBERNETES_SERVICE_HOST: "" })), undefined);
    assert.equal(inClusterKubeconfig(pod({ KUBERNETES_SERVICE_PORT: undefined })), undefined);
    assert.equal(inClusterKubeconfig(pod({ [SERVICE_ACCOUNT_DIR_ENV]: join(dir, "none") })), undefined);
    rmSync(join(sa, "token"));
    mkdirSync(join(sa, "token"));
    assert.equal(inClusterKubeconfig(pod()), undefined, "a directory is no token");
  });

  it("reaches https://host:port with the token's file, the CA's when it holds certificates, and the pod's namespace (rest.InClusterConfig)", () => {
    const found = inClusterKubeconfig(pod())!;
    assert.equal(found.file, `the pod's service account (${sa})`);
    assert.equal(found.inCluster, true);
    const config = read(found.text);
    assert.deepEqual(config.clusters[0].cluster, {
      server: "https://10.0.0.1:443",
      "certificate-authority": join(sa, "ca.crt"),
    });
    assert.deepEqual(config.users[0].user, { tokenFile: join(sa, "token") }, "named, read as it rotates");
    assert.equal(config.contexts[0].context.namespace, "ci");
    assert.equal(
      read(inClusterKubeconfig(pod({ POD_NAMESPACE: "ops" }))!.text).contexts[0].context.namespace,
      "ops",
    );
    assert.equal(
      currentServer(inClusterKubeconfig(pod({ KUBERNETES_SERVICE_HOST: "fd00::1" }))!.text!),
      "https://[fd00::1]:443",
      "net.JoinHostPort brackets an IPv6 address",
    );
    // certutil.NewPool failing leaves CAFile unset: the system's roots verify the server.
    writeFileSync(join(sa, "ca.crt"), "not a certificate");
    rmSync(join(sa, "namespace"));
    const bare = read(inClusterKubeconfig(pod())!.text);
    assert.deepEqual(bare.clusters[0].cluster, { server: "https://10.0.0.1:443" });
    assert.equal(bare.contexts[0].context.namespace, undefined);
  });

  it("agrees with @kubernetes/client-node's in-cluster configuration on server, token file and CA (KubeConfig.loadFromCluster)", () => {
    const prefix = join(dir, "root");
    const mounted = join(prefix, SERVICE_ACCOUNT_DIR);
    mkdirSync(mounted, { recursive: true });
    for (const name of ["token", "ca.crt", "namespace"])
      writeFileSync(join(mounted, name), name === "ca.crt" ? CA : "x");
    const env = pod({ [SERVICE_ACCOUNT_DIR_ENV]: mounted, KUBERNETES_SERVICE_HOST: "172.30.0.1" });
    const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
    const { KubeConfig } = require("@kubernetes/client-node") as typeof import("@kubernetes/client-node");
    const kc = new KubeConfig();
    try {
      Object.assign(process.env, { KUBERNETES_SERVICE_HOST: "172.30.0.1", KUBERNETES_SERVICE_PORT: "443" });
      kc.loadFromCluster(prefix);
    } finally {
      for (const [key, value] of [
        ["KUBERNETES_SERVICE_HOST", saved.host],
        ["KUBERNETES_SERVICE_PORT", saved.port],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
    const ours = read(inClusterKubeconfig(env)!.text);
    assert.equal(ours.clusters[0].cluster.server, kc.getCurrentCluster()!.server);
    assert.equal(ours.clusters[0].cluster["certificate-authority"], kc.getCurrentCluster()!.caFile);
    const provider = kc.getCurrentUser()!.authProvider as { config: { tokenFile: string } };
    assert.equal(ours.users[0].user.tokenFile, provider.config.tokenFile);
  });

  it("comes after any kubeconfig, as pulumi-kubernetes' Configure and client-go's deferred loading order them", () => {
    const IN_POD = "https://10.0.0.1:443";
    const file = join(dir, "kubeconfig");
    const server = (settings: Parameters<typeof providerKubeconfig>[0], env = pod()) =>
      currentServer(providerKubeconfig(settings, env).text ?? "clusters: []");
    // A kubeconfig the provider is given is used alone, in a pod too.
    assert.equal(server({ kubeconfig: kubeconfig(CLUSTER, "t") }), CLUSTER);
    // Ambient files that name a cluster come before the pod's service account.
    writeFileSync(file, kubeconfig(CLUSTER, "t"));
    assert.equal(server({}, pod({ KUBECONFIG: file })), CLUSTER);
    // No file at all, or one that loads as an empty configuration: the service account.
    assert.equal(server({}), IN_POD);
    assert.equal(providerKubeconfig({}, pod()).inCluster, true);
    writeFileSync(file, "apiVersion: v1\nkind: Config\n");
    assert.equal(server({}, pod({ KUBECONFIG: file })), IN_POD);
    // A cluster override alone names nothing of the service account's configuration, which ignores it.
    assert.equal(server({ cluster: "elsewhere" }), IN_POD);
    // A context named but missing is an error client-go returns, not a reason to use the pod's.
    assert.equal(providerKubeconfig({ context: "missing" }, pod()).text, undefined);
    writeFileSync(file, kubeconfig(CLUSTER, "t").replace("current-context: x", "current-context: gone"));
    assert.equal(providerKubeconfig({}, pod({ KUBECONFIG: file })).inCluster, undefined);
    // Outside a pod, nothing to connect with stays nothing.
    assert.equal(providerKubeconfig({}, pod({ KUBERNETES_SERVICE_HOST: undefined })).text, undefined);
    assert.equal(ambientKubeconfig(pod()).inCluster, true);
  });

  it("takes a kubeconfig for empty as client-go's ConfirmUsable does: no cluster, or one with no field at all", () => {
    assert.equal(isEmptyKubeconfig(""), true);
    assert.equal(isEmptyKubeconfig("apiVersion: v1\nkind: Config\nclusters: []\n"), true);
    assert.equal(isEmptyKubeconfig(kubeconfig(CLUSTER, "t")), false);
    assert.equal(isEmptyKubeconfig(kubeconfig(CLUSTER, "t").replace("cluster: c,", "cluster: gone,")), true);
    assert.equal(isEmptyKubeconfig(kubeconfig(CLUSTER, "t"), { cluster: "gone" }), true);
    assert.equal(isEmptyKubeconfig(kubeconfig(CLUSTER, "t"), { context: "gone" }), false);
    const noServer = "clusters: [{ name: c, cluster: { insecure-skip-tls-verify: true } }]\n";
    assert.equal(
      isEmptyKubeconfig(`${noServer}contexts: [{ name: x, context: { cluster: c } }]\ncurrent-context: x\n`),
      false,
    );
    assert.equal(
      isEmptyKubeconfig(
        "clusters: [{ name: c, cluster: {} }]\ncontexts: [{ name: x, context: { cluster: c } }]\ncurrent-context: x\n",
      ),
      true,
    );
    assert.equal(isEmptyKubeconfig("clusters: ["), false, "not YAML: an error");
    assert.equal(isEmptyKubeconfig("just text"), false);
    assert.equal(isEmptyKubeconfig("- a list"), false);
  });

  it("reads and deletes with the service account when the stored copy reaches its server", () => {
    const saved = { ...process.env };
    try {
      Object.assign(process.env, pod());
      const stored = inClusterKubeconfig(pod())!.text!;
      assert.deepEqual(currentCredentials(stored), {
        kubeconfig: stored,
        source: `the pod's service account (${sa})`,
      });
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });
});
