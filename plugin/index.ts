/**
 * The component provider's entry point, as the Node.js language host's plugin runner
 * (@pulumi/pulumi/cmd/run-plugin) loads this directory for `pulumi package add` and for every program
 * that uses the package: the SDK's provider host serves ComponentProvider on a port it prints, the
 * engine's address being its argument. Exports nothing, so the runner does not mistake the package for
 * one whose schema the SDK infers from its exported classes.
 */
import { main } from "@pulumi/pulumi/provider";
import { routeFailures } from "./construct-failures";
import { ComponentProvider } from "./provider";

// The host installs its handlers of unhandled errors as it starts serving, before its first await.
void main(new ComponentProvider(), process.argv.slice(2));
routeFailures(process);
