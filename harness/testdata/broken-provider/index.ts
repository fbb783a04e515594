import * as pulumi from "@pulumi/pulumi";

// Named like a global: Pulumi's closure serializer does not capture names it finds on globalThis, so
// where Pulumi runs the provider (the dynamic-provider host), `fetch` is the global one.
function fetch(kubeconfig: string): string {
  return /current-context: *(\S+)/.exec(kubeconfig)?.[1] ?? "none";
}

const provider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: Record<string, unknown>) {
    return { id: await fetch(String(inputs.kubeconfig)), outs: {} };
  },
};

class Cluster extends pulumi.dynamic.Resource {
  constructor(name: string, kubeconfig: string) {
    super(provider, name, { kubeconfig: pulumi.secret(kubeconfig) }, {}, undefined, "Resource");
  }
}

new Cluster("shadowed-global", require("node:fs").readFileSync(process.env.KUBECONFIG!, "utf8"));
