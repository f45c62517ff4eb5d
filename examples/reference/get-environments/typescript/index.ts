import { getEnvironmentsOutput } from "pulumi-gemini-environments";

const onDemand = getEnvironmentsOutput({ mode: "on_demand" });

export const environments = onDemand.environments;
