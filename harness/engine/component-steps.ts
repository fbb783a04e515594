/**
 * Components of packages (remote registrations), as the engine's step generator handles them: the
 * package's provider constructs the component, registering it and its children with this monitor,
 * and the component's state is the outputs Construct returns. Bad input fails it with each property.
 */
import { InputPropertiesFailure } from "./component-host";
import type { StepContext } from "./step-context";
import { short, SKIPPED } from "./diagnostics";
import type { Registration } from "./monitor";
import { grpcMessage, Props } from "./rpc";

export async function constructStep(
  d: StepContext,
  r: Registration,
): Promise<{ id: string; outputs: Props }> {
  if (d.failures.length > 0) throw new Error(`${r.name} ${SKIPPED}`);
  try {
    const host = await d.componentHost(r.type.split(":")[0]);
    const { state } = await host.construct({
      project: d.options.project.name,
      stack: d.options.project.stack,
      config: d.options.project.config,
      dryRun: d.dryRun,
      monitor: d.monitorAddress(),
      type: r.type,
      name: r.name,
      parent: r.parent,
      inputs: r.inputs,
      dependencies: r.dependencies,
      providers: r.providers,
    });
    const component = d.resources.get(r.urn);
    if (component) component.outputs = state;
    return { id: "", outputs: state };
  } catch (error) {
    // The component's own name heads its message; the engine names the resource once.
    const named = new RegExp(`^${short(r.type)} "${r.name}": `);
    const message =
      error instanceof InputPropertiesFailure ? error.message.replace(named, "") : grpcMessage(error);
    throw d.fail(r, "create", new Error(message));
  }
}
