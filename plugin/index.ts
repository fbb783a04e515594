/**
 * The component provider's entry point, as the Node.js language host's plugin runner
 * (@pulumi/pulumi/cmd/run-plugin) loads this directory for `pulumi package add` and for every program
 * that uses the package: the SDK's provider host serves ComponentProvider on a port it prints, the
 * engine's address being its argument. Exports nothing, so the runner does not mistake the package for
 * one whose schema the SDK infers from its exported classes.
 */
import { main } from "@pulumi/pulumi/provider";
import { reportInputErrors } from "./input-errors";
import { ComponentProvider } from "./provider";

// Before the host's own handlers, which answer the Constructs in flight with what they receive.
reportInputErrors();
void main(new ComponentProvider(), process.argv.slice(2));
