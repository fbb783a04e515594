import * as pulumi from "@pulumi/pulumi";

/** Made, then ready only once $MADE_FAILS is unset in the provider host: an error carrying the id is an init failure. */
const provider: pulumi.dynamic.ResourceProvider = {
  async create() {
    if (process.env.MADE_FAILS) {
      const reason = "made, but not ready";
      throw Object.assign(new Error(reason), {
        id: "made-1",
        properties: { ready: false },
        reasons: [reason],
      });
    }
    return { id: "made-1", outs: { ready: true } };
  },
  async update() {
    return { outs: { ready: true } };
  },
};

class Made extends pulumi.dynamic.Resource {
  constructor(name: string) {
    super(provider, name, { size: 1 }, {});
  }
}

new Made("made");
