import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { seedYaml, wmcoKeySecretCommand } from "../../test/seeds";
import { applyServerSide, kubectl, KubectlResult, kubectlMinorVersion } from "./kubectl";
import { startTestServer, TestServer } from "./testing";
import { CRDS, requireReference, SEEDS } from "../../test/reference";

const NS = "openshift-machine-api";
const INFRA = "cluster-zbwlg-cbgq7-infra-us-east-2a";

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed: ${result.stderr}`);
  return result.stdout;
}

describe("API server with kubectl", function () {
  this.timeout(60_000);
  let t: TestServer;
  let minor: number | undefined;
  const run = (args: string[], input?: string) => kubectl(t.server.kubeconfigPath, args, input);

  before(async function () {
    minor = kubectlMinorVersion();
    if (minor === undefined) {
      console.log("    kubectl is not installed: kubectl tests skipped");
      this.skip();
    }
    requireReference(this, SEEDS, CRDS);
    t = await startTestServer({ namespaces: ["default", NS, "openshift-image-registry"] });
    t.store.create({
      apiVersion: "imageregistry.operator.openshift.io/v1",
      kind: "Config",
      metadata: { name: "cluster" },
      spec: { managementState: "Managed", replicas: 1 },
    });
  });

  after(() => t?.stop());

  it("applies seed 001's infra MachineSet server-side and refuses its unknown fields in strict mode", async function () {
    const machineSet = JSON.stringify(seedYaml("001", /^apiVersion: machine.openshift.io\/v1beta1/));
    if (minor! >= 27) {
      const strict = await run(["apply", "--server-side", "-f", "-"], machineSet);
      assert.notEqual(strict.code, 0);
      assert.match(
        strict.stderr,
        /strict decoding error: .*unknown field "spec.template.metadata.creationTimestamp"/,
      );
    }
    assert.match(
      ok(await run(["apply", "--server-side", "--validate=false", "-f", "-"], machineSet)),
      /serverside-applied/,
    );
    const stored = t.store.get({
      apiVersion: "machine.openshift.io/v1beta1",
      kind: "MachineSet",
      namespace: NS,
      name: INFRA,
    })!;
    const template = stored.spec as {
      template: { metadata: Record<string, unknown>; spec: Record<string, unknown> };
    };
    assert.equal(template.template.metadata.creationTimestamp, undefined, "pruned");
    assert.equal(template.template.spec.versions, undefined, "pruned");
    const managers = (stored.metadata.managedFields as Array<{ manager: string; operation: string }>).map(
      (m) => `${m.manager}/${m.operation}`,
    );
    assert.deepEqual(managers, ["kubectl/Apply"]);
  });

  it("patches (JSON patch from seed 001) and scales the MachineSet", async () => {
    ok(
      await run([
        "patch",
        "machineset",
        INFRA,
        "-n",
        NS,
        "--type=json",
        '-p=[{"op": "add", "path": "/spec/template/spec/metadata/labels", "value":{"node-role.kubernetes.io/worker":"", "node-role.kubernetes.io/infra":""} }]',
      ]),
    );
    assert.match(ok(await run(["scale", "machineset", INFRA, "-n", NS, "--replicas=2"])), /scaled/);
    const out = ok(
      await run([
        "get",
        "machineset",
        INFRA,
        "-n",
        NS,
        "-o",
        "jsonpath={.spec.replicas} {.spec.template.spec.metadata.labels}",
      ]),
    );
    assert.equal(out, '2 {"node-role.kubernetes.io/infra":"","node-role.kubernetes.io/worker":""}');
    const table = ok(await run(["get", "machinesets", "-n", NS]));
    assert.match(table.split("\n")[0], /^NAME\s+DESIRED\s+CURRENT\s+READY\s+AVAILABLE\s+AGE$/);
  });

  it("merge-patches the registry config as seed 001 does", async () => {
    ok(
      await run([
        "patch",
        "configs.imageregistry.operator.openshift.io/cluster",
        "-p",
        '{"spec":{"nodeSelector":{"node-role.kubernetes.io/infra": ""}}}',
        "--type=merge",
      ]),
    );
    const out = ok(
      await run([
        "get",
        "configs.imageregistry.operator.openshift.io",
        "cluster",
        "-o",
        "jsonpath={.spec.nodeSelector}",
      ]),
    );
    assert.equal(out, '{"node-role.kubernetes.io/infra":""}');
  });

  it("applies seed 002's Namespace, OperatorGroup and Subscription", async () => {
    const documents = [
      seedYaml("002", /^\s+apiVersion: v1$/),
      seedYaml("002", /^\s+apiVersion: operators.coreos.com\/v1$/),
      seedYaml("002", /^\s+apiVersion: operators.coreos.com\/v1alpha1$/),
    ];
    const input = documents.map((d) => JSON.stringify(d)).join("\n");
    const out = ok(await run(applyServerSide(minor!), input));
    assert.match(out, /namespace\/openshift-windows-machine-config-operator serverside-applied/);
    assert.match(
      out,
      /operatorgroup.operators.coreos.com\/windows-machine-config-operator serverside-applied/,
    );
    assert.match(
      out,
      /subscription.operators.coreos.com\/windows-machine-config-operator serverside-applied/,
    );
    const sub = ok(
      await run([
        "get",
        "sub",
        "-n",
        "openshift-windows-machine-config-operator",
        "-o",
        "jsonpath={.items[0].spec.channel}/{.items[0].spec.source}",
      ]),
    );
    assert.equal(sub, "stable/redhat-operators");
    assert.match(ok(await run(["get", "og", "-A"])), /windows-machine-config-operator/);
  });

  it("creates the WMCO private key secret as seed 002 does (kubectl sends protobuf)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sim-key-"));
    try {
      const keyFile = path.join(dir, "id_rsa");
      fs.writeFileSync(
        keyFile,
        "-----BEGIN RSA PRIVATE KEY-----\nnot really\n-----END RSA PRIVATE KEY-----\n",
      );
      const ns = "openshift-windows-machine-config-operator";
      ok(await run(wmcoKeySecretCommand(keyFile)));
      const secret = t.store.get({
        apiVersion: "v1",
        kind: "Secret",
        namespace: ns,
        name: "cloud-private-key",
      })!;
      const data = secret.data as Record<string, string>;
      assert.equal(
        Buffer.from(data["private-key.pem"], "base64").toString(),
        fs.readFileSync(keyFile, "utf8"),
      );
      assert.equal(secret.type, "Opaque");
      ok(await run(["create", "configmap", "settings", "--from-literal=a=b", "-n", ns]));
      ok(await run(["create", "namespace", "created-by-kubectl"]));
      assert.ok(t.store.get({ apiVersion: "v1", kind: "Namespace", name: "created-by-kubectl" }));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("shows node roles and pool columns like the seeds", async () => {
    t.store.create({
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: "ip-10-0-141-135",
        labels: { "node-role.kubernetes.io/infra": "", "node-role.kubernetes.io/worker": "" },
      },
      status: { conditions: [{ type: "Ready", status: "True" }], nodeInfo: { kubeletVersion: "v1.32.5" } },
    });
    t.store.create({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfigPool",
      metadata: { name: "worker" },
      spec: {},
      status: { machineCount: 3, readyMachineCount: 3, updatedMachineCount: 3, degradedMachineCount: 0 },
    });
    const nodes = ok(await run(["get", "nodes"]))
      .trim()
      .split("\n");
    assert.match(nodes[0], /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION$/);
    assert.match(nodes[1], /^ip-10-0-141-135\s+Ready\s+infra,worker\s+\S+\s+v1\.32\.5$/);
    const pools = ok(await run(["get", "mcp"]))
      .trim()
      .split("\n");
    assert.match(
      pools[0],
      /^NAME\s+CONFIG\s+UPDATED\s+UPDATING\s+DEGRADED\s+MACHINECOUNT\s+READYMACHINECOUNT\s+UPDATEDMACHINECOUNT\s+DEGRADEDMACHINECOUNT\s+AGE$/,
    );
    assert.match(pools[1], /^worker\s+3\s+3\s+3\s+0\s+\S+$/);
  });

  it("reports errors the way kubectl expects", async () => {
    const missing = await run(["get", "machineset", "nope", "-n", NS]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /machinesets.machine.openshift.io "nope" not found/);
    const invalid = await run([
      "patch",
      "machineset",
      INFRA,
      "-n",
      NS,
      "--type=merge",
      "-p",
      '{"spec":{"replicas":"two"}}',
    ]);
    assert.notEqual(invalid.code, 0);
    assert.match(
      invalid.stderr,
      /spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"/,
    );
  });
});
