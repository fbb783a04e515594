/**
 * The components as a Pulumi component provider, for programs in any language: `GetSchema` serves the
 * schema generated from the components' TypeScript declarations (scripts/component-schema.ts), and
 * `Construct` declares the component a program registered, with the plain values that language sent,
 * through the same classes a TypeScript program uses. Its children are registered with the engine as
 * that program's would be; the outputs the schema lists are returned as the component's state. Bad
 * input fails Construct with the component's `pulumi.InputPropertiesError`, which the SDK's provider
 * host returns as Pulumi's InputPropertiesError, so every language shows the property and the reason.
 */
import * as pulumi from "@pulumi/pulumi";
import type * as provider from "@pulumi/pulumi/provider";
import * as components from "../components";
import { oneConstruct } from "./construct-failures";
import schema = require("./schema.json");

interface ComponentSchema {
  properties: Record<string, unknown>;
}

type ComponentClass = new (
  name: string,
  args: pulumi.Inputs,
  opts: pulumi.ComponentResourceOptions,
) => pulumi.ComponentResource;

const resources = schema.resources as Record<string, ComponentSchema>;

/** The class that declares a schema token's component: the exported class of the token's name. */
function componentClass(type: string): ComponentClass {
  if (!(type in resources)) {
    throw new Error(
      `unknown component type ${type}: this package serves ${Object.keys(resources).join(", ")}`,
    );
  }
  return (components as unknown as Record<string, ComponentClass>)[type.split(":")[2]];
}

export class ComponentProvider implements provider.Provider {
  readonly version = schema.version;

  async getSchema(): Promise<string> {
    return JSON.stringify(schema);
  }

  async construct(
    name: string,
    type: string,
    inputs: pulumi.Inputs,
    options: pulumi.ComponentResourceOptions,
  ): Promise<provider.ConstructResult> {
    const Component = componentClass(type);
    let instance: (pulumi.ComponentResource & Record<string, unknown>) | undefined;
    return oneConstruct(
      async (failed) => {
        const component = new Component(name, inputs, options) as pulumi.ComponentResource &
          Record<string, unknown>;
        instance = component;
        const state = Object.fromEntries(
          Object.keys(resources[type].properties).map((key) => [key, component[key]]),
        );
        await Promise.race([failed, completion(component, state)]);
        return { urn: component.urn, state };
      },
      // As the provider host reports an error of no Construct, but against this component.
      (error) =>
        void pulumi.log.error(
          error instanceof Error ? (error.stack ?? error.message) : String(error),
          instance,
        ),
    );
  }
}

// The SDK keeps these internal: how an Output settles without waiting on what a preview cannot know,
// and the wait for a Construct's registrations that its provider host makes before answering.
type Settling = { promise(): Promise<unknown> };
const settings = require("@pulumi/pulumi/runtime/settings") as { waitForRPCs(): Promise<void> };

/**
 * Settles once the component is complete as its provider host answers for it (server.ts construct):
 * its URN, its outputs, every registration its Construct made. Until then a failure is this
 * Construct's answer. The outputs are read at once: read later, their failures, already reported as
 * unhandled, would each print Node's warning of a rejection handled late.
 */
async function completion(component: pulumi.ComponentResource, state: pulumi.Inputs): Promise<void> {
  const outputs = [component.urn, pulumi.output(state)] as unknown as Settling[];
  await Promise.all(outputs.map((o) => o.promise()));
  await settings.waitForRPCs();
}
