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
    const instance = new Component(name, inputs, options) as pulumi.ComponentResource &
      Record<string, unknown>;
    const state = Object.fromEntries(
      Object.keys(resources[type].properties).map((key) => [key, instance[key]]),
    );
    return { urn: instance.urn, state };
  }
}
