import * as path from "node:path";

// Tests never reach a real cluster: components that read the ambient kubeconfig get a fake one.
process.env.KUBECONFIG = path.join(__dirname, "fixtures", "kubeconfig.yaml");
