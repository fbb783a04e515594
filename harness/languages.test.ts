import * as assert from "node:assert/strict";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { fixturesFor } from "./fixtures";
import { Simulator } from "../simulator/simulator";
import { simulatorForSuite } from "../test/harness-simulator";
import { ComponentHost, InputPropertiesFailure } from "./engine/component-host";
import { EngineOptions, EngineResult, update } from "./engine/engine";
import { Registration, startMonitor } from "./engine/monitor";
import { installedProgram } from "./installed";
import { loadProject, Project } from "./project";
import { render } from "./render";
import { Renderer, Rendering } from "./rendering";
import { isSecret, redact, reveal, secret, SECRET_SIG_KEY } from "./secrets";
import { RESOURCE_SIG, UNKNOWN } from "./engine/rpc";
import { readYamlProgram } from "./engine/yaml-program";
import type { CreatedObject } from "../provider/waiting/identity";
import { publicKeyFingerprint } from "../components/windows-node-pool/rsa-private-key";

const ROOT = path.resolve(__dirname, "..");
const ROOT_EXAMPLE = path.join(ROOT, "examples", "aws-infra-windows");

/** What a program's registrations declare, rendered as `npm run render` renders a TypeScript program. */
function rendered(registrations: Registration[]): Rendering {
  const renderer = new Renderer();
  for (const r of registrations) if (r.custom) renderer.add(r.type, r.name, r.inputs);
  return renderer.rendering([]);
}

/**
 * A waiter's inputs as a preview knows them: what the objects it waits on will be once created is
 * unknown to the engine, while the mocks of a render answer with the inputs.
 */
function known(value: unknown, preview: unknown): unknown {
  if (preview === UNKNOWN) return UNKNOWN;
  if (Array.isArray(value) && Array.isArray(preview)) return value.map((v, i) => known(v, preview[i]));
  if (value !== null && typeof value === "object" && preview !== null && typeof preview === "object") {
    const p = preview as Record<string, unknown>;
    // What the render's mocks leave out (a read of the cluster: the pool's machines) a preview has as unknown.
    const unread = Object.keys(p).filter((k) => p[k] === UNKNOWN && !(k in value));
    return Object.fromEntries([
      ...Object.entries(value).map(([k, v]) => [k, known(v, p[k])]),
      ...unread.map((k) => [k, UNKNOWN]),
    ]);
  }
  return value;
}

/**
 * A deployed waiter's inputs without what only the cluster knows: the objects it waits on as the
 * provider created them, each checked to be the cluster's object by its UID.
 */
function withoutCreated(sim: Simulator, inputs: Record<string, unknown>): Record<string, unknown> {
  const { created, ...declared } = inputs;
  for (const c of (created ?? []) as CreatedObject[]) {
    assert.equal(sim.store.get(c)?.metadata.uid, c.uid, `${c.kind} ${c.name}`);
  }
  return declared;
}

/**
 * What the package's provider registered is what the TypeScript program's render declares, objects and
 * waiters; at a preview what the engine cannot know yet is unknown, after an up (`sim` given) the
 * waiters also hold the objects the cluster created.
 */
function sameRendering(fromPackage: Rendering, typescript: Rendering, sim?: Simulator): void {
  assert.deepEqual(fromPackage.errors, []);
  assert.deepEqual(typescript.errors, []);
  assert.deepEqual(
    fromPackage.manifests.map((m) => m.file),
    typescript.manifests.map((m) => m.file),
  );
  for (const [i, m] of fromPackage.manifests.entries()) {
    assert.deepEqual(m.manifest, known(typescript.manifests[i].manifest, m.manifest), m.file);
  }
  assert.deepEqual(
    fromPackage.waiters.map((w) => `${w.type} ${w.name}`),
    typescript.waiters.map((w) => `${w.type} ${w.name}`),
  );
  for (const [i, w] of fromPackage.waiters.entries()) {
    const inputs = sim ? withoutCreated(sim, w.inputs) : w.inputs;
    assert.deepEqual(inputs, known(typescript.waiters[i].inputs, inputs), `${w.type} ${w.name}`);
  }
  if (sim)
    assert.ok(
      fromPackage.waiters.some((w) => Array.isArray(w.inputs.created) && w.inputs.created.length > 0),
    );
}

/**
 * The program's own Kubernetes provider carries every object of the components it was given to: as
 * the `provider` property (a resource reference, which the package's provider rehydrates) or in the
 * `provider`/`providers` options (which the engine hands Construct by package: source_eval.go,
 * RegisterResource); the other components' objects go through the default provider.
 */
function throughProgramProvider(registrations: Registration[]): void {
  const provider = registrations.find((r) => r.type === "pulumi:providers:kubernetes")!;
  const component = (name: string) => registrations.find((r) => r.remote && r.name === name)!;
  const reference = component("storage").inputs.provider as Record<string, unknown>;
  assert.equal(reference[SECRET_SIG_KEY], RESOURCE_SIG);
  assert.equal(reference.urn, provider.urn);
  for (const name of ["autoscaler", "storage-crio"]) {
    assert.deepEqual(Object.keys(component(name).providers), ["kubernetes"], name);
    assert.ok(component(name).providers.kubernetes.startsWith(`${provider.urn}::`), name);
  }
  for (const name of ["autoscaler", "storage", "storage-crio", "gpu", "gpu-crio"]) {
    const objects = registrations.filter(
      (r) => r.custom && r.type.startsWith("kubernetes:") && r.parent === component(name).urn,
    );
    assert.ok(objects.length > 0, name);
    for (const r of objects) {
      assert.equal(r.provider.startsWith(`${provider.urn}::`), !name.startsWith("gpu"), `${name}: ${r.type}`);
    }
  }
}

/**
 * The components as every other language uses them: the engine runs a Pulumi YAML program by
 * registering its resources as remote components, starts the component package as the CLI starts a
 * Node.js source plugin (the SDK's plugin runner on the package's directory), and calls Construct with
 * the plain values the program holds, as a YAML or Python program sends them. What the package's
 * provider registers is what the TypeScript program declares, and it deploys and waits the same way.
 */
describe("the component package, as a YAML or Python program uses it", function () {
  this.timeout(180_000);
  let sim: Simulator;
  let dir: string;
  const suite = simulatorForSuite("harness-languages-", { speed: 500 });
  before(() => ({ sim, dir } = suite));

  const run = async (project: Project, dryRun: boolean, statePath?: string) => {
    const registrations: Registration[] = [];
    const options: EngineOptions = {
      project,
      kubeconfigPath: sim.kubeconfigPath,
      statePath,
      fixtures: fixturesFor(project),
      onRegistration: (r) => registrations.push(r),
    };
    const result: EngineResult = await update(options, dryRun);
    return { result, registrations };
  };

  it("previews the root example's YAML program with the objects and waiters of the TypeScript program, then deploys it and waits until the cluster converged", async () => {
    const project = loadProject(installedProgram(path.join(ROOT_EXAMPLE, "yaml")));
    // The program's resources are what the engine constructs, one remote registration each.
    const declared = Object.entries(readYamlProgram(project).resources);
    const statePath = path.join(dir, "yaml.json");

    const preview = await run(project, true, statePath);
    assert.deepEqual(preview.result.errors, []);
    const remote = preview.registrations.filter((r) => r.remote);
    assert.deepEqual(
      remote.map((r) => `${r.type} ${r.name}`).sort(),
      declared.map(([name, r]) => `${r.type} ${name}`).sort(),
    );
    // Plain values, as YAML sends them.
    assert.deepEqual(remote.find((r) => r.name === "infra-kubelet")!.inputs, {
      pool: "infra",
      kubeletConfig: { maxPods: 250 },
    });
    // Each component registered itself under the URN the engine gave the remote registration.
    for (const r of remote)
      assert.ok(preview.registrations.some((c) => !c.remote && !c.custom && c.urn === r.urn));
    // The TypeScript program's render: its fixtures are what the simulator's cluster holds.
    const typescript = await render(loadProject(ROOT_EXAMPLE));
    sameRendering(rendered(preview.registrations), typescript);

    const up = await run(project, false, statePath);
    assert.deepEqual(up.result.errors, []);
    sameRendering(rendered(up.registrations), typescript, sim);
    const outputs = reveal(up.result.outputs) as Record<string, unknown>;
    assert.deepEqual(outputs.infraMachineSets, [
      "cluster-zbwlg-cbgq7-infra-us-east-2a",
      "cluster-zbwlg-cbgq7-infra-us-east-2b",
      "cluster-zbwlg-cbgq7-infra-us-east-2c",
    ]);
    assert.equal(outputs.windowsRuntimeClass, "windows-2022");
    // Waited for: the pool's machines run a render with the MachineConfig and the KubeletConfig, and the
    // components' state has what their waiters observed.
    const state = (name: string) =>
      reveal(
        up.result.checkpoint.deployment.resources.find((r) => r.urn.endsWith(`::${name}`) && !r.custom)!
          .outputs,
      ) as Record<string, unknown>;
    const pool = sim.store.get({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfigPool",
      name: "infra",
    })!;
    const status = pool.status as {
      configuration: { name: string; source: Array<{ name: string }> };
      machineCount: number;
      updatedMachineCount: number;
    };
    assert.equal(status.machineCount, 3);
    assert.equal(status.updatedMachineCount, 3);
    assert.ok(status.configuration.source.some((s) => s.name === "99-infra-chrony"));
    assert.equal(state("infra").readyMachineCount, 3);
    for (const name of ["infra", "99-infra-chrony", "infra-kubelet"]) {
      assert.match(String(state(name).renderedConfig), /^rendered-infra-[0-9a-f]{32}$/, name);
    }
    assert.equal((state("windows").configuredNodes as string[]).length, 1);
  });

  it("constructs every other component as the TypeScript program declares it, objects and waiters, with the program's Kubernetes provider given as `provider` or in the options, then deploys them and waits", async () => {
    const project = loadProject(
      installedProgram(path.join(ROOT, "harness", "testdata", "other-components", "yaml")),
    );
    const statePath = path.join(dir, "other.json");
    const preview = await run(project, true, statePath);
    assert.deepEqual(preview.result.errors, []);
    assert.deepEqual(
      preview.registrations
        .filter((r) => r.remote)
        .map((r) => r.type.split(":")[2])
        .sort(),
      [
        "ClusterAutoscaler",
        "ContainerRuntimeConfig",
        "ContainerRuntimeConfig",
        "MachineConfigPool",
        "MachineConfigPool",
        "OperatorSubscription",
      ],
    );
    throughProgramProvider(preview.registrations);
    // These objects depend on nothing read from the cluster: the render's mocks decide as the cluster does.
    const typescript = await render(loadProject(path.join(ROOT, "harness", "testdata", "other-components")));
    sameRendering(rendered(preview.registrations), typescript);

    const up = await run(project, false, statePath);
    assert.deepEqual(up.result.errors, []);
    sameRendering(rendered(up.registrations), typescript, sim);
    throughProgramProvider(up.registrations);
    assert.ok(
      sim.store.get({
        apiVersion: "machineconfiguration.openshift.io/v1",
        kind: "ContainerRuntimeConfig",
        name: "storage-crio",
      }),
    );
    const csv = (reveal(up.result.outputs) as { localStorageCSV: string }).localStorageCSV;
    const installed = sim.store.get({
      apiVersion: "operators.coreos.com/v1alpha1",
      kind: "ClusterServiceVersion",
      namespace: "openshift-local-storage",
      name: csv,
    });
    assert.equal((installed?.status as { phase?: string } | undefined)?.phase, "Succeeded");
    // Each container runtime config waited until its pool runs it, the one given the provider in its
    // options through that provider's connection.
    for (const name of ["gpu", "storage"]) {
      const crio = up.result.checkpoint.deployment.resources.find(
        (r) => r.urn.endsWith(`::${name}-crio`) && !r.custom,
      )!;
      const pool = sim.store.get({
        apiVersion: "machineconfiguration.openshift.io/v1",
        kind: "MachineConfigPool",
        name,
      })!;
      assert.equal(
        (reveal(crio.outputs) as { renderedConfig: string }).renderedConfig,
        (pool.status as { configuration: { name: string } }).configuration.name,
        name,
      );
    }
  });

  it("serves its schema, takes a Windows pool's key as a secret, waits through a provider given as `provider`, and returns every component's bad input as Pulumi's property errors, each property with what is allowed, to that Construct alone", async () => {
    const project = loadProject(installedProgram(path.join(ROOT_EXAMPLE, "yaml")));
    const registered: Registration[] = [];
    const errors: string[] = [];
    const monitor = await startMonitor(project.name, project.stack, {
      register: async (r) => (registered.push(r), { id: "", outputs: {} }),
      read: async () => ({}),
      // A provider reference's state, as the engine answers the package's rehydration of it.
      invoke: (token, args) =>
        token === "pulumi:pulumi:getResource"
          ? { urn: args.urn, id: "cluster-id", state: { kubeconfig: "clusters: []\n" } }
          : {},
      registerOutputs: () => undefined,
      log: (severity, message) => severity === "error" && errors.push(message),
    });
    const host = await ComponentHost.start(project.packages["openshift-topology"], monitor.address, {});
    const construct = (type: string, name: string, inputs: Record<string, unknown>) =>
      host.construct({
        project: project.name,
        stack: project.stack,
        config: {},
        dryRun: true,
        monitor: monitor.address,
        type: `openshift-topology:index:${type}`,
        name,
        parent: "",
        inputs,
        dependencies: [],
        providers: {},
      });
    const bad = (name: string) =>
      construct("InfraNodePool", name, { role: "worker", zones: ["us-east-2a", "us-east-2a"] }).then(
        () => assert.fail("Construct accepted bad input"),
        (e: unknown) => e,
      );
    const badInput = (name: string) => ({
      heading: `InfraNodePool "${name}": 2 inputs are invalid`,
      errors: [
        {
          propertyPath: "role",
          reason:
            '"worker" is a pool every cluster already has: a custom pool needs another DNS label (e.g. "infra"), not "master" or "worker"',
        },
        {
          propertyPath: "zones[1]",
          reason: 'zone "us-east-2a" is listed twice (also at zones[0]): each zone may appear once',
        },
      ],
    });
    const asFailure = (failure: unknown) => {
      assert.ok(failure instanceof InputPropertiesFailure, String(failure));
      return { heading: failure.heading, errors: failure.errors };
    };
    try {
      assert.deepEqual(
        await host.schema(),
        JSON.parse(fs.readFileSync(path.join(ROOT, "plugin", "schema.json"), "utf8")),
      );
      // A Windows pool's key in every language: `privateKey`, a secret (e.g. a pulumi-tls PrivateKey's
      // PEM), reaches WMCO's Secret still secret; without it the pool generates one, as the YAML example's.
      const pem = crypto
        .generateKeyPairSync("rsa", { modulusLength: 2048 })
        .privateKey.export({ type: "pkcs1", format: "pem" })
        .toString();
      // One plugin process serves a deployment's Constructs at once: a bad component's failures, some
      // after its own answer, reach its Construct alone, whichever is asked first.
      const [badFirst, farProvider, windows] = await Promise.all([
        bad("bad-first"),
        // The waiters connect as the component's provider does, here one given as a property.
        construct("MachineConfigPool", "far", {
          provider: {
            [SECRET_SIG_KEY]: RESOURCE_SIG,
            urn: `urn:pulumi:${project.stack}::${project.name}::pulumi:providers:kubernetes::cluster`,
            id: "cluster-id",
          },
        }).then(
          () => assert.fail("Construct waited without a kubeconfig"),
          (e: unknown) => e,
        ),
        construct("WindowsNodePool", "given-key", {
          zones: ["us-east-2a"],
          windowsServer: "2022",
          image: "ami-0a2b3c4d5e6f70812",
          infrastructureId: "cluster-zbwlg-cbgq7",
          platform: "aws",
          region: "us-east-2",
          privateKey: secret(pem),
        }),
      ]);
      // Every other component's bad input too, each named at its property.
      const others: Array<[string, Record<string, unknown>, string]> = [
        ["WindowsNodePool", { windowsServer: "2016" }, "windowsServer"],
        ["MachineConfig", { role: "infra", kernelType: "fast" }, "kernelType"],
        ["KubeletConfig", { pool: "infra", logLevel: 11 }, "logLevel"],
        [
          "ContainerRuntimeConfig",
          { pool: "infra", containerRuntimeConfig: { logLevel: "loud" } },
          "containerRuntimeConfig.logLevel",
        ],
        ["OperatorSubscription", { packageName: "Not A Package" }, "packageName"],
        ["ClusterAutoscaler", { spec: { expanders: ["Fastest"] } }, "spec.expanders[0]"],
      ];
      const [storage, badSecond, ...otherFailures] = await Promise.all([
        construct("MachineConfigPool", "storage", { wait: false }),
        bad("bad-second"),
        ...others.map(([type, inputs]) =>
          construct(type, `bad-${type.toLowerCase()}`, inputs).then(
            () => assert.fail(`${type}: Construct accepted bad input`),
            (e: unknown) => e,
          ),
        ),
      ]);
      for (const [i, [type, , property]] of others.entries()) {
        const { errors: found } = asFailure(otherFailures[i]);
        assert.ok(
          found.some((e) => e.propertyPath === property),
          `${type}: ${JSON.stringify(found)}`,
        );
      }
      assert.deepEqual(asFailure(badFirst), badInput("bad-first"));
      assert.deepEqual(asFailure(badSecond), badInput("bad-second"));
      const { errors: farErrors } = asFailure(farProvider);
      assert.deepEqual(
        farErrors.map((e) => e.propertyPath),
        ["provider"],
      );
      assert.match(
        farErrors[0].reason,
        /^the kubeconfig of the component's Kubernetes provider is not a kubeconfig: expected the content of a kubeconfig/,
      );
      assert.equal(storage.state.objectName, "storage");
      // Reported on their Constructs, not as the process's own errors.
      assert.deepEqual(errors, []);

      const keySecret = registered.find((r) => r.type === "kubernetes:core/v1:Secret")!;
      assert.ok(isSecret(keySecret.inputs.stringData));
      assert.equal((reveal(keySecret.inputs.stringData) as Record<string, string>)["private-key.pem"], pem);
      const body = pem.split("\n")[1];
      assert.ok(registered.every((r) => !JSON.stringify(redact(r.inputs)).includes(body)));
      assert.ok(!registered.some((r) => r.type.includes("RsaPrivateKey")));
      assert.equal(windows.state.privateKeyFingerprint, publicKeyFingerprint(pem));
      // The components declared nothing from bad input: no object, no waiter.
      const fromBad = registered.filter((r) => r.name.startsWith("bad-"));
      assert.deepEqual(
        fromBad.filter((r) => r.custom).map((r) => `${r.type} ${r.name}`),
        [],
      );
      for (const type of ["InfraNodePool", ...others.map(([t]) => t)]) {
        assert.ok(
          fromBad.some((r) => r.type === `openshift-topology:index:${type}`),
          type,
        );
      }
    } finally {
      host.stop();
      await monitor.stop();
    }
  });
});
