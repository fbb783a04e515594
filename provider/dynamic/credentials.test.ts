import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
  providerKubeconfig,
  STORED_SOURCE,
} from "./credentials";
import { MachineSetReady, MachineSetRemoval, PoolRollout } from "./index";
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
    const quiet = process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG;
    before(async () => {
      process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG = "0";
      sim = await startTestSimulator();
    });
    after(async () => {
      if (quiet === undefined) delete process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG;
      else process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG = quiet;
      await sim.stop();
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
