import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

// Each stack of the test declares one object, named and shaped by its config.
const config = new pulumi.Config();
const name = config.require("name");
// The object's name when it is not the resource's (a resource renamed, its object kept).
const objectName = config.get("objectName") ?? name;
const renamedFrom = config.get("renamedFrom");
const kind = config.get("kind") ?? "ConfigMap";
const value = config.get("value") ?? "one";
const upsert = config.getBoolean("upsertProvider");
const provider = upsert
  ? new k8s.Provider("upsert", { upsertExistingObjects: true, enableServerSideApply: true })
  : undefined;
const opts: pulumi.CustomResourceOptions = {
  provider,
  import: config.get("import"),
  protect: config.getBoolean("protect"),
  retainOnDelete: config.getBoolean("retainOnDelete"),
  replaceOnChanges: config.getObject<string[]>("replaceOnChanges"),
  customTimeouts: {
    create: config.get("createTimeout"),
    update: config.get("updateTimeout"),
    delete: config.get("deleteTimeout"),
  },
  deleteBeforeReplace: config.getBoolean("deleteBeforeReplace"),
  aliases: renamedFrom ? [{ name: renamedFrom }] : undefined,
};
// pulumi-kubernetes' await annotation, when the stack's config gives one.
const waitFor = config.get("waitFor");
const metadata = {
  // Without a name (autoname=true), the provider names the object.
  name: config.getBoolean("autoname") ? undefined : objectName,
  namespace: config.get("namespace") ?? "default",
  labels: { tier: config.get("tier") ?? "a" },
  ...(waitFor ? { annotations: { "pulumi.com/waitFor": waitFor } } : {}),
};

if (kind === "Widget") {
  // A custom resource of a kind no CRD on the cluster defines.
  new k8s.apiextensions.CustomResource(
    name,
    { apiVersion: "example.com/v1", kind: "Widget", metadata, spec: { value } },
    opts,
  );
} else if (kind === "LegacyRuntimeClass") {
  // An apiVersion Kubernetes 1.25 stopped serving, as older docs still show it.
  new k8s.node.v1beta1.RuntimeClass(
    name,
    { metadata: { name: objectName }, handler: "runhcs-wcow-process" },
    opts,
  );
} else if (kind === "Secret") {
  new k8s.core.v1.Secret(name, { metadata, type: "Opaque", stringData: { key: pulumi.secret(value) } }, opts);
} else {
  // A secret nested in the inputs, as a program passes one value of a map.
  const data = config.getBoolean("secretValue") ? { value: pulumi.secret(value) } : { value };
  new k8s.core.v1.ConfigMap(name, { metadata, data }, opts);
}
